"""docker-compose.yml's topology run as processes from the installed wheel (deploy/topology.py):
the migration and chain-init jobs, the API as two uvicorn processes behind one port, two worker
processes on one task queue, PostgreSQL, Redis, Temporal and the chain node of their own. The
two API processes share every piece of state that matters: an idempotent write replayed on the
other process gets the stored answer; rate-limit windows and token revocation are shared; a
cache eviction on one is seen by the other."""

from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psutil
import pytest
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from core.queues import MAIN_TASK_QUEUE
from deploy.topology import Topology, compose_command, compose_env_names

pytestmark = pytest.mark.slow


class Pinned:
    """A keep-alive connection to the API port known to be served by one API process."""

    def __init__(self, topo: Topology, pid: int) -> None:
        self.topo, self.pid = topo, pid
        self._connect()

    def _connect(self) -> None:
        topo, pid = self.topo, self.pid
        for _ in range(200):
            conn = http.client.HTTPConnection("127.0.0.1", topo.ports.api, timeout=30)
            conn.connect()
            port = conn.sock.getsockname()[1]
            if _server_pid(topo, port) == pid:
                self.conn = conn
                return
            conn.close()
        raise AssertionError(f"no connection reached API process {pid}")

    def _send(self, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
        """Send on the pinned process; uvicorn closes an idle keep-alive connection after 5 s,
        so a connection found closed is opened again to the same process (nothing was sent)."""
        try:
            self.conn.request(method, path, body=body, headers=headers)
        except (BrokenPipeError, ConnectionResetError):
            self.conn.close()
            self._connect()
            self.conn.request(method, path, body=body, headers=headers)
        try:
            return self.conn.getresponse()
        except http.client.RemoteDisconnected:
            self.conn.close()
            self._connect()
            self.conn.request(method, path, body=body, headers=headers)
            return self.conn.getresponse()

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], Any]:
        data = json.dumps(body).encode() if body is not None else None
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        resp = self._send(method, path, data, hdrs)
        raw = resp.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, parsed

    def call_form(self, path: str, form: dict[str, str]) -> tuple[int, Any]:
        from urllib.parse import urlencode

        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        resp = self._send("POST", path, urlencode(form), headers)
        return resp.status, resp.read().decode()


def _server_pid(topo: Topology, client_port: int) -> int | None:
    for pid in topo.api_processes():
        for c in psutil.Process(pid).net_connections(kind="tcp"):
            if c.raddr and c.raddr.port == client_port and c.laddr.port == topo.ports.api:
                return pid
    # uvicorn accepts in the worker that won the race; the socket may still be in its queue
    return None


@pytest.fixture(scope="module")
def pair(topology: Topology) -> tuple[Pinned, Pinned]:
    pids = topology.api_processes()
    assert len(pids) == 2, f"expected two uvicorn workers behind one port, found {pids}"
    return Pinned(topology, pids[0]), Pinned(topology, pids[1])


def _token(topology: Topology, user: str, scope: str, client: str | None = None) -> str:
    args = [str(topology.installed.mccgw), "token", "--user", user, "--scope", scope, "--json"]
    if client:
        args += ["--client", client]
    done = subprocess.run(args, env=topology.env, capture_output=True, text=True, cwd=topology.logs)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["access_token"])


def test_the_topology_is_composes(topology: Topology) -> None:
    """Its processes run compose's commands with compose's variables, from the wheel."""
    assert compose_env_names() <= set(topology.env)
    assert topology.api is not None and compose_env_names("api") <= set(topology.api.env)
    assert all(compose_env_names("worker") <= set(w.env) for w in topology.workers)
    assert topology.api is not None and topology.api.args[1:3] == compose_command("api")[1:3]
    assert [w.args[1:] for w in topology.workers] == [compose_command("worker")[1:]] * 2
    assert all(w.alive() for w in topology.workers)
    venv = str(topology.installed.venv)
    assert topology.api.args[0].startswith(venv)

    async def pollers() -> set[str]:
        client = await Client.connect(topology.env["TEMPORAL_ADDRESS"])
        found = await client.workflow_service.describe_task_queue(
            DescribeTaskQueueRequest(
                namespace="default",
                task_queue=TaskQueue(name=MAIN_TASK_QUEUE),
                task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
            )
        )
        return {p.identity for p in found.pollers}

    # (a chaos run before this may have left pollers of killed workers in the list a while)
    assert len(asyncio.run(pollers())) >= 2, "two worker processes poll the one task queue"


def test_an_idempotent_write_replayed_on_the_other_process_gets_the_stored_answer(
    pair: tuple[Pinned, Pinned], demo: dict[str, Any]
) -> None:
    a, b = pair
    project = demo["projects"][0]
    uid = demo["users"][0]["uid"]
    headers = {"X-Project-ID": str(project["project_id"]), "X-API-Key": project["api_secret"]}
    body = {"attribute_key": "level", "attribute_value": 3, "idempotency_key": uuid.uuid4().hex}
    first = a.call("POST", f"/v1/users/{uid}/attributes", body, headers)
    assert first[0] in (200, 201), first
    again = b.call("POST", f"/v1/users/{uid}/attributes", body, headers)
    assert again[0] == first[0] and again[2]["data"] == first[2]["data"], (first, again)
    changed = b.call("POST", f"/v1/users/{uid}/attributes", {**body, "attribute_value": 4}, headers)
    assert changed[0] == 409, changed  # the same key with another body: a conflict, not a write


def test_rate_limit_windows_are_shared(pair: tuple[Pinned, Pinned]) -> None:
    a, b = pair
    seen = []
    for who in (a, b, a, b):
        status, headers, _ = who.call("GET", "/v1/mcc/price")
        assert status == 200
        seen.append(int(headers["x-ratelimit-remaining"]))
    assert seen == [seen[0] - i for i in range(4)], seen


def test_a_token_revoked_on_one_process_is_refused_on_the_other(
    topology: Topology, pair: tuple[Pinned, Pinned], demo: dict[str, Any]
) -> None:
    a, b = pair
    project = demo["projects"][0]
    token = _token(topology, "alice", "profile", project["oauth_client_id"])
    bearer = {"Authorization": f"Bearer {token}"}
    assert b.call("GET", "/v1/users/me", headers=bearer)[0] == 200
    revoke = a.call_form(
        "/auth/oauth/revoke",
        {"token": token, "client_id": project["oauth_client_id"],
         "client_secret": project["oauth_client_secret"]},
    )  # fmt: skip
    assert revoke[0] == 200, revoke
    status, _, problem = b.call("GET", "/v1/users/me", headers=bearer)
    assert status == 401, (status, problem)


def test_a_cache_eviction_on_one_process_is_seen_by_the_other(
    topology: Topology, pair: tuple[Pinned, Pinned], demo: dict[str, Any]
) -> None:
    """The price view is cached per process; an administrator's price set on one process
    evicts it on the other (PostgreSQL NOTIFY), which answers the new price at once."""
    a, b = pair

    def price(on: Pinned) -> str:
        status, _, body = on.call("GET", "/v1/mcc/price")
        assert status == 200, body
        return str(body["data"]["attributes"]["price_usdc"])

    old = price(b)
    assert price(b) == old  # cached on b now
    bearer = {"Authorization": f"Bearer {_token(topology, 'admin', 'mcc:admin')}"}
    new = f"{float(old) * 1.5 + 0.123456:.6f}"
    body = {"price_usdc": new, "idempotency_key": uuid.uuid4().hex}
    set_ = a.call("POST", "/v1/mcc/price", body, bearer)
    assert set_[0] == 200, set_
    assert float(price(b)) == float(new), "b still answers its cached price"


DASHBOARD = Path(__file__).resolve().parents[2] / "deploy/grafana/dashboards/mccgw.json"


def dashboard_metrics() -> set[str]:
    """Every metric the provisioned dashboard queries (histograms by their base name)."""
    import re

    exprs = [t["expr"] for p in json.loads(DASHBOARD.read_text())["panels"] for t in p["targets"]]
    names = {m for e in exprs for m in re.findall(r"\bmccgw_[a-z_]+", e)}
    return {re.sub(r"_(bucket|sum|count)$", "", n) for n in names}


def _exported(text: str) -> set[str]:
    """Metric names in a Prometheus exposition (TYPE lines, and samples of any family)."""
    import re

    names = set(re.findall(r"^# TYPE (\S+) ", text, re.M))
    names |= {re.sub(r"_(bucket|sum|count|total|created)$", "", n)
              for n in re.findall(r"^([a-z_]+)[{ ]", text, re.M)}  # fmt: skip
    return names | {n + "_total" for n in names}


def test_every_metric_the_dashboard_queries_is_exported(
    topology: Topology, pair: tuple[Pinned, Pinned], demo: dict[str, Any]
) -> None:
    """The API (both processes summed) and each worker export every metric of the dashboard
    compose provisions, after a workflow was started through the API."""
    from bench.webhooks_mining import signed_activity

    a, _ = pair
    project = demo["projects"][0]
    headers = {"X-Project-ID": str(project["project_id"]), "X-API-Key": project["api_secret"]}
    body = signed_activity(demo["users"][0]["uid"], project["api_secret"], 1)
    submitted = a.call("POST", "/v1/mining/submit-activity", body, headers)
    assert submitted[0] == 202, submitted
    wanted = dashboard_metrics()
    assert len(wanted) >= 10
    # The route answers 202 first and starts its workflow just after (api.starts.start_soon):
    # the start's counter appears a moment later, on whichever process answered.
    api: set[str] = set()
    for _ in range(100):
        api = _exported(a.call("GET", "/metrics")[2])
        if "mccgw_workflow_starts_total" in api:
            break
        time.sleep(0.1)
    for port in topology.worker_metrics_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
            worker = _exported(resp.read().decode())
        missing = wanted - api - worker
        assert not missing, f"queried by the dashboard, exported by no one: {sorted(missing)}"
    assert {"mccgw_http_requests_total", "mccgw_workflow_starts_total"} <= api


def test_compose_provisions_prometheus_and_the_dashboard() -> None:
    """What `docker compose config` would check here, structurally: Prometheus scrapes the API
    and the workers' metrics port; Grafana mounts the provisioning and the dashboard."""
    import yaml  # type: ignore[import-untyped]

    root = DASHBOARD.parents[3]
    services = yaml.safe_load((root / "docker-compose.yml").read_text())["services"]
    prom = yaml.safe_load((root / "deploy/prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in prom["scrape_configs"]}
    assert jobs["mccgw-api"]["static_configs"][0]["targets"] == ["api:8000"]
    port = int(services["worker"]["environment"]["WORKER_METRICS_PORT"])
    assert jobs["mccgw-worker"]["dns_sd_configs"][0] == {"names": ["worker"], "type": "A",
                                                         "port": port}  # fmt: skip
    mounts = {v.split(":")[0]: v.split(":")[1] for v in services["grafana"]["volumes"]}
    assert mounts["./deploy/grafana/dashboards"] == "/var/lib/grafana/dashboards"
    provider = yaml.safe_load(
        (root / "deploy/grafana/provisioning/dashboards/mccgw.yml").read_text()
    )
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    assert "./deploy/prometheus.yml" in "".join(services["prometheus"]["volumes"])
    for name, service in services.items():  # every local file a service mounts exists
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./") and source not in ("./keys",):
                assert (root / source).exists(), (name, source)
    assert services["api"]["environment"]["PROMETHEUS_MULTIPROC_DIR"]


def test_compose_names_the_mints_and_its_connections_fit_postgres() -> None:
    """Production without MCC_MINT/MCD_MINT means the mainnet mints, which compose's validator
    lacks: compose asks for both. And what its processes may open at once fits PostgreSQL's
    max_connections, with the two worker replicas the topology runs."""
    import yaml

    root = DASHBOARD.parents[3]
    services = yaml.safe_load((root / "docker-compose.yml").read_text())["services"]
    app = services["migrate"]["environment"]
    assert app["MCC_MINT"].startswith("${MCC_MINT:?") and app["MCD_MINT"].startswith("${MCD_MINT:?")
    command = services["postgres"]["command"]
    max_connections = int(command[command.index("-c") + 1].split("=")[1])
    per_pool = int(app["DB_POOL_SIZE"]) + int(app["DB_POOL_OVERFLOW"])
    api = compose_command("api")
    api_processes = int(api[api.index("--workers") + 1])
    auth_pool = 4 + 4  # api/auth/wiring.py: the OAuth server's synchronous engine
    listen = 1  # db/notify.py: one LISTEN connection per process (tests/test_one_listen.py)
    temporal = services["temporal"]["environment"]
    temporal_pools = 4 * (int(temporal["SQL_MAX_CONNS"]) + int(temporal["SQL_VIS_MAX_CONNS"]))
    one_shots, reserved = 2, 3  # migrate, chain-init; superuser_reserved_connections
    demand = (
        api_processes * (per_pool + auth_pool + listen)
        + 2 * (per_pool + listen)
        + temporal_pools
        + one_shots
        + reserved
    )
    assert demand <= max_connections, (demand, max_connections)
