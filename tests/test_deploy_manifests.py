"""deploy/kubernetes/ and deploy/compose*.yaml, offline.

The built-in kinds are validated with kubernetes-validate (its schemas ship in the package) for Kubernetes
K8S_VERSION, strictly (an unknown field is an error); the KEDA ScaledObject against the openAPIV3Schema of KEDA's
own CRD (tests/data/keda-scaledobject-v2.20.2.json, copied from kedacore/keda with its source), made strict the same
way.  Then what the manifests promise: no container privileged or allowed to escalate, the workers' capabilities
within the Pod Security Standards' baseline and the same as compose.yaml's, the worker pod's memory and CPU
recomputed from the bundles' limits (problems/*/problem.yaml) and their result buffers, the KEDA trigger on the
queue the workers read.  compose.yaml's structure is checked at the YAML level (the real thing runs in
tests/test_deploy_compose.py).
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

from conftest import REPO

K8S_VERSION = "1.30.0"
KUBE = REPO / "deploy" / "kubernetes"
COMPOSE = REPO / "deploy" / "compose.yaml"
COMPOSE_FULL = REPO / "deploy" / "compose.full.yaml"
KEDA_SCHEMA = REPO / "tests" / "data" / "keda-scaledobject-v2.20.2.json"
#: The Pod Security Standards' baseline level: capabilities a container may add.
BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
                         "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
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


@pytest.mark.parametrize("name", sorted(n for n in (p.name for p in KUBE.glob("*.yaml")) if n not in
                                        ("kustomization.yaml", "keda-scaledobject.yaml")))
def test_builtin_kinds_are_valid_for_the_named_kubernetes_version(name):
    import kubernetes_validate

    for doc in _manifests()[name]:
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{name}: {doc['kind']} {doc['metadata']['name']}: {exc.message} at {list(exc.path)}")


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


def test_scaled_object_scales_the_workers_on_their_queue():
    (scaled,) = _manifests()["keda-scaledobject.yaml"]
    worker = _one("Deployment", "judge-worker")
    config = _one("ConfigMap", "judge-config")["data"]
    assert scaled["spec"]["scaleTargetRef"]["name"] == worker["metadata"]["name"]
    assert scaled["spec"].get("scaleTargetRef", {}).get("kind", "Deployment") == "Deployment"
    (trigger,) = scaled["spec"]["triggers"]
    meta = trigger["metadata"]
    assert trigger["type"] == "redis" and set(meta) <= REDIS_TRIGGER_KEYS, meta
    assert meta["listName"] == config["JUDGE_QUEUE"] == "judge"
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    concurrency = {e["name"]: e["value"] for e in container.get("env", [])}["JUDGE_WORKERS"]
    assert meta["listLength"] == concurrency
    broker = urlsplit(config["JUDGE_BROKER_URL"])
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
    secret = _one("Secret", "judge-secrets")
    assert set(config["data"]) <= known, set(config["data"]) - known
    assert set(secret["stringData"]) <= known, set(secret["stringData"]) - known
    for name, pod in _pod_specs():
        for c in pod["containers"]:
            refs = {(k, v["name"]) for ref in c.get("envFrom", []) for k, v in ref.items()}
            assert refs == {("configMapRef", "judge-config"), ("secretRef", "judge-secrets")}, (name, refs)
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
        f"worker.yaml: memory should be {base} + {concurrency} x ({memory_mib} + {result_mib} + {extra}) = {expected}Mi")
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
