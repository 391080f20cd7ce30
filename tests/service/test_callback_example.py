"""The README's callback example works as written: its lines, run by bash (ports moved to free ones), make the
example receiver print a verified callback with the verdict, and a callback with a forged signature is refused.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time

import httpx

from tests.support.common import REPO, require_sandbox, unavailable
from tests.support.service import free_port, service_env, wait_for
from tests.support.sources import SCRIPT
from tests.support.tiers import needs

README = REPO / "README.md"


def example_lines() -> list[str]:
    text = README.read_text()
    block = text.split("Tried on one machine")[1].split("\n\n", 1)[1].split("\n\n")[0]
    lines = [line[4:] for line in block.splitlines()]
    joined: list[str] = []
    for line in lines:  # the README's continuation lines
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line.strip()
        else:
            joined.append(line)
    return [line for line in joined if line and not line.startswith("#")]


@needs("service")
def example_tools() -> None:
    """The README's lines start `judge serve` (embedded: SQLite, no other server) and use jq, curl, openssl."""
    require_sandbox()
    for tool in ("jq", "curl", "openssl"):
        if shutil.which(tool) is None:
            unavailable(f"{tool} NOT INSTALLED (the README's example uses it), CALLBACK EXAMPLE NOT RUN")


def test_the_readme_callback_example_delivers_a_verified_callback(tmp_path):
    example_tools()
    lines = example_lines()
    assert any("deploy/callback_receiver.py" in line for line in lines) and any("judge serve" in line for line in lines)
    api, hook = free_port(), free_port()
    script = []
    for line in lines:
        line = line.replace("9000", str(hook)).replace("127.0.0.1:8000", f"127.0.0.1:{api}")
        line = line.replace("deploy/callback_receiver.py", str(REPO / "deploy" / "callback_receiver.py"))
        if line.startswith(("JUDGE_API_TOKENS", "judge serve")):
            line = line.replace("judge serve", f"judge serve --port {api} --db sqlite:///{tmp_path}/db.sqlite3")
        if line.endswith("&"):
            line += f" echo $! >> {tmp_path / 'pids'}"
        if line.startswith("curl"):
            script.append(f"for i in $(seq 300); do curl -sf http://127.0.0.1:{api}/healthz >/dev/null && break; "
                          "sleep 0.2; done")
        script.append(line)
    (tmp_path / "solution.py").write_text(SCRIPT.split("\nprint(")[0].replace("from judge import check\n", ""))
    env = service_env(PATH=f"{os.path.dirname(os.sys.executable)}:{os.environ['PATH']}", HOME=str(tmp_path))
    (tmp_path / "example.sh").write_text("set -e\n" + "\n".join(script) + "\n")
    receiver_log = tmp_path / "out.log"
    run = subprocess.Popen(["bash", str(tmp_path / "example.sh")], cwd=tmp_path, env=env,
                           stdout=receiver_log.open("w"), stderr=subprocess.STDOUT)
    pids: list[int] = []
    try:
        assert run.wait(timeout=180) == 0, receiver_log.read_text()
        pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
        wait_for(lambda: "verified callback" in receiver_log.read_text(), 120, 0.2, "the verified callback")
        line = next(x for x in receiver_log.read_text().splitlines() if x.startswith("verified callback"))
        assert re.search(r"submission \S+ done, verdict accepted score 1\.0$", line), line
        forged = httpx.post(f"http://127.0.0.1:{hook}/judge-hook", content=b'{"id": "x"}',
                            headers={"X-Judge-Signature": "sha256=" + "0" * 64})
        assert forged.status_code == 401
    finally:
        if not pids and (tmp_path / "pids").exists():
            pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
