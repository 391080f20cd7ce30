"""deploy/kubernetes/ and deploy/compose*.yaml, offline.

The built-in kinds are validated with kubernetes-validate (its schemas ship in the package) for Kubernetes
K8S_VERSION, strictly (an unknown field is an error); the KEDA ScaledObject against the openAPIV3Schema of KEDA's
own CRD (tests/data/keda-scaledobject-v2.20.2.json, copied from kedacore/keda with its source), made strict the same
way.  Then what the manifests promise: no container privileged or allowed to escalate, the workers' capabilities
within the Pod Security Standards' baseline and the same as compose.yaml's, the worker pod's memory and CPU
recomputed from the bundles' limits (problems/*/problem.yaml) and their result buffers, the KEDA trigger on the
queue the workers read.  compose.yaml's structure is checked at the YAML level (the real thing runs in
tests/deploy/test_deploy_compose.py).
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from tests.support.common import REPO
from tests.support.deploy import acl_rules, compose_acl, redis_glob, rendered

K8S_VERSION = "1.30.0"
KUBE = REPO / "deploy" / "kubernetes"
COMPOSE = REPO / "deploy" / "compose.yaml"
COMPOSE_FULL = REPO / "deploy" / "compose.full.yaml"
COMPOSE_LTI = REPO / "deploy" / "compose.lti.yaml"
KEDA_SCHEMA = REPO / "tests" / "data" / "keda-scaledobject-v2.20.2.json"
KEDA_AUTH_SCHEMA = REPO / "tests" / "data" / "keda-triggerauthentication-v2.20.2.json"
REDIS_ACL_EXAMPLE = KUBE / "redis-users.acl.example"
#: The Pod Security Standards' baseline level: capabilities a container may add.
BASELINE_CAPABILITIES = {
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
}
#: The redis scaler's trigger metadata in KEDA v2.20.2 (pkg/scalers/redis_scaler.go, `keda:"name=..."` tags read from
#: triggerMetadata): anything else is ignored by KEDA, so a misspelt key would go unnoticed.
REDIS_TRIGGER_KEYS = {"address", "addresses", "username", "password", "sentinelUsername", "sentinelPassword",
                      "sentinelMaster", "host", "hosts", "port", "ports", "unsafeSsl", "listLength",
                      "activationListLength", "listName", "databaseIndex", "enableTLS"}


def _manifests() -> dict[str, list[dict]]:
    return {p.name: [d for d in yaml.safe_load_all(p.read_text()) if d] for p in sorted(KUBE.glob("*.yaml"))
            if p.name != "kustomization.yaml"}


def _objects() -> list[dict]:
    return [doc for docs in _manifests().values() for doc in docs]


def _one(kind: str, name: str) -> dict:
    (found,) = [d for d in _objects() if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def _pod_specs() -> list[tuple[str, dict]]:
    return [(d["metadata"]["name"], d["spec"]["template"]["spec"]) for d in _objects() if d["kind"] == "Deployment"]


def _strict(schema: dict) -> dict:
    """A structural schema with unknown fields refused, as the API server's strict field validation does: every
    object that lists its properties and says nothing of others gets additionalProperties false."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (node.get("type") == "object" and "properties" in node and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def _judge_variables() -> set[str]:
    """Every JUDGE_* variable the package reads (string literals in judge/)."""
    names: set[str] = set()
    for path in (REPO / "judge").rglob("*.py"):
        names.update(re.findall(r"""["'](JUDGE_[A-Z0-9_]+)["']""", path.read_text()))
    return names


def test_kustomization_lists_every_manifest_but_the_example_secret():
    kustomization = yaml.safe_load((KUBE / "kustomization.yaml").read_text())
    assert kustomization["kind"] == "Kustomization"
    assert sorted(kustomization["resources"]) == sorted(n for n in _manifests() if n != "secret.example.yaml")


def _is_keda(doc: dict) -> bool:
    return doc["apiVersion"].split("/")[0] == "keda.sh"


@pytest.mark.parametrize("name", sorted(n for n, docs in _manifests().items() if not all(map(_is_keda, docs))))
def test_builtin_kinds_are_valid_for_the_named_kubernetes_version(name):
    import kubernetes_validate

    for doc in _manifests()[name]:
        if _is_keda(doc):
            continue  # KEDA's kinds: against KEDA's own CRDs below
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name}: {doc['kind']} {doc['metadata']['name']}: {exc.message} at {list(exc.path)}")


def test_the_validator_refuses_a_broken_network_policy():
    """kubernetes-validate does check the NetworkPolicy kind (a misspelt field, a port of the wrong type)."""
    import kubernetes_validate

    (worker, _api) = sorted(_manifests()["networkpolicy.yaml"], key=lambda d: d["metadata"]["name"], reverse=True)
    misspelt = copy.deepcopy(worker)
    misspelt["spec"]["policyType"] = misspelt["spec"].pop("policyTypes")
    wrong_port = copy.deepcopy(worker)
    wrong_port["spec"]["egress"][0]["ports"][0]["port"] = {"number": 6379}
    for broken in (misspelt, wrong_port):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


def test_scaled_object_is_valid_against_keda_s_crd():
    import jsonschema

    crd = json.loads(KEDA_SCHEMA.read_text())
    (scaled,) = _manifests()["keda-scaledobject.yaml"]
    assert scaled["apiVersion"] == f"{crd['group']}/{crd['version']}" and scaled["kind"] == crd["kind"]
    jsonschema.Draft7Validator(crd["openAPIV3Schema"]).validate(scaled)
    errors = [f"{e.message} at {list(e.path)}" for e in
              jsonschema.Draft7Validator(_strict(crd["openAPIV3Schema"])).iter_errors(scaled)]
    assert errors == []
    # The strict copy does refuse a misspelt field.
    wrong = copy.deepcopy(scaled)
    wrong["spec"]["maxReplicas"] = 3
    assert list(jsonschema.Draft7Validator(_strict(crd["openAPIV3Schema"])).iter_errors(wrong))


def test_trigger_authentication_is_valid_against_keda_s_crd_and_the_trigger_uses_it():
    import jsonschema

    crd = json.loads(KEDA_AUTH_SCHEMA.read_text())
    (auth,) = _manifests()["keda-triggerauthentication.yaml"]
    assert auth["apiVersion"] == f"{crd['group']}/{crd['version']}" and auth["kind"] == crd["kind"]
    errors = [f"{e.message} at {list(e.path)}" for e in
              jsonschema.Draft7Validator(_strict(crd["openAPIV3Schema"])).iter_errors(auth)]
    assert errors == []
    (scaled,) = _manifests()["keda-scaledobject.yaml"]
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["authenticationRef"] == {"name": auth["metadata"]["name"]}
    # KEDA logs in as its own Redis user (LLEN of the queue only), from its own Secret.
    refs = auth["spec"]["secretTargetRef"]
    assert {r["parameter"] for r in refs} == {"username", "password"} <= REDIS_TRIGGER_KEYS
    (secret,) = {r["name"] for r in refs}
    keys = _one("Secret", secret)["stringData"]
    user = keys[next(r["key"] for r in refs if r["parameter"] == "username")]
    assert user == "judge-keda" and "judge-keda" in acl_rules(REDIS_ACL_EXAMPLE.read_text())


def test_scaled_object_scales_the_workers_on_their_queue():
    (scaled,) = _manifests()["keda-scaledobject.yaml"]
    worker = _one("Deployment", "judge-worker")
    config = _one("ConfigMap", "judge-config")["data"]
    broker_url = _one("Secret", "judge-worker-secrets")["stringData"]["JUDGE_BROKER_URL"]
    assert scaled["spec"]["scaleTargetRef"]["name"] == worker["metadata"]["name"]
    assert scaled["spec"].get("scaleTargetRef", {}).get("kind", "Deployment") == "Deployment"
    (trigger,) = scaled["spec"]["triggers"]
    meta = trigger["metadata"]
    assert trigger["type"] == "redis" and set(meta) <= REDIS_TRIGGER_KEYS, meta
    assert meta["listName"] == config["JUDGE_QUEUE"] == "judge"
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    concurrency = {e["name"]: e["value"] for e in container.get("env", [])}["JUDGE_WORKERS"]
    assert meta["listLength"] == concurrency
    broker = urlsplit(broker_url)
    assert broker.scheme == "redis" and meta["address"] == f"{broker.hostname}:{broker.port or 6379}"
    assert meta.get("databaseIndex", "0") == (broker.path.strip("/") or "0")
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]


def test_no_container_is_privileged_and_every_security_context_is_explicit():
    for name, pod in _pod_specs():
        assert not pod.get("hostNetwork") and not pod.get("hostPID") and not pod.get("hostIPC"), name
        assert not any("hostPath" in v for v in pod.get("volumes", [])), name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        assert pod["securityContext"]["appArmorProfile"]["type"] == "RuntimeDefault", name
        assert pod.get("automountServiceAccountToken") is False, name
        for c in pod.get("initContainers", []) + pod["containers"]:
            sc = c["securityContext"]
            assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False, (name, c["name"])
            assert "readOnlyRootFilesystem" in sc, (name, c["name"])
            assert sc["capabilities"]["drop"] == ["ALL"], (name, c["name"])
            assert set(sc["capabilities"].get("add", [])) <= BASELINE_CAPABILITIES, (name, c["name"])
            assert sc.get("seccompProfile", {}).get("type", "RuntimeDefault") == "RuntimeDefault"


def test_env_names_the_config_and_secret_shipped_and_only_variables_the_judge_reads():
    known = _judge_variables()
    config = _one("ConfigMap", "judge-config")
    assert set(config["data"]) <= known, set(config["data"]) - known
    for name, pod in _pod_specs():
        secret = OWN_SECRET[name]
        keys = set(_one("Secret", secret)["stringData"])
        assert keys <= known, (secret, keys - known)
        for c in pod["containers"]:
            refs = {(k, v["name"]) for ref in c.get("envFrom", []) for k, v in ref.items()}
            assert refs == {("configMapRef", "judge-config"), ("secretRef", secret)}, (name, refs)
            assert {e["name"] for e in c.get("env", [])} <= known


def test_worker_resources_follow_from_the_bundles_limits():
    """memory = base + C x (largest memory_mib + largest result buffer + per-sandbox extra), requested and the limit;
    cpu = C requested, C + 1 the limit (worker.yaml's comment gives the reasons)."""
    from judge.grading.prepare import prepare
    from judge.problem.loader import load_problem

    bundles = sorted(p.parent for p in (REPO / "problems").glob("*/problem.yaml"))
    assert bundles
    memory_mib = max(yaml.safe_load((b / "problem.yaml").read_text())["limits"]["memory_mib"] for b in bundles)
    result_mib = 0
    for bundle in bundles:
        prepared = prepare(load_problem(bundle))
        try:
            result_mib = max(result_mib, math.ceil(prepared.result_size / (1 << 20)))
        finally:
            prepared.close()
    worker = _one("Deployment", "judge-worker")
    notes = worker["metadata"]["annotations"]
    base, extra = int(notes["numpy-judge/memory-base-mib"]), int(notes["numpy-judge/memory-slot-extra-mib"])
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    concurrency = int({e["name"]: e["value"] for e in container["env"]}["JUDGE_WORKERS"])
    expected = base + concurrency * (memory_mib + result_mib + extra)
    resources = container["resources"]
    assert resources["requests"]["memory"] == resources["limits"]["memory"] == f"{expected}Mi", (
        f"worker.yaml: memory should be {base} + {concurrency} x ({memory_mib} + {result_mib} + {extra}) = {expected}Mi"
    )
    assert resources["requests"]["cpu"] == str(concurrency) and resources["limits"]["cpu"] == str(concurrency + 1)
    assert f"= {expected} MiB" in (KUBE / "worker.yaml").read_text(), "worker.yaml's comment shows other figures"
    # The grace period covers the longest job: the largest total wall limit plus the counterexample search.
    longest = max(yaml.safe_load((b / "problem.yaml").read_text())["limits"]["wall_seconds"] for b in bundles) + 3
    assert worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > longest
    config = _one("ConfigMap", "judge-config")["data"]
    assert float(config["JUDGE_VISIBILITY_TIMEOUT"]) > longest * float(config.get("JUDGE_TIME_SCALE", "1"))


# --------------------------------------------------------------------------- compose, at the YAML level

def _compose(path: Path = COMPOSE) -> dict:
    return yaml.safe_load(path.read_text())


def test_compose_has_the_four_services_with_official_image_defaults_and_healthchecks():
    compose = _compose()
    services = compose["services"]
    assert set(services) == {"api", "worker", "redis", "postgres"}
    assert "version" not in compose  # Compose v1.27+ and v2 read the specification without it
    assert services["redis"]["image"] == "${REDIS_IMAGE:-redis:7}"
    assert services["postgres"]["image"] == "${POSTGRES_IMAGE:-postgres:16}"
    assert services["api"]["image"] == services["worker"]["image"] == "${JUDGE_SERVICE_IMAGE:-numpy-judge:service}"
    assert services["api"]["build"]["args"]["JUDGE_IMAGE"] == "${JUDGE_IMAGE:-numpy-judge:local}"
    for name, service in services.items():
        assert "test" in service["healthcheck"], name
        assert not service.get("privileged"), name
    # --scale worker=N: no fixed name or published port on the workers.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    assert set(services["postgres"]["environment"]) == {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}
    assert "postgres-data:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    assert {"postgres-data", "redis-data"} <= set(compose["volumes"])
    (port,) = services["api"]["ports"]
    assert port.startswith("${JUDGE_API_BIND:-127.0.0.1}:")


def test_compose_workers_get_what_the_kubernetes_workers_get():
    compose = _compose()["services"]
    (kube,) = _one("Deployment", "judge-worker")["spec"]["template"]["spec"]["containers"]
    assert compose["worker"]["cap_drop"] == ["ALL"]
    assert sorted(compose["worker"]["cap_add"]) == sorted(kube["securityContext"]["capabilities"]["add"])
    assert "no-new-privileges:true" in compose["worker"]["security_opt"]
    assert compose["api"]["cap_drop"] == ["ALL"] and "cap_add" not in compose["api"] and compose["api"]["read_only"]
    known = _judge_variables()
    for name in ("api", "worker"):
        assert set(compose[name]["environment"]) <= known, set(compose[name]["environment"]) - known
    worker_env = compose["worker"]["environment"]
    assert worker_env["JUDGE_QUEUE"] == "${JUDGE_QUEUE:-judge}"
    assert worker_env["JUDGE_VISIBILITY_TIMEOUT"].startswith("${JUDGE_VISIBILITY_TIMEOUT:-")
    # The full-isolation override: what it costs, and still not privileged.
    full = _compose(COMPOSE_FULL)["services"]["worker"]
    assert "SYS_ADMIN" in full["cap_add"] and not full.get("privileged")
    assert "seccomp=unconfined" in full["security_opt"] and "/sys/fs/cgroup:/sys/fs/cgroup:rw" in full["volumes"]


# --------------------------------------------------------------------------- least privilege: who holds what
#
# A worker runs learners' code: a sandbox escape holds what its container or pod holds and reaches what its
# network reaches.  These tests read the rendered files (compose's variables substituted, the override files
# merged) and say, per service, which secrets it gets and where it can connect.

#: Each compose variable that carries a secret, with a value to find again in the rendered configuration.
COMPOSE_SECRETS = {
    "POSTGRES_PASSWORD": "owner0pw0e1c2", "POSTGRES_WORKER_PASSWORD": "worker0pw0f3a4",
    "REDIS_API_PASSWORD": "redis0api0b5c6", "REDIS_WORKER_PASSWORD": "redis0wk0d7e8",
    "JUDGE_API_TOKENS": "lms:token0c9d0e1f2", "JUDGE_CALLBACK_SECRETS": "lms:callback0a1b2c3",
    "JUDGE_LEARN_CODES": "ml101:learncode0d4e5", "JUDGE_LTI_DIR": "/srv/judge-lti-keys0f6a7",
}
#: What only the API may hold (the workers' own passwords aside).
API_ONLY = ("POSTGRES_PASSWORD", "REDIS_API_PASSWORD", "JUDGE_API_TOKENS", "JUDGE_CALLBACK_SECRETS",
            "JUDGE_LEARN_CODES", "JUDGE_LTI_DIR")
#: Settings that name the API's secrets, or the owner's database login: never in a worker's environment.
API_SECRET_VARIABLES = {"JUDGE_API_TOKENS", "JUDGE_CALLBACK_SECRETS", "JUDGE_LTI_CONFIG", "JUDGE_LEARN_CODES",
                        "JUDGE_WORKER_DB_URL"}
#: Each Deployment's own Secret.
OWN_SECRET = {"judge-api": "judge-api-secrets", "judge-worker": "judge-worker-secrets"}

def _rendered(*files: Path, env: dict[str, str] | None = None) -> dict:
    return rendered(*files, env=dict(COMPOSE_SECRETS, JUDGE_PUBLIC_URL="https://judge.example.edu") if env is None
                    else env)


def _service_networks(service: dict) -> set[str]:
    return set(service.get("networks", ["default"]))  # a list, or a mapping by network name


def test_compose_gives_the_api_s_secrets_to_the_api_alone():
    services = _rendered(COMPOSE, COMPOSE_LTI)["services"]
    worker, api = services["worker"], services["api"]
    held = json.dumps(worker)
    for name in API_ONLY:
        secret = COMPOSE_SECRETS[name].split(":")[-1]
        assert secret not in held, f"the worker holds {name}"
        assert secret in json.dumps(api), f"the API lacks {name}"
    assert not set(worker["environment"]) & API_SECRET_VARIABLES, set(worker["environment"]) & API_SECRET_VARIABLES
    # Its own logins: the database role the API sets up for it, and Redis user judge-worker.
    db, broker = urlsplit(worker["environment"]["JUDGE_DB_URL"]), urlsplit(worker["environment"]["JUDGE_BROKER_URL"])
    owner = urlsplit(api["environment"]["JUDGE_DB_URL"])
    assert (db.username, db.password) == ("judge_worker", COMPOSE_SECRETS["POSTGRES_WORKER_PASSWORD"])
    assert owner.username == services["postgres"]["environment"]["POSTGRES_USER"] != db.username
    assert api["environment"]["JUDGE_WORKER_DB_URL"] == worker["environment"]["JUDGE_DB_URL"]
    assert (broker.username, broker.password) == ("judge-worker", COMPOSE_SECRETS["REDIS_WORKER_PASSWORD"])
    assert urlsplit(api["environment"]["JUDGE_BROKER_URL"]).username == "judge-api"
    # Nothing of the API's reaches a worker another way: no files, no shared namespaces.
    for key in ("volumes", "secrets", "configs", "volumes_from", "env_file", "network_mode", "pid", "ipc"):
        assert key not in worker, key
    assert any(v.endswith(":/etc/judge/lti:ro") for v in api["volumes"])
    assert api["environment"]["JUDGE_LTI_CONFIG"].startswith("/etc/judge/lti/")


def test_compose_workers_reach_postgres_and_redis_only():
    compose = _rendered(COMPOSE)
    services, networks = compose["services"], compose["networks"]
    assert _service_networks(services["worker"]) == {"work"}
    assert networks["work"].get("internal") is True  # no gateway: no route to the host, the API or out
    on_work = {name for name, service in services.items() if "work" in _service_networks(service)}
    assert on_work == {"worker", "postgres", "redis"}
    assert _service_networks(services["api"]) == {"edge", "store"} and networks["store"].get("internal") is True
    assert [name for name, service in services.items() if "ports" in service] == ["api"]


def test_compose_redis_has_a_user_per_role_and_nothing_without_one():
    rendered = _rendered(COMPOSE)
    acl = compose_acl(rendered)
    command = rendered["services"]["redis"]["command"]
    assert set(acl) == {"default", "judge-api", "judge-worker"}
    assert acl["default"] == ["on", "nopass", "resetchannels", "-@all", "+ping"]  # the healthcheck's PING only
    for password in ("REDIS_API_PASSWORD", "REDIS_WORKER_PASSWORD"):
        assert f">{COMPOSE_SECRETS[password]}" in command, password
    for user in ("judge-api", "judge-worker"):
        rules = acl[user]
        assert rules[:2] == ["on", ">PASSWORD"] and rules[-2:] == ["+@all", "-@dangerous"], (user, rules)
        assert "~*" not in rules and "&*" not in rules and "allkeys" not in rules, (user, rules)
    patterns = [r[1:] for r in acl["judge-worker"] if r.startswith("~")]
    for key in ("judge", "judge\x06\x163", "unacked", "unacked_index", "_kombu.binding.judge", "w@h.celery.pidbox"):
        assert any(redis_glob(p, key) for p in patterns), key
    for key in ("judge:sweeper", "another-app:session"):  # the API's lock; anyone else's keys
        assert not any(redis_glob(p, key) for p in patterns), key
    # The ACL given for a Redis of one's own (Kubernetes) is the same.
    example = acl_rules(REDIS_ACL_EXAMPLE.read_text())
    assert {u: example[u] for u in acl} == acl


def test_compose_renders_as_docker_compose_renders_it():
    """The renderer above against Compose itself (v1.29, CI installs it): the same environment, networks and
    volumes per service."""
    import shutil
    import subprocess

    from tests.support.common import unavailable

    if shutil.which("docker-compose") is None:
        unavailable("docker-compose is not installed, RENDERING CROSS-CHECK NOT RUN (.ci/docker.sh deploy installs it)")
    env = dict(COMPOSE_SECRETS, JUDGE_PUBLIC_URL="https://judge.example.edu")
    r = subprocess.run(["docker-compose", "-f", str(COMPOSE), "-f", str(COMPOSE_LTI), "config"], capture_output=True,
                       text=True, timeout=60, env={"PATH": "/usr/bin:/bin:/usr/local/bin", **env})
    assert r.returncode == 0, r.stderr
    theirs, ours = yaml.safe_load(r.stdout)["services"], _rendered(COMPOSE, COMPOSE_LTI, env=env)["services"]
    for name, service in ours.items():
        environment = {k: str(v) for k, v in theirs[name].get("environment", {}).items()}
        assert environment == service.get("environment", {}), name
        assert set(theirs[name].get("networks", {})) == _service_networks(service), name
        assert theirs[name].get("command") == service.get("command") or name != "redis", name
    assert any(v.endswith("/etc/judge/lti:ro") for v in theirs["api"]["volumes"]) and "volumes" not in theirs["worker"]


def _secrets_reachable(pod: dict) -> set[str]:
    """Every Secret a pod's containers read: envFrom, env valueFrom, secret and projected volumes."""
    names = set()
    for c in pod.get("initContainers", []) + pod["containers"]:
        names |= {ref["secretRef"]["name"] for ref in c.get("envFrom", []) if "secretRef" in ref}
        names |= {e["valueFrom"]["secretKeyRef"]["name"] for e in c.get("env", [])
                  if "secretKeyRef" in e.get("valueFrom", {})}
    for volume in pod.get("volumes", []):
        if "secret" in volume:
            names.add(volume["secret"]["secretName"])
        for source in volume.get("projected", {}).get("sources", []):
            if "secret" in source:
                names.add(source["secret"]["name"])
    return names


def test_kubernetes_gives_the_api_s_secrets_to_the_api_alone():
    pods = dict(_pod_specs())
    assert _secrets_reachable(pods["judge-worker"]) == {"judge-worker-secrets"}
    assert _secrets_reachable(pods["judge-api"]) == {"judge-api-secrets", "judge-lti"}
    worker = _one("Secret", "judge-worker-secrets")["stringData"]
    api = _one("Secret", "judge-api-secrets")["stringData"]
    assert set(worker) == {"JUDGE_DB_URL", "JUDGE_BROKER_URL"}
    assert {"JUDGE_API_TOKENS", "JUDGE_DB_URL", "JUDGE_WORKER_DB_URL", "JUDGE_BROKER_URL"} <= set(api)
    assert urlsplit(worker["JUDGE_DB_URL"]).username == "judge_worker" != urlsplit(api["JUDGE_DB_URL"]).username
    assert api["JUDGE_WORKER_DB_URL"] == worker["JUDGE_DB_URL"]
    assert urlsplit(worker["JUDGE_BROKER_URL"]).username == "judge-worker"
    assert urlsplit(api["JUDGE_BROKER_URL"]).username == "judge-api"
    # What both pods share holds no secret: no URL with a password, no variable naming one.
    config = _one("ConfigMap", "judge-config")["data"]
    assert not set(config) & (API_SECRET_VARIABLES | {"JUDGE_DB_URL", "JUDGE_BROKER_URL"}), set(config)
    assert not any("@" in str(v) for v in config.values())


def _policies() -> list[dict]:
    return [d for d in _objects() if d["kind"] == "NetworkPolicy"]


def _selects(policy: dict, pod_labels: dict) -> bool:
    wanted = policy["spec"]["podSelector"].get("matchLabels", {})
    assert not policy["spec"]["podSelector"].get("matchExpressions"), policy["metadata"]["name"]
    return all(pod_labels.get(k) == v for k, v in wanted.items())


def _peer(peer: dict) -> str:
    """A NetworkPolicy peer, named: redis, postgresql, dns, or what else it is."""
    pods = peer.get("podSelector", {}).get("matchLabels", {})
    namespaces = peer.get("namespaceSelector", {}).get("matchLabels")
    if namespaces is None and set(pods) == {"app.kubernetes.io/name"} and pods["app.kubernetes.io/name"] in (
            "redis", "postgresql"):
        return pods["app.kubernetes.io/name"]
    if namespaces == {"kubernetes.io/metadata.name": "kube-system"} and pods == {"k8s-app": "kube-dns"}:
        return "dns"
    return json.dumps(peer, sort_keys=True)


def test_network_policies_let_workers_reach_redis_and_postgres_only_and_the_api_alone_be_reached():
    pods = {d["metadata"]["name"]: d["spec"]["template"]["metadata"]["labels"] for d in _objects()
            if d["kind"] == "Deployment"}
    for name, labels in pods.items():  # every pod is isolated both ways by some policy
        types = {t for p in _policies() if _selects(p, labels) for t in p["spec"]["policyTypes"]}
        assert types == {"Ingress", "Egress"}, (name, types)
    worker_policies = [p for p in _policies() if _selects(p, pods["judge-worker"])]
    allowed_out = {(_peer(peer), port.get("protocol", "TCP"), port["port"])
                   for p in worker_policies for rule in p["spec"].get("egress", [])
                   for peer in rule.get("to", [{}]) for port in rule.get("ports", [{"port": "any"}])}
    assert allowed_out == {("redis", "TCP", 6379), ("postgresql", "TCP", 5432), ("dns", "UDP", 53),
                           ("dns", "TCP", 53)}, allowed_out
    assert all(not p["spec"].get("ingress") for p in worker_policies)  # nothing connects to a worker
    # The only ingress anywhere is the API's port.
    (container,) = _one("Deployment", "judge-api")["spec"]["template"]["spec"]["containers"]
    http = next(p for p in container["ports"] if p["name"] == "http")
    for policy in _policies():
        for rule in policy["spec"].get("ingress", []):
            assert _selects(policy, pods["judge-api"]) and not _selects(policy, pods["judge-worker"])
            assert [port["port"] for port in rule["ports"]] in (["http"], [http["containerPort"]]), rule
    # The API's way out: Redis, PostgreSQL, DNS and public addresses, not the metadata address or private ones.
    api_out = [peer for p in _policies() if _selects(p, pods["judge-api"]) for rule in p["spec"]["egress"]
               for peer in rule["to"]]
    blocks = [peer["ipBlock"] for peer in api_out if "ipBlock" in peer]
    import ipaddress

    for address in ("169.254.169.254", "10.0.0.1", "192.168.1.1", "172.16.0.1", "127.0.0.1", "fd00::1", "fe80::1"):
        ip = ipaddress.ip_address(address)
        assert not any(ip in ipaddress.ip_network(b["cidr"]) and not any(
            ip in ipaddress.ip_network(e) for e in b.get("except", [])) for b in blocks), address
    assert any(ipaddress.ip_address("93.184.216.34") in ipaddress.ip_network(b["cidr"]) for b in blocks)
