"""The deploy files as their tools read them, for tests/deploy/test_deploy_manifests.py and
tests/service/test_worker_role.py: Compose's variable interpolation and override merge (what
``docker-compose config`` prints; one test checks them against it), and the Redis users (ACL) of compose.yaml's
redis command or of an ACL file."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.support.common import REPO

COMPOSE = REPO / "deploy" / "compose.yaml"

_VARIABLE = re.compile(r"\$(?:(?P<dollar>\$)|\{(?P<braced>[^}]*)\}|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))")
_BRACED = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<colon>:?)(?P<op>[-?])(?P<arg>.*))?", re.S)


def interpolate(value, env: dict[str, str]):  # noqa: ANN001, ANN202 - any YAML node
    """The Compose specification's interpolation ($$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
    ${VAR:?error}, ${VAR?error}) on every string value of a loaded file."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match) -> str:
        if match["dollar"]:
            return "$"
        if match["plain"]:
            return env.get(match["plain"], "")
        parts = _BRACED.fullmatch(match["braced"])
        assert parts, match["braced"]
        current = env.get(parts["name"])
        missing = current is None or (parts["colon"] == ":" and current == "")
        if parts["op"] == "?" and missing:
            raise KeyError(f"{parts['name']}: {parts['arg']}")
        if parts["op"] == "-" and missing:
            return parts["arg"]
        return current or ""

    return _VARIABLE.sub(one, value)


def merge(base: dict, override: dict) -> dict:
    """A later -f file over an earlier one: mappings merged key by key, `volumes` lists added to, other values
    replaced (what compose.lti.yaml and compose.full.yaml use of Compose's merge rules)."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        elif key == "volumes" and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + value
        else:
            out[key] = value
    return out


def rendered(*files: Path, env: dict[str, str]) -> dict:
    """Compose files as ``docker-compose -f A -f B config`` gives them, for the variables ``env``."""
    merged: dict = {}
    for path in files:
        merged = merge(merged, interpolate(yaml.safe_load(path.read_text()), env))
    return merged



def acl_rules(text: str) -> dict[str, list[str]]:
    """Redis users -> their rules, passwords blanked, from an ACL file's `user` lines or redis-server's
    `--user` arguments."""
    users: dict[str, list[str]] = {}
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["user"] and len(words) > 1:
            users[words[1]] = [">PASSWORD" if w.startswith(">") else w for w in words[2:]]
    return users


def compose_acl(config: dict) -> dict[str, list[str]]:
    """The Redis users of a rendered compose file's redis command (its ``--user`` arguments)."""
    command = config["services"]["redis"]["command"]
    lines = " ".join(command).replace("--user ", "\nuser ").splitlines()
    return acl_rules("\n".join(lines))


def redis_glob(pattern: str, key: str) -> bool:
    """Redis's glob (`[^x]` negates) as fnmatch spells it (`[!x]`)."""
    import fnmatch

    return fnmatch.fnmatchcase(key, pattern.replace("[^", "[!"))


def compose_redis_acl_file(passwords: dict[str, str], queue: str = "judge") -> str:
    """The ACL file of compose.yaml's Redis users, with these passwords (``{"REDIS_API_PASSWORD": ...}``), for a
    redis-server of a test's own."""
    command = rendered(COMPOSE, env={**{k: "x" for k in ("POSTGRES_PASSWORD", "POSTGRES_WORKER_PASSWORD",
                                                          "JUDGE_API_TOKENS")},
                                     **passwords, "JUDGE_QUEUE": queue})["services"]["redis"]["command"]
    return " ".join(command).replace("--user ", "\nuser ").split("\n", 1)[1] + "\n"
