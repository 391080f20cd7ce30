"""What a host name says about where it is: the one question several doors ask (``judge serve`` warns when it
listens beyond loopback; a Deep Linking return URL may be plain ``http`` only on loopback)."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
