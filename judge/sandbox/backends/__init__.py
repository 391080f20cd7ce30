"""Backends: the judge's side of a sandbox, each one implementing ``SandboxBackend`` (boundary.contract).

``zygote_client`` drives a warm zygote (the process backend), ``container_client`` starts one container per
submission through a Docker engine and ``container_entry`` is what runs inside it, ``fake`` replays stored
runs for tests, and ``factory`` makes the backend a ``Judge`` is given for the mode the ladder chose.
"""
