"""Where the service's own requests may go: callbacks reach the outside world only.

A ``callback_url`` is the platform's to choose, so without a rule a token could make the judge POST to its
own loopback, the cluster's private services or a cloud's metadata address, and read from ``callback_state``
which internal ports answer.  The rule: an address that is loopback, private, shared (CGNAT), link-local,
multicast, reserved or unspecified is refused unless an operator allowed its network
(``JUDGE_CALLBACK_ALLOW_NETWORKS``, for a platform on a private network).

The rule is applied to the address the request really connects to: :class:`PublicOnlyTransport` resolves the
host once, checks each address, and connects to a checked one (the original host kept in ``Host`` and as the
TLS server name, so certificates are verified as usual).  A name that resolves to a public address when
submitted and to loopback later (DNS rebinding) is therefore refused at connect time.  Proxies from the
environment are ignored: a proxy would connect wherever it is asked.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
#: ``(host, port) -> addresses``, as the system resolver answers (injectable for tests of rebinding).
Resolver = Callable[[str, int], list[str]]
_LEGACY_IPV4 = re.compile(r"^(0[xX][0-9a-fA-F]+|[0-9]+)(\.(0[xX][0-9a-fA-F]+|[0-9]+)){0,3}$")


class AddressRefused(httpx.ConnectError):
    """The host resolves to no address callbacks may reach; nothing was sent anywhere."""


def literal_address(host: str) -> Address | None:
    """The address a URL's host names literally (``127.0.0.1``, ``[::1]``, and the forms resolvers also read
    as IPv4: ``2130706433``, ``0x7f.1``, ``127.1``), or None for a name."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _LEGACY_IPV4.match(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def is_public(address: Address) -> bool:
    """A globally routed unicast address (an IPv6 address embedding IPv4 is judged by its IPv4 address)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)
        if embedded is not None and not is_public(embedded):
            return False
    return address.is_global and not (address.is_loopback or address.is_private or address.is_link_local
                                      or address.is_multicast or address.is_reserved or address.is_unspecified)


@dataclass(frozen=True)
class AddressPolicy:
    """Public addresses, and the networks an operator allowed beside them."""

    allowed: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(default_factory=tuple)

    @classmethod
    def of(cls, networks: list[str]) -> AddressPolicy:
        return cls(tuple(ipaddress.ip_network(n, strict=False) for n in networks))

    def allows(self, address: Address) -> bool:
        if any(address.version == net.version and address in net for net in self.allowed):
            return True
        return is_public(address)


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host``, in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class PublicOnlyTransport(httpx.HTTPTransport):
    """An httpx transport that connects only to addresses its :class:`AddressPolicy` allows, resolving each
    host once per request and connecting to exactly the address it checked."""

    def __init__(self, policy: AddressPolicy, resolver: Resolver = system_resolver, **kwargs: object) -> None:
        super().__init__(trust_env=False, **kwargs)  # type: ignore[arg-type]
        self.policy, self.resolver = policy, resolver

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        port = request.url.port or (443 if request.url.scheme == "https" else 80)
        literal = literal_address(host)
        try:
            found = [str(literal)] if literal is not None else self.resolver(host, port)
        except OSError as exc:
            raise httpx.ConnectError(f"cannot resolve {host!r}: {exc}", request=request) from None
        allowed = [a for a in found if self.policy.allows(ipaddress.ip_address(a.split("%", 1)[0]))]
        if not allowed:
            raise AddressRefused(f"{host!r} resolves to no public address (only {', '.join(found) or 'none'}): "
                                 "callbacks go to the outside world only, unless JUDGE_CALLBACK_ALLOW_NETWORKS "
                                 "allows the network", request=request)
        last: httpx.ConnectError | None = None
        for address in allowed:
            extensions = dict(request.extensions)
            if request.url.scheme == "https":
                extensions["sni_hostname"] = host  # the certificate is checked against the name, not the address
            pinned = httpx.Request(request.method, request.url.copy_with(host=address), headers=request.headers,
                                   stream=request.stream, extensions=extensions)
            try:
                return super().handle_request(pinned)
            except httpx.ConnectError as exc:
                last = exc
        assert last is not None
        raise last
