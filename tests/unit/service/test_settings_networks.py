"""The service's two lists of networks are read by their own rules (found by mypy: one parser shadowed the other).

``JUDGE_FORWARDED_ALLOW_IPS`` names the proxies whose ``X-Forwarded-For`` is believed; ``*`` trusts every client,
for a service that only a proxy can reach, as uvicorn's own option allows.  ``JUDGE_CALLBACK_ALLOW_NETWORKS`` opens
private networks to callbacks: there ``*`` would open every address, so it stays refused.
"""

from __future__ import annotations

import pytest

from judge.service.settings import Settings, SettingsError


def test_a_service_behind_a_proxy_may_trust_every_client_address():
    s = Settings.from_env({"JUDGE_FORWARDED_ALLOW_IPS": "*"})
    assert s.forwarded_allow_ips == ["*"]


def test_trusted_proxies_are_addresses_or_networks_and_a_typo_is_named():
    s = Settings.from_env({"JUDGE_FORWARDED_ALLOW_IPS": "127.0.0.1, 10.0.0.0/8"})
    assert s.forwarded_allow_ips == ["127.0.0.1", "10.0.0.0/8"]
    with pytest.raises(SettingsError, match="JUDGE_FORWARDED_ALLOW_IPS: '10.0.0.300'"):
        Settings.from_env({"JUDGE_FORWARDED_ALLOW_IPS": "10.0.0.300"})


def test_callbacks_never_open_every_network():
    with pytest.raises(SettingsError, match="JUDGE_CALLBACK_ALLOW_NETWORKS: '\\*'"):
        Settings.from_env({"JUDGE_CALLBACK_ALLOW_NETWORKS": "*"})
    s = Settings.from_env({"JUDGE_CALLBACK_ALLOW_NETWORKS": "127.0.0.1,10.2.0.0/16"})
    assert s.callback_allow_networks == ["127.0.0.1/32", "10.2.0.0/16"]
