"""Separate hosts on one machine: the scaled-out service (Redis, PostgreSQL, ``judge serve --broker``, ``judge
worker``) spread over Linux network namespaces joined by one bridge, for fault tests (a host killed, a host cut
off, the broker restarted, the database stopped).

Layout of one run (``rid`` = ``jh<pid>``, unique per run, so two runs never collide):

* namespace ``<rid>-sw`` holds the bridge ``br0`` (the "switch").  The bridge lives in its own namespace, not in
  the root one: Docker loads ``br_netfilter`` and sets the root namespace's FORWARD policy to DROP, which would
  drop bridged traffic there; a fresh namespace has no such rules.
* one namespace per host, ``<rid>-broker`` (redis-server), ``<rid>-db`` (PostgreSQL), ``<rid>-api`` (``judge
  serve --broker``), ``<rid>-w1``, ``<rid>-w2``, ... (``judge worker -c 1``) and ``<rid>-clients`` (for probes run
  with :meth:`Cluster.run_in`), each with ``lo`` up and an ``eth0`` (a veth whose peer is on the bridge) holding
  its own address on a private /24 (10.231.X.0/24, X chosen so that no route of this machine clashes).
* the test process itself stays in the root namespace and reaches the hosts over the bridge only: a veth
  ``<rid>h`` in the root namespace (address .1) whose peer is on the bridge.  :meth:`Cluster.client` talks to the
  API at its bridge address; :meth:`Cluster.store` reads PostgreSQL at the db host's bridge address.
* each host process runs in a private mount (and UTS) namespace whose ``/tmp`` is a per-host directory (bind
  mount), with its own copy of ``problems/`` (``JUDGE_PROBLEMS_DIR``) and its own ``HOME``.  Processes enter the
  host's network namespace with ``nsenter --net`` rather than ``ip netns exec``: the latter remounts ``/sys``,
  which hides ``/sys/fs/cgroup`` from the sandbox.
* Redis binds only the broker's address, PostgreSQL listens only on the db's address (trust for the bridge
  subnet), so the hosts reach each other only over those addresses.

Every process is started here and tracked by pid.  The learner sandbox starts children in their own namespaces,
so "all processes of a host" = its tracked pids + their descendants (``/proc/*/stat`` ppid) + ``ip netns pids``.
Clean-up goes by those pids and by this run's namespace names only, never by process name: :meth:`Cluster.close`
(context manager, the fixture's finalizer, and ``atexit``).
"""

from __future__ import annotations

import atexit
import ipaddress
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.support.common import REPO, unavailable
from tests.support.service import Process, _pg_bin, missing, service_env, wait_for
from tests.support.tiers import needs

TOKEN = "hosts-token-abcdef123456"
#: The checkout's path below /tmp when it is there (a CI clone), else None: each host binds it into its own /tmp.
_UNDER_TMP = Path(REPO).resolve().relative_to("/tmp") if Path(REPO).resolve().is_relative_to("/tmp") else None
REDIS_PORT, PG_PORT, API_PORT = 6379, 5432, 8000
#: Last octet of each host's address; workers are 20 + n.
FIXED_HOSTS = {"broker": 10, "db": 11, "api": 12, "clients": 13}
PREFIX = "jh"  # every namespace and root-namespace link of a run starts with jh<pid>


def _run(*args: str, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(list(args), capture_output=True, text=True, input=input, timeout=60, check=False)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result


@needs("hosts")
def require_hosts() -> None:
    """Skip loudly (or fail under CI=true) unless this machine can make the hosts: root, ip, nft, nsenter,
    unshare, setpriv, redis-server, PostgreSQL and a postgres user."""
    if os.geteuid() != 0:
        unavailable("NOT ROOT: NETWORK NAMESPACE HOSTS NOT MADE, TEST NOT RUN (run .ci/hosts-tier.sh as root)")
    for tool in ("ip", "nft", "nsenter", "unshare", "setpriv"):
        if shutil.which(tool) is None:
            unavailable(f"{tool} NOT AVAILABLE, NETWORK NAMESPACE HOSTS NOT MADE, TEST NOT RUN "
                        "(run .ci/hosts-tier.sh: iproute2, nftables, util-linux)")
    if shutil.which("redis-server") is None:
        missing("redis-server")
    if _pg_bin("initdb") is None or _pg_bin("postgres") is None:
        missing("PostgreSQL (initdb, postgres)")
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        missing("the postgres user")


def namespaces(prefix: str = PREFIX) -> list[str]:
    """Network namespaces whose names start with ``prefix``."""
    out = _run("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.split() and line.split()[0].startswith(prefix)]


def cluster_namespaces(c: Cluster) -> list[str]:
    """The namespaces of cluster ``c`` that exist."""
    mine = {c.switch, *(h.ns for h in c.hosts.values())}
    return [ns for ns in namespaces(c.rid + "-") if ns in mine]


def _processes() -> tuple[dict[int, list[int]], set[int]]:
    """Children by parent pid, and the live (not zombie) pids, from /proc/*/stat."""
    kids: dict[int, list[int]] = {}
    live: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        kids.setdefault(int(fields[1]), []).append(int(entry))
        if fields[0] not in ("Z", "X"):
            live.add(int(entry))
    return kids, live


def descendants(pids: set[int]) -> set[int]:
    """``pids`` and all their descendants, those alive (a zombie is dead: its parent has only to reap it)."""
    kids, live = _processes()
    found: set[int] = set()
    todo = list(pids)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo.extend(kids.get(pid, []))
    return found & live


def netns_pids(ns: str) -> set[int]:
    out = _run("ip", "netns", "pids", ns, check=False).stdout
    return {int(p) for p in out.split() if p.isdigit()}


def kill_all(roots: set[int], ns: str | None = None) -> None:
    """SIGKILL ``roots``, their descendants and (``ns``) every process in that network namespace.  Stops them all
    first, so that none forks away or is reparented between the walk and the kill."""
    killed: set[int] = set()
    for _ in range(20):
        victims = descendants(roots | (netns_pids(ns) if ns else set())) - {os.getpid()}
        if not victims:
            # the killed ones reparented away from the tree are gone too (or zombies: dead, to be reaped)
            gone = frozenset(killed)
            wait_for(lambda: not descendants(set(gone)), 10, 0.05, "the killed processes to be gone")  # noqa: B023
            return
        for pid in victims:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
        victims = descendants(victims | (netns_pids(ns) if ns else set())) - {os.getpid()}
        killed |= victims
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    raise RuntimeError(f"processes of namespace {ns} survive SIGKILL: {sorted(victims)}")


class HostProcess(Process):
    """A process inside a host: its network namespace, a private mount namespace with the host's /tmp."""

    def __init__(self, host: Host, name: str, args: list[str], env: dict, as_user: str | None = None) -> None:
        self.host, self.name = host, name
        become = ["setpriv", f"--reuid={as_user}", f"--regid={as_user}", "--init-groups", "--"] if as_user else []
        # The checkout may itself live under /tmp (a CI clone): bound into the host's /tmp at the same path first,
        # so that the code and PYTHONPATH stay where they were once the host's own /tmp hides the machine's.
        keep = ('mkdir -p "$0/$2" && mount --bind "/tmp/$2" "$0/$2" && ' if _UNDER_TMP is not None else "")
        wrapper = ["nsenter", f"--net=/run/netns/{host.ns}", "--", "unshare", "--mount", "--uts",
                   "--propagation", "private", "--", "sh", "-c",
                   keep + 'mount --rbind "$0" /tmp && hostname "$1" && shift 2 && exec "$@"', str(host.tmp),
                   host.name, str(_UNDER_TMP or "")]
        super().__init__(wrapper + become + args, env, host.root / f"{name}.log", host.root)

    def alive(self) -> bool:
        return self.proc.poll() is None


class Host:
    def __init__(self, cluster: Cluster, name: str, octet: int) -> None:
        self.cluster, self.name = cluster, name
        self.ns = f"{cluster.rid}-{name}"
        self.ip = str(cluster.net.network_address + octet)
        self.root = cluster.workdir / name
        self.tmp = self.root / "tmp"
        self.problems = self.root / "problems"
        self.tmp.mkdir(parents=True)
        self.tmp.chmod(0o1777)
        (self.root / "home").mkdir()
        shutil.copytree(REPO / "problems", self.problems, ignore=shutil.ignore_patterns("__pycache__"))
        self.procs: list[HostProcess] = []

    def pids(self) -> set[int]:
        """Every process of this host: tracked pids, their descendants, and the namespace's pids."""
        return descendants({p.pid for p in self.procs if p.alive()} | netns_pids(self.ns))

    def env(self, **extra: str) -> dict:
        return service_env(HOME=str(self.root / "home"), JUDGE_PROBLEMS_DIR=str(self.problems),
                           XDG_CACHE_HOME=str(self.root / "home" / ".cache"), **extra)


@needs("hosts")
class Cluster:
    """Hosts ``broker``, ``db``, ``api``, ``w1`` .. ``wN`` and ``clients`` on one bridge (see the module's docstring).

    ``worker_env``: extra environment for every worker (``JUDGE_VISIBILITY_TIMEOUT``, ``JUDGE_RESTORE_INTERVAL``);
    ``api_env``: extra environment for ``judge serve``."""

    _made = 0

    def __init__(self, workers: int = 2, worker_env: dict | None = None, api_env: dict | None = None,
                 concurrency: int = 1) -> None:
        require_hosts()
        Cluster._made += 1  # jh<pid>, then jh<pid>-2, ...: every namespace of this process starts with jh<pid>-
        self.rid = f"{PREFIX}{os.getpid()}" + (f"-{Cluster._made}" if Cluster._made > 1 else "")
        self.closed = False
        self.hosts: dict[str, Host] = {}
        self.workdir = Path(tempfile.mkdtemp(prefix=f"{self.rid}-", dir=_hosts_dir()))
        self.workdir.chmod(0o755)  # the db host's folder is PostgreSQL's (user postgres)
        self.worker_env = dict(worker_env or {})
        self.api_env = dict(api_env or {})
        self.concurrency = concurrency
        self.switch = f"{self.rid}-sw"
        self.root_link = f"{self.rid}h"
        atexit.register(self.close)
        try:
            self.net = self._free_subnet()
            self._network([*FIXED_HOSTS.items(), *((f"w{n}", 20 + n) for n in range(1, workers + 1))])
            self.redis: HostProcess | None = None
            self.postgres: HostProcess | None = None
            self.api: HostProcess | None = None
            self.workers: dict[str, HostProcess] = {}
            self.start_redis()
            self._init_postgres()
            self.start_postgres()
            self.db_url = f"postgresql+psycopg://postgres@{self['db'].ip}:{PG_PORT}/judge"
            self.broker_url = f"redis://{self['broker'].ip}:{REDIS_PORT}/0"
            self._create_database()
            self.start_api()
            for n in range(1, workers + 1):
                self.start_worker(f"w{n}", wait=False)
            for name in list(self.workers):
                self.wait_worker(name)
        except BaseException:
            self.close()
            raise

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the network ---------------------------------------------------------------------
    def _free_subnet(self) -> ipaddress.IPv4Network:
        """10.231.X.0/24 overlapping no route of this machine (other runs' links included)."""
        routes = [line.split()[0] for line in _run("ip", "-4", "route", "show", "table", "all").stdout.splitlines()
                  if line.split()]
        used = []
        for dest in routes:
            try:
                used.append(ipaddress.ip_network(dest, strict=False))
            except ValueError:
                continue  # default, broadcast, local ...
        start = os.getpid() % 200
        for i in range(250):
            net = ipaddress.ip_network(f"10.231.{(start + i) % 250 + 1}.0/24")
            if not any(net.overlaps(u) for u in used if u.prefixlen > 0):
                return net
        raise RuntimeError("no free 10.231.X.0/24 on this machine")

    def _network(self, hosts: list[tuple[str, int]]) -> None:
        sw = self.switch
        _run("ip", "netns", "add", sw)
        _run("ip", "-n", sw, "link", "add", "br0", "type", "bridge")
        _run("ip", "-n", sw, "link", "set", "br0", "up")
        _run("ip", "-n", sw, "link", "set", "lo", "up")
        # the root namespace's own port on the bridge: the test process reaches the hosts through it only
        _run("ip", "link", "add", self.root_link, "type", "veth", "peer", "name", "root", "netns", sw)
        _run("ip", "-n", sw, "link", "set", "root", "master", "br0", "up")
        _run("ip", "addr", "add", f"{self.net.network_address + 1}/24", "dev", self.root_link)
        _run("ip", "link", "set", self.root_link, "up")
        for name, octet in hosts:
            self.add_host(name, octet)

    def add_host(self, name: str, octet: int) -> Host:
        host = Host(self, name, octet)
        self.hosts[name] = host
        sw, ns = self.switch, host.ns
        _run("ip", "netns", "add", ns)
        _run("ip", "-n", sw, "link", "add", f"p-{name}", "type", "veth", "peer", "name", "eth0", "netns", ns)
        _run("ip", "-n", sw, "link", "set", f"p-{name}", "master", "br0", "up")
        _run("ip", "-n", ns, "link", "set", "lo", "up")
        _run("ip", "-n", ns, "addr", "add", f"{host.ip}/24", "dev", "eth0")
        _run("ip", "-n", ns, "link", "set", "eth0", "up")
        return host

    def run_in(self, host: str, args: list[str], timeout: float = 30) -> subprocess.CompletedProcess:
        """Run a short command in ``host``'s network namespace (a probe from ``clients``, ``w1``...)."""
        return subprocess.run(["ip", "netns", "exec", self[host].ns, *args], capture_output=True, text=True,
                              timeout=timeout, check=False)

    def can_connect(self, host: str, peer: str, port: int, timeout: float = 2) -> bool:
        """Whether a TCP connection from ``host`` to ``peer``:``port`` opens within ``timeout`` seconds."""
        code = ("import socket,sys\ntry:\n socket.create_connection((sys.argv[1], int(sys.argv[2])), "
                f"timeout={timeout}).close()\nexcept OSError:\n sys.exit(1)")
        return self.run_in(host, [sys.executable, "-c", code, self[peer].ip, str(port)],
                           timeout=timeout + 20).returncode == 0

    def cut(self, host: str, peers: list[str]) -> None:
        """Drop (not reject) every packet between ``host`` and ``peers``: nft rules inside ``host``'s namespace."""
        addrs = ", ".join(self[p].ip for p in peers)
        rules = (f"table inet jhcut {{\n"
                 f" chain out {{ type filter hook output priority 0; policy accept; ip daddr {{ {addrs} }} drop; }}\n"
                 f" chain in {{ type filter hook input priority 0; policy accept; ip saddr {{ {addrs} }} drop; }}\n"
                 f"}}\n")
        self.heal(host)
        _run("ip", "netns", "exec", self[host].ns, "nft", "-f", "-", input=rules)

    def heal(self, host: str) -> None:
        _run("ip", "netns", "exec", self[host].ns, "nft", "delete", "table", "inet", "jhcut", check=False)

    # -- the processes ---------------------------------------------------------------------
    def _start(self, host: str, name: str, args: list[str], env: dict | None = None,
               as_user: str | None = None) -> HostProcess:
        h = self[host]
        proc = HostProcess(h, f"{name}-{len(h.procs)}", args, env or h.env(), as_user)
        h.procs.append(proc)
        return proc

    def start_redis(self) -> None:
        h = self["broker"]
        (h.root / "data").mkdir(exist_ok=True)
        self.redis = self._start("broker", "redis", [
            shutil.which("redis-server"), "--bind", h.ip, "--port", str(REDIS_PORT), "--protected-mode", "no",
            "--save", "", "--appendonly", "no", "--dir", str(h.root / "data"), "--dbfilename", "dump.rdb"])

        def up() -> bool:
            if not self.redis.alive():
                raise AssertionError(f"redis-server exited:\n{self.redis.output()}")
            try:
                with socket.create_connection((h.ip, REDIS_PORT), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    return s.recv(16).startswith(b"+PONG")
            except OSError:
                return False
        wait_for(up, 20, 0.05, "redis-server on the broker host")

    def restart_redis(self, flush: bool) -> None:
        """Kill redis-server by pid and start it again at the same address and port.  ``flush``: the queue is
        lost (no persistence); otherwise it is saved (SAVE) just before the kill and loaded at start."""
        h = self["broker"]
        dump = h.root / "data" / "dump.rdb"
        if not flush:
            with socket.create_connection((h.ip, REDIS_PORT), timeout=5) as s:
                s.sendall(b"SAVE\r\n")
                assert s.recv(16).startswith(b"+OK")
        kill_all({self.redis.pid})
        self.redis.kill()
        if flush:
            dump.unlink(missing_ok=True)
        self.start_redis()

    def _init_postgres(self) -> None:
        h = self["db"]
        user = pwd.getpwnam("postgres")
        data = h.root / "pgdata"
        for path in (h.root, h.tmp):
            os.chown(path, user.pw_uid, user.pw_gid)
        subprocess.run(["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--",
                        _pg_bin("initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, cwd=h.root)
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {self.net} trust\n")

    def start_postgres(self) -> None:
        h = self["db"]
        self.postgres = self._start("db", "postgres", [
            _pg_bin("postgres"), "-D", str(h.root / "pgdata"), "-k", "/tmp", "-p", str(PG_PORT), "-h", h.ip,
            "-c", "fsync=off", "-c", "max_connections=200"], as_user="postgres")

        def up() -> bool:
            if not self.postgres.alive():
                raise AssertionError(f"postgres exited:\n{self.postgres.output()}")
            try:
                import psycopg

                psycopg.connect(f"host={h.ip} port={PG_PORT} user=postgres dbname=postgres", connect_timeout=1).close()
                return True
            except Exception:  # noqa: BLE001
                return False
        wait_for(up, 60, 0.1, "postgres on the db host")

    def stop_postgres(self) -> None:
        """Fast shutdown (SIGINT to the postmaster, what ``pg_ctl stop -m fast`` sends), by pid."""
        self.postgres.proc.send_signal(signal.SIGINT)
        self.postgres.proc.wait(timeout=60)
        self.postgres.stop()

    def _create_database(self) -> None:
        import psycopg

        with psycopg.connect(f"host={self['db'].ip} port={PG_PORT} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute("CREATE DATABASE judge")

    def start_api(self) -> None:
        h = self["api"]
        env = h.env(JUDGE_API_TOKENS=f"lms:{TOKEN}", **self.api_env)
        self.api = self._start("api", "api", [sys.executable, "-m", "judge.cli", "serve", "--host", h.ip, "--port",
                                              str(API_PORT), "--db", self.db_url, "--broker", self.broker_url,
                                              "--workers", "1"], env)
        self.api_url = f"http://{h.ip}:{API_PORT}"

        def ready() -> bool:
            if not self.api.alive():
                raise AssertionError(f"judge serve exited:\n{self.api.output()}")
            try:
                return httpx.get(self.api_url + "/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False
        wait_for(ready, 90, 0.2, "judge serve on the api host")

    def start_worker(self, name: str, env: dict | None = None, wait: bool = True) -> HostProcess:
        """(Re)start ``judge worker -c concurrency`` on worker host ``name``; ``env`` adds to ``worker_env``."""
        h = self[name]
        worker_env = h.env(**{**self.worker_env, **(env or {})})
        proc = self._start(name, "worker", [
            sys.executable, "-m", "judge.cli", "worker", "--broker", self.broker_url, "--db", self.db_url,
            "-c", str(self.concurrency), "-n", self.worker_name(name), "--log-level", "info"], worker_env)
        self.workers[name] = proc
        if wait:
            self.wait_worker(name)
        return proc

    def worker_name(self, host: str) -> str:
        """The Celery hostname of ``host``'s worker: what the store's ``worker`` column says."""
        return f"{host}@{self.rid}"

    def host_of(self, worker: str | None) -> str | None:
        return worker.split("@", 1)[0] if worker else None

    def wait_worker(self, name: str, timeout: float = 90) -> None:
        proc = self.workers[name]

        def ready() -> bool:
            if not proc.alive():
                raise AssertionError(f"judge worker on {name} exited:\n{proc.output()}")
            return " ready." in proc.output()
        wait_for(ready, timeout, 0.2, f"worker {name} to be ready")

    def worker_log(self, name: str) -> str:
        """Everything ``name``'s workers wrote, every start of them."""
        return "".join(p.output() for p in self[name].procs if p.name.startswith("worker"))

    def kill_host(self, name: str) -> None:
        """SIGKILL every process of host ``name`` (its tracked pids, their descendants, its namespace's pids)."""
        h = self[name]
        kill_all({p.pid for p in h.procs if p.alive()}, h.ns)
        for p in h.procs:
            if p.proc.poll() is None:
                p.proc.wait(timeout=10)
            p._log.close()

    # -- clients ----------------------------------------------------------------------------
    def client(self, token: str | None = TOKEN) -> httpx.Client:
        """An HTTP client to the API at its bridge address (from the root namespace, over the bridge)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.api_url, headers=headers, timeout=60)

    def store(self):
        """:class:`judge.service.store.Store` on the db host's PostgreSQL, over the bridge."""
        from judge.service.store import Store

        return Store(self.db_url)

    # -- clean-up ---------------------------------------------------------------------------
    def close(self) -> None:
        """Kill every process of every host (by pid and namespace), delete this run's namespaces and link, remove
        the per-host folders.  Idempotent."""
        if self.closed:
            return
        self.closed = True
        for h in reversed(list(self.hosts.values())):  # workers and the API before the servers they use
            try:
                self.heal(h.name)
                kill_all({p.pid for p in h.procs if p.alive()}, h.ns)
            except Exception as exc:  # noqa: BLE001 - go on cleaning
                print(f"hosts: killing {h.name}'s processes failed: {exc}", file=sys.stderr)
            for p in h.procs:
                try:
                    p.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
                p._log.close()
        keep = os.environ.get("JUDGE_HOSTS_KEEP_LOGS")
        if keep:  # copy the logs for a CI artifact
            for log in self.workdir.glob("*/*.log"):
                dest = Path(keep) / self.rid / log.parent.name
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copy(log, dest / log.name)
        for ns in [*(h.ns for h in self.hosts.values()), self.switch]:  # this cluster's only, by name
            if ns in cluster_namespaces(self):
                _run("ip", "netns", "del", ns, check=False)  # its veths and the bridge go with it
        if Path(f"/sys/class/net/{self.root_link}").exists():
            _run("ip", "link", "del", self.root_link, check=False)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def leftovers(self) -> list[str]:
        """What of this run is still there: namespaces, the root link, folders, live tracked processes."""
        left = [f"namespace {ns}" for ns in cluster_namespaces(self)]
        if Path(f"/sys/class/net/{self.root_link}").exists():
            left.append(f"link {self.root_link}")
        if self.workdir.exists():
            left.append(f"folder {self.workdir}")
        left += [f"process {p.pid} ({h.name} {p.name})" for h in self.hosts.values() for p in h.procs
                 if Path(f"/proc/{p.pid}").exists() and p.proc.poll() is None]
        return left


def cleanup_run(rid: str) -> None:
    """Remove what the test process ``rid`` (``jh<pid>``: every cluster it made) left: kill the processes in its
    namespaces (by ``ip netns pids`` and their descendants), delete the namespaces (their veths and bridge go with
    them), its root links and its per-host folders.  For .ci/hosts-tier.sh, after pytest."""
    for ns in namespaces(rid + "-"):
        try:
            kill_all(set(), ns)
        except Exception as exc:  # noqa: BLE001
            print(f"hosts: {exc}", file=sys.stderr)
        _run("ip", "netns", "del", ns, check=False)
    for link in os.listdir("/sys/class/net"):
        if link == f"{rid}h" or (link.startswith(f"{rid}-") and link.endswith("h")):
            _run("ip", "link", "del", link, check=False)
    for folder in Path(_hosts_dir()).glob(f"{rid}-*"):
        shutil.rmtree(folder, ignore_errors=True)


def _hosts_dir() -> str:
    """Where the per-host folders are made: not under /tmp, since each host's /tmp is a bind mount over it."""
    return os.environ.get("JUDGE_HOSTS_DIR", "/var/tmp")


if __name__ == "__main__":  # python3 tests/support/hosts.py cleanup jh1234: what .ci/hosts-tier.sh calls
    if len(sys.argv) == 3 and sys.argv[1] == "cleanup" and sys.argv[2].startswith(PREFIX):
        cleanup_run(sys.argv[2])
    else:
        sys.exit("usage: tests/support/hosts.py cleanup jh<pid>")
