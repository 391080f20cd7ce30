"""Platforms the tool trusts: the JSON file named by ``JUDGE_LTI_CONFIG``, in pylti1p3's
``ToolConfJsonFile`` format, checked field by field at start-up so a mistake is named, not hit mid-launch.

    {"https://moodle.example.edu": [{"default": true, "client_id": "...", "auth_login_url": "...",
      "auth_token_url": "...", "key_set_url": "...", "private_key_file": "tool.key",
      "public_key_file": "tool.pub", "deployment_ids": ["1"]}]}

Key files are relative to the JSON file's folder.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from judge.service.settings import SettingsError

_URL_FIELDS = ("auth_login_url", "auth_token_url", "key_set_url")


def _url(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _key(path: Path, where: str, private: bool) -> Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SettingsError(f"{where}: cannot read {path}: {exc.strerror}") from None
    try:
        key = (serialization.load_pem_private_key(data, password=None) if private
               else serialization.load_pem_public_key(data))
    except (ValueError, TypeError) as exc:
        raise SettingsError(f"{where}: {path} is not a PEM {'private' if private else 'public'} key "
                            f"without a password ({exc})") from None
    if not isinstance(key, (rsa.RSAPrivateKey, rsa.RSAPublicKey)):
        raise SettingsError(f"{where}: {path} is not an RSA key (LTI 1.3 signs with RS256)")
    return key


def _check_entry(entry: Any, where: str, folder: Path) -> None:
    if not isinstance(entry, dict):
        raise SettingsError(f"{where}: must be an object")
    if not isinstance(entry.get("client_id"), str) or not entry["client_id"]:
        raise SettingsError(f"{where}.client_id: missing (the client id the platform gave this tool)")
    for name in _URL_FIELDS:
        if name == "key_set_url" and entry.get("key_set") and not entry.get(name):
            continue
        if not _url(entry.get(name)):
            raise SettingsError(f"{where}.{name}: {entry.get(name)!r} is not an http(s) URL")
    ids = entry.get("deployment_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
        raise SettingsError(f"{where}.deployment_ids: must be a non-empty list of strings")
    keys = []
    for name, private in (("private_key_file", True), ("public_key_file", False)):
        value = entry.get(name)
        if not isinstance(value, str) or not value:
            raise SettingsError(f"{where}.{name}: missing (the tool's RSA key pair, PEM files)")
        path = Path(value) if value.startswith("/") else folder / value
        keys.append(_key(path, f"{where}.{name}", private))
    if keys[0].public_key().public_numbers() != keys[1].public_numbers():
        raise SettingsError(f"{where}: public_key_file is not the public half of private_key_file")


def _tool_config_class():  # noqa: ANN202 - a subclass of pylti1p3's ToolConfJsonFile, made once imported
    from pylti1p3.tool_config import ToolConfJsonFile

    class ToolConfig(ToolConfJsonFile):
        """pylti1p3's JSON config, which also derives the tool's own secrets from its private keys: every server
        with the same platforms file derives the same ones, and nothing is stored to share them."""

        def set_private_key(self, iss: str, key_content: str, client_id: str | None = None) -> Any:
            self.__dict__.setdefault("_judge_keys", set()).add(key_content)
            return super().set_private_key(iss, key_content, client_id=client_id)

        def secret(self, purpose: str) -> bytes:
            """A key for ``purpose`` (an HMAC of it under every registration's private key)."""
            material = "\0".join(sorted(self.__dict__.get("_judge_keys", ()))).encode()
            return hmac.new(material, purpose.encode(), hashlib.sha256).digest()

    return ToolConfig


def load_tool_config(path: str):  # noqa: ANN201 - pylti1p3's ToolConfJsonFile, with ``secret(purpose)``
    """The validated config; raises :class:`SettingsError` naming the file, the issuer and the field."""
    try:
        from pylti1p3.exception import ToolConfException
        ToolConfJsonFile = _tool_config_class()  # noqa: N806
    except ImportError:
        raise SettingsError("JUDGE_LTI_CONFIG is set but pylti1p3next is not installed "
                            "(pip install 'numpy-judge[service]')") from None
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SettingsError(f"JUDGE_LTI_CONFIG: cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise SettingsError(f"JUDGE_LTI_CONFIG: {path} is not JSON: {exc}") from None
    if not isinstance(data, dict) or not data:
        raise SettingsError(f"JUDGE_LTI_CONFIG: {path} must be an object with one key per platform issuer")
    for issuer, value in data.items():
        if not _url(issuer):
            raise SettingsError(f"{path}: issuer {issuer!r} is not an http(s) URL")
        entries = value if isinstance(value, list) else [value]
        if not entries:
            raise SettingsError(f"{path}: issuer {issuer!r} has no registration")
        for i, entry in enumerate(entries):
            _check_entry(entry, f"{path}: {issuer}" + (f"[{i}]" if isinstance(value, list) else ""), file.parent)
    try:
        return ToolConfJsonFile(str(file.resolve()))
    except (ToolConfException, OSError, ValueError) as exc:
        raise SettingsError(f"JUDGE_LTI_CONFIG: {path}: {exc}") from None
