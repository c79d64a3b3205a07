"""Chaos against the production topology (deploy/topology.py): a mixed load while processes are
killed in turn, then invariants once the load has drained.

Load (HTTP to the API port, as a project would call it; each request retried with the same
idempotency key on a connection error, 429 or 503, as the SDK does): transfers, fund locks and
unlocks, single and batch mining submissions, users' withdrawals to their own wallets (through
the project's app, some cancelled at once), deposits sent from an outside wallet straight to
the chain, and webhook deliveries to a receiver that is down a third of the time.

Faults (each killed process is started again after a short pause, as compose's
``restart: unless-stopped`` would): kill -9 of an API process (one of uvicorn's two), of a
worker process (also right after a chain write was recorded signed and before it was sent), of
the chain node and of the Temporal server; PostgreSQL restarted immediately (its crash
recovery); Redis killed and restarted.

Invariants, after the load drains:
1. every custody account's chain balance equals its ledger balance;
2. every accepted operation reached exactly one terminal state;
3. no chain write landed twice for one op key (every attempt's signature asked of the chain);
4. every hold is resolved, and once;
5. every event was delivered at least once, under its one event id;
6. no answer was a 500 (a 503 with Retry-After during an outage is fine);
7. each user's wallet holds exactly what their completed withdrawals sent it: at most one
   on-chain transfer per withdrawal, and none for one that did not complete.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import random
import secrets
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import psycopg
from aiohttp import web

from core.config import Settings
from core.embedded import EmbeddedRedis, free_port, start_temporal, wait_for_port
from deploy.topology import Topology
from tests.chaos.weather import RpcSampler, WeatherFigures, failed_attempts, phase_figures

FAULTS = ("api", "worker", "worker_mid_write", "chain", "temporal", "postgres", "redis")
TERMINAL = {
    "transfers": ("completed", "failed", "cancelled"),
    "locks": ("unlocked", "settled", "expired"),
    "mining": ("confirmed", "rejected", "failed"),
    "withdrawals": ("completed", "failed", "cancelled", "rejected"),
}
UNIT = 10**9
CHAOS_SCOPES = ["mining:write", "mining:read", "funds:manage", "funds:read", "funds:transfer",
                "transfer:write", "transfer:read"]  # fmt: skip


@dataclass
class Figures:
    started: float = field(default_factory=time.monotonic)
    requests: Counter[str] = field(default_factory=Counter)  # by kind
    answers: Counter[int] = field(default_factory=Counter)  # final status of each request
    retried: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    mid_write_kills: int = 0
    accepted: dict[str, list[str]] = field(
        default_factory=lambda: {"transfers": [], "locks": [], "mining": [], "withdrawals": []}
    )
    deposits: list[str] = field(default_factory=list)  # signatures sent from outside
    server_errors: list[str] = field(default_factory=list)
    checks: Counter[str] = field(default_factory=Counter)  # invariant -> items checked
    violations: list[str] = field(default_factory=list)
    events_received: dict[str, int] = field(default_factory=dict)
    paused_seconds: float = 0.0  # the load waited for the backlog to come down
    load_seconds: float = 0.0
    drain_seconds: float = 0.0
    drain_end: str = ""  # "done" or why it stopped waiting
    weather: WeatherFigures | None = None  # the phase's figures (tests/chaos/weather.py)

    def report(self) -> str:
        minutes = (time.monotonic() - self.started) / 60
        lines = [
            f"chaos: {minutes:.1f} min, {sum(self.requests.values())} requests "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.requests.items()))}), "
            f"{self.retried} retried",
            f"  load {self.load_seconds:.0f} s (paused {self.paused_seconds:.0f} s while the "
            f"backlog was full), drain {self.drain_seconds:.0f} s ({self.drain_end or '-'})",
            f"  answers: {dict(sorted(self.answers.items()))}",
            f"  accepted: {', '.join(f'{k} {len(v)}' for k, v in self.accepted.items())}, "
            f"deposits {len(self.deposits)}",
            f"  faults injected: {sum(self.faults.values())} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.faults.items()))}; "
            f"{self.mid_write_kills} worker kills with a write recorded and not yet sent)",
            f"  invariant checks: {sum(self.checks.values())} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.checks.items()))})",
            f"  webhook events received: {len(self.events_received)} distinct, "
            f"{sum(self.events_received.values())} deliveries",
            f"  violations: {len(self.violations)}; 500s: {len(self.server_errors)}"
            + ("; nothing lost" if not self.violations and not self.server_errors else ""),
        ]
        if self.weather is not None:
            lines.append(f"  {self.weather.line()}")
        lines += [f"  ! {v}" for v in (self.violations + self.server_errors)[:30]]
        return "\n".join(lines)


# -- the faults ---------------------------------------------------------------------------


class _Spawner:
    """One thread that lives as long as this process and runs every fault, restarts included.

    The services' processes are started with PR_SET_PDEATHSIG (core.embedded.die_with_parent),
    which the kernel ties to the starting *thread*: a process restarted from a thread that then
    ends is sent SIGTERM at once. (The first chaos runs lost every restarted worker, chain node
    and Temporal server that way when the fault thread finished.)"""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], None], Future[None]]] = queue.Queue()
        threading.Thread(target=self._run, name="chaos-spawner", daemon=True).start()

    def _run(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                job()
                done.set_result(None)
            except BaseException as exc:
                done.set_exception(exc)

    def call(self, job: Callable[[], None]) -> None:
        done: Future[None] = Future()
        self._jobs.put((job, done))
        done.result()


_SPAWNER: _Spawner | None = None


def spawner() -> _Spawner:
    global _SPAWNER
    if _SPAWNER is None:
        _SPAWNER = _Spawner()
    return _SPAWNER


async def set_weather(topo: Topology, profile: str) -> None:
    """The node restarted under ``profile`` from the spawner thread: started from
    ``asyncio.to_thread``'s pool, it got SIGTERM when ``asyncio.run`` ended the phase and shut
    the pool down (the next phase's preparation met a refused connection)."""
    await asyncio.to_thread(spawner().call, lambda: topo.set_weather(profile))


class Faults:
    """Kills (and restarts) the topology's processes, from the one long-lived spawner thread."""

    def __init__(self, topo: Topology, figures: Figures, pause: float = 1.0) -> None:
        self.topo = topo
        self.figures = figures
        self.pause = pause
        self._dsn = topo.env["DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")
        self.lock = threading.Lock()

    def inject(self, kind: str) -> None:
        with self.lock:
            spawner().call(getattr(self, f"_{kind}"))
            self.figures.faults[kind] += 1

    def _api(self) -> None:
        pids = self.topo.api_processes()
        os.kill(random.choice(pids), signal.SIGKILL)
        # uvicorn's supervisor starts a new worker process; if it does not, restart the API
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            time.sleep(0.5)
            if len(self.topo.api_processes()) == 2:
                return
        assert self.topo.api is not None
        self.topo.api.stop()
        self.topo.api.start()

    def _worker(self) -> None:
        worker = random.choice(self.topo.workers)
        worker.signal(signal.SIGKILL)
        assert worker.popen is not None
        worker.popen.wait()
        time.sleep(self.pause)
        worker.start()

    def _worker_mid_write(self) -> None:
        """Kill every worker the moment a chain write is recorded (signed) and not yet sent:
        whichever worker holds it dies between its record and its send."""
        deadline = time.monotonic() + 20
        caught = False
        with contextlib.suppress(psycopg.Error), psycopg.connect(self._dsn, autocommit=True) as c:
            while time.monotonic() < deadline:
                row = c.execute(
                    "SELECT 1 FROM chain_transactions WHERE status = 'signed' LIMIT 1"
                ).fetchone()
                if row is not None:
                    caught = True
                    break
                time.sleep(0.005)
        for worker in self.topo.workers:
            worker.signal(signal.SIGKILL)
        for worker in self.topo.workers:
            if worker.popen is not None:
                worker.popen.wait()
        self.figures.mid_write_kills += caught
        time.sleep(self.pause)
        for worker in self.topo.workers:
            worker.start()

    def _chain(self) -> None:
        node = self.topo.node
        assert node is not None
        node.signal(signal.SIGKILL)
        assert node.popen is not None
        node.popen.wait()
        time.sleep(self.pause)
        node.start()
        wait_for_port("127.0.0.1", self.topo.ports.rpc, 180, node.popen)

    def _temporal(self) -> None:
        temporal = self.topo.temporal
        assert temporal is not None and temporal.popen is not None
        temporal.signal(signal.SIGKILL)
        temporal.popen.wait()
        time.sleep(self.pause)
        popen = start_temporal(
            self.topo.state / "temporal.db", self.topo.ports.temporal, None,
            self.topo.logs / "temporal.log",
        )  # fmt: skip
        temporal.popen = popen
        temporal.starts += 1
        wait_for_port("127.0.0.1", self.topo.ports.temporal, 180, popen)

    def _postgres(self) -> None:
        """An immediate restart: every connection dropped, crash recovery at start."""
        from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

        server = self.topo.postgres._server  # type: ignore[union-attr]
        pg_ctl(["-w", "-m", "immediate", "restart"], pgdata=server.pgdata, user=server.system_user)

    def _redis(self) -> None:
        redis = self.topo.redis
        assert redis is not None
        redis._proc.kill()  # the AOF keeps what was written
        redis._proc.wait()
        time.sleep(self.pause)
        self.topo.redis = EmbeddedRedis(self.topo.state / "redis" / "dump.rdb")


# -- the load -----------------------------------------------------------------------------


@dataclass
class World:
    project_id: int
    secret: str
    senders: list[str]
    receivers: list[str]
    miners: list[str]
    depositors: list[str]
    # Each depositor's deposit address, as GET /v1/mcc/balance showed it to them.
    deposit_addresses: dict[str, str] = field(default_factory=dict)
    endpoint_id: str = ""
    # The senders' own wallets (their profiles' wallet_address) and their tokens of the
    # project's app with funds:withdraw (prepare_withdrawals).
    wallets: dict[str, str] = field(default_factory=dict)
    withdraw_tokens: dict[str, str] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Project-ID": str(self.project_id), "X-API-Key": self.secret}


def settings_of(topo: Topology) -> Settings:
    env = topo.env
    return Settings(
        _env_file=None,
        environment="production",
        database_url=env["DATABASE_URL"],
        redis_url=env["REDIS_URL"],
        secret_key=env["SECRET_KEY"],
        master_key=env["MASTER_KEY"],
        chain_keys_dir=Path(env["CHAIN_KEYS_DIR"]),
        solana_rpc_url=env["SOLANA_RPC_URL"],
        temporal_address=env["TEMPORAL_ADDRESS"],
        base_url=env["BASE_URL"],
        auth_url=env["AUTH_URL"],
        mcc_mint=env["MCC_MINT"],
        mcd_mint=env["MCD_MINT"],
    )


async def prepare(topo: Topology, users: int = 4) -> World:
    """A project with every write scope, consenting users, senders funded on chain; the
    depositors learn their deposit address as a user does (``register_depositors``)."""
    from activities.deps import worker_deps
    from bench._seed import bench_project, funded_on_chain

    tag = secrets.token_hex(3)
    senders = [f"u_cs_{i}_{tag}" for i in range(users)]
    receivers = [f"u_cr_{i}_{tag}" for i in range(users)]
    miners = [f"u_cm_{i}_{tag}" for i in range(users)]
    depositors = [f"u_cd_{i}_{tag}" for i in range(2)]
    settings = settings_of(topo)
    async with worker_deps(settings) as deps:
        await deps.gateway.warm_up()
        project = await bench_project(
            deps.sessions, settings, name=f"chaos-{tag}", scopes=CHAOS_SCOPES,
            users=senders + receivers + miners + depositors,
            consenting=senders + receivers + miners + depositors,
        )  # fmt: skip
        await funded_on_chain(deps, senders, 1_000 * UNIT, receivers)
    world = World(project.project_id, project.secret, senders, receivers, miners, depositors)
    await register_depositors(topo, world)
    prepare_withdrawals(topo, world)
    return world


async def register_depositors(topo: Topology, world: World) -> None:
    """Each depositor does what a user does before a deposit: signs in to the project's app
    (an access token with ``mcc:read``) and reads their MCC balance, which shows the deposit
    address and has the deposit watcher follow it from then on (api/routes/tokens.py); the
    watcher opens the account on chain, after which it can receive. (The first long run sent
    tokens to accounts no user had ever been shown: nothing watched them, docs/reliability.md.)"""
    from solana.rpc.async_api import AsyncClient
    from solders.pubkey import Pubkey

    tokens = user_tokens(topo, world, world.depositors, "mcc:read", "chaos wallet app")
    async with httpx.AsyncClient(base_url=topo.base_url, timeout=30) as http:
        for uid, token in tokens.items():
            r = await http.get("/v1/mcc/balance", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            world.deposit_addresses[uid] = r.json()["data"]["attributes"]["deposit_address"]
    deadline = time.monotonic() + 120
    async with AsyncClient(topo.env["SOLANA_RPC_URL"], timeout=10) as rpc:
        for address in world.deposit_addresses.values():
            while (await rpc.get_account_info(Pubkey.from_string(address))).value is None:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"deposit account {address} not opened by the watcher")
                await asyncio.sleep(0.5)


def user_tokens(
    topo: Topology, world: World, uids: list[str], scope: str, app_name: str
) -> dict[str, str]:
    """Each user signed in to an app of the project (a client of its own, allowed ``scope``):
    their access tokens, by uid."""
    import sqlalchemy
    from sqlalchemy.orm import Session

    from authserver.issue import issue_token
    from authserver.server import AuthServer
    from db.models.access import OAuthClient

    settings = settings_of(topo)
    client_id = f"cl_chaos_{secrets.token_hex(4)}"
    engine = sqlalchemy.create_engine(settings.database_url)
    try:
        with Session(engine) as s:
            s.add(
                OAuthClient(
                    client_id=client_id, project_id=world.project_id, name=app_name,
                    client_secret_hash=None, redirect_uris=["http://localhost/cb"],
                    allowed_scopes=[scope], grant_types=["authorization_code"],
                    access_token_format="jwt",
                )
            )  # fmt: skip
            s.commit()
        server = AuthServer(settings, engine)
        try:
            return {
                uid: str(issue_token(server, user=uid, scope=scope, client_id=client_id)[
                    "access_token"
                ])
                for uid in uids
            }  # fmt: skip
        finally:
            server.close()
    finally:
        engine.dispose()


def prepare_withdrawals(topo: Topology, world: World) -> None:
    """The senders withdraw too: each gets a wallet of their own in their profile (registered
    long ago: no cooling-off), consents to the project's app with ``funds:withdraw`` and signs
    in to it."""
    import sqlalchemy
    from solders.keypair import Keypair

    world.wallets = {uid: str(Keypair().pubkey()) for uid in world.senders}
    engine = sqlalchemy.create_engine(settings_of(topo).database_url)
    try:
        with engine.begin() as c:
            for uid, wallet in world.wallets.items():
                c.execute(
                    sqlalchemy.text("UPDATE users SET wallet_address = :w WHERE uid = :u"),
                    {"w": wallet, "u": uid},
                )
            c.execute(
                sqlalchemy.text(
                    "UPDATE oauth_consents SET scopes = array_append(scopes, 'funds:withdraw') "
                    "WHERE project_id = :p AND user_uid = ANY(:u)"
                ),
                {"p": world.project_id, "u": world.senders},
            )
    finally:
        engine.dispose()
    world.withdraw_tokens = user_tokens(
        topo, world, world.senders, "funds:withdraw", "chaos withdrawals app"
    )


class Receiver:
    """The project's webhook receiver: down (503) a third of the time."""

    def __init__(self, figures: Figures) -> None:
        self.figures = figures
        self.down = False
        self.port = free_port()
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/hook", self._hook)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def _hook(self, request: web.Request) -> web.Response:
        if self.down:
            return web.Response(status=503)
        body = await request.json()
        got = self.figures.events_received
        got[body["id"]] = got.get(body["id"], 0) + 1
        return web.Response(status=204)

    async def flap(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.down = random.random() < 1 / 3
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 7)
        self.down = False

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


class Load:
    def __init__(self, topo: Topology, world: World, figures: Figures, plan: Plan) -> None:
        self.topo = topo
        self.world = world
        self.figures = figures
        self.plan = plan
        self.http = httpx.AsyncClient(base_url=topo.base_url, timeout=30)
        self.locks: list[str] = []
        self._n = 0

    async def call(
        self,
        kind: str,
        method: str,
        path: str,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """One request (the project's credentials unless ``headers``), retried with the same
        body (idempotency key) while the service is unavailable; its final answer is counted."""
        self.figures.requests[kind] += 1
        deadline = time.monotonic() + 240
        delay = 0.2
        while True:
            try:
                r = await self.http.request(
                    method, path, json=body, headers=headers or self.world.headers
                )
            except httpx.TransportError:
                r = None
            if r is not None and r.status_code >= 500 and r.status_code != 503:
                self.figures.server_errors.append(f"{kind} {path}: {r.status_code} {r.text[:300]}")
            if r is not None and r.status_code == 503 and "retry-after" not in r.headers:
                self.figures.violations.append(f"{kind} {path}: 503 without Retry-After")
            if r is not None and r.status_code not in (429, 503):
                self.figures.answers[r.status_code] += 1
                return r
            if time.monotonic() > deadline:
                raise RuntimeError(f"{kind} {path}: no answer within 240 s")
            self.figures.retried += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 3.0)

    def _key(self) -> str:
        return uuid.uuid4().hex

    async def transfer(self) -> None:
        w = self.world
        i = random.randrange(len(w.senders))
        body = {
            "transfer_type": "chaos", "from_uid": w.senders[i], "to_uid": w.receivers[i],
            "currency": "MCC", "amount": "0.001", "reference": {"chaos": True},
            "idempotency_key": self._key(),
        }  # fmt: skip
        r = await self.call("transfer", "POST", "/v1/transfer/request", body)
        if r.status_code == 202:
            self.figures.accepted["transfers"].append(r.json()["data"]["id"])

    async def lock(self) -> None:
        w = self.world
        expires = datetime.now(UTC) + timedelta(seconds=random.uniform(*self.plan.lock_seconds))
        body = {
            "user_uid": random.choice(w.senders), "currency": "MCC", "amount": "0.002",
            "reason": "chaos", "expires_at": expires.isoformat(), "idempotency_key": self._key(),
        }  # fmt: skip
        r = await self.call("lock", "POST", "/v1/funds/lock", body)
        if r.status_code == 201:
            lock_id = r.json()["data"]["id"]
            self.figures.accepted["locks"].append(lock_id)
            self.locks.append(lock_id)

    async def unlock(self) -> None:
        if not self.locks:
            return
        lock_id = self.locks.pop(random.randrange(len(self.locks)))
        body = {"lock_id": lock_id, "reason": "chaos", "idempotency_key": self._key()}
        r = await self.call("unlock", "POST", "/v1/funds/unlock", body)
        if r.status_code not in (200, 409):
            self.figures.violations.append(f"unlock {lock_id}: {r.status_code} {r.text[:200]}")

    async def mine(self) -> None:
        from bench.webhooks_mining import signed_activity

        self._n += 1
        body = signed_activity(random.choice(self.world.miners), self.world.secret, self._n)
        r = await self.call("mining", "POST", "/v1/mining/submit-activity", body)
        if r.status_code == 202:
            self.figures.accepted["mining"].append(r.json()["data"]["id"])

    async def mine_batch(self) -> None:
        from bench.webhooks_mining import signed_activity

        items = []
        for _ in range(random.randint(2, 5)):
            self._n += 1
            items.append(
                signed_activity(random.choice(self.world.miners), self.world.secret, self._n)
            )
        body = {"activities": items, "idempotency_key": self._key()}
        r = await self.call("mining_batch", "POST", "/v1/mining/batch-submit", body)
        if r.status_code == 200:
            for item in r.json()["data"]:
                attrs = item.get("attributes") or {}
                if attrs.get("status") in (200, 201, 202) and attrs.get("activity"):
                    self.figures.accepted["mining"].append(attrs["activity"]["id"])

    async def withdraw(self) -> None:
        """A sender withdraws 1 MCC (the minimum) to their own wallet through the project's
        app; one in three is cancelled at once, racing its claim (either end is fine, never
        both)."""
        uid = random.choice(self.world.senders)
        headers = {"Authorization": f"Bearer {self.world.withdraw_tokens[uid]}"}
        body = {"currency": "MCC", "amount": "1", "idempotency_key": self._key()}
        r = await self.call("withdrawal", "POST", "/v1/withdrawals", body, headers)
        if r.status_code != 202:
            return
        withdrawal_id = r.json()["data"]["id"]
        self.figures.accepted["withdrawals"].append(withdrawal_id)
        if random.random() < 1 / 3:
            path = f"/v1/withdrawals/{withdrawal_id}/cancel"
            cancel = await self.call("withdrawal_cancel", "POST", path, {}, headers)
            if cancel.status_code not in (200, 409):
                self.figures.violations.append(f"cancel {withdrawal_id}: {cancel.status_code}")

    async def register_hook(self, receiver: Receiver) -> None:
        from db.models.events import EVENT_TYPES

        body = {
            "url": f"http://127.0.0.1:{receiver.port}/hook", "events": list(EVENT_TYPES),
            "idempotency_key": self._key(),
        }  # fmt: skip
        r = await self.call("webhook", "POST", "/v1/webhooks/register", body)
        assert r.status_code == 201, r.text
        self.world.endpoint_id = r.json()["data"]["id"]

    async def run(self, stop: asyncio.Event, plan: Plan, backlog: Backlog) -> None:
        """Requests at ``plan.rate`` a second, paced: none is started while the work accepted
        and not yet done (operations, webhook deliveries) exceeds the plan's caps, or while
        ``plan.in_flight`` requests still wait for an answer (an outage). The suite asks for
        invariants, not throughput: an open-loop load only grew a backlog the 2-core machine
        could not settle within the drain (docs/reliability.md)."""
        ops = [(self.transfer, 4), (self.lock, 2), (self.unlock, 1), (self.mine, 3),
               (self.mine_batch, 1), (self.withdraw, 1)]  # fmt: skip
        weighted = [op for op, weight in ops for _ in range(weight)]
        tasks: set[asyncio.Task[None]] = set()
        while not stop.is_set():
            if len(tasks) >= plan.in_flight or backlog.full(plan):
                self.figures.paused_seconds += 0.25
                await asyncio.sleep(0.25)
                continue
            task = asyncio.create_task(random.choice(weighted)())
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            await asyncio.sleep(random.expovariate(plan.rate))
        await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        await self.http.aclose()


class Depositor:
    """Tokens sent to custody accounts from a wallet outside the gateway, straight to the
    chain (the deposit watcher credits them)."""

    def __init__(self, topo: Topology, world: World, figures: Figures) -> None:
        self.topo, self.world, self.figures = topo, world, figures

    async def run(self, stop: asyncio.Event, every: float, limit: int = 0) -> None:
        from solana.rpc.async_api import AsyncClient
        from solders.keypair import Keypair
        from solders.pubkey import Pubkey

        from activities.deps import worker_deps
        from devchain.outside import OutsideWallet

        settings = settings_of(self.topo)
        async with (
            worker_deps(settings) as deps,
            AsyncClient(settings.solana_rpc_url, timeout=10) as client,
        ):
            wallet = OutsideWallet(Keypair(), client)
            await deps.gateway.warm_up()
            mint = deps.gateway.keys.mint_for("MCC")
            decimals = deps.gateway.token_decimals().mcc
            # A mint per wallet (the op_key was the mint's: every phase after the first got the
            # first phase's write back, its new wallet no token, and sent no deposit), retried
            # as an activity would be (the same op_key: one mint) rather than ending silently.
            for attempt in range(10):
                try:
                    await wallet.ensure_sol(deps.gateway)
                    await wallet.receive_minted(
                        deps.gateway, "MCC", 10_000 * UNIT, f"chaos-out:{wallet.address}"
                    )
                    break
                except Exception as exc:
                    print(f"chaos: the outside wallet's funding failed ({exc!r}), again",
                          flush=True)  # fmt: skip
                    if attempt == 9 or stop.is_set():
                        self.figures.violations.append(f"outside wallet not funded: {exc!r}")
                        return
            while not stop.is_set():
                uid = random.choice(self.world.depositors)
                dest = Pubkey.from_string(self.world.deposit_addresses[uid])
                self.figures.requests["deposit"] += 1
                for _ in range(60):
                    try:
                        sig = await wallet.send_tokens(mint, dest, UNIT // 100, decimals)
                    except Exception:
                        await asyncio.sleep(1)
                        continue
                    self.figures.deposits.append(sig)
                    break
                if limit and len(self.figures.deposits) >= limit:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), every)


# -- a run, and its invariants ------------------------------------------------------------


@dataclass
class Plan:
    seconds: float  # of load
    fault_every: float  # seconds between faults
    rate: float  # requests per second
    faults: tuple[str, ...] = FAULTS
    # The drain waits until nothing is left, or nothing moved for ``stall_seconds`` (stuck: a
    # violation), or ``drain_seconds`` passed.
    drain_seconds: float = 1800.0
    stall_seconds: float = 180.0
    min_each: int = 1  # the load goes on until every fault was injected this many times
    max_open: int = 40  # accepted operations not yet terminal, above which the load waits
    max_webhooks: int = 400  # webhook deliveries not yet succeeded, likewise
    in_flight: int = 24  # requests waiting for an answer, likewise
    lock_seconds: tuple[float, float] = (15.0, 40.0)  # a lock expires this long after it is made
    weather: str = "calm"  # the chain node's during the phase (tests/chaos/weather.py)
    transfers: int = 0  # the load goes on (after ``seconds``) until this many were accepted
    deposits: int = 0  # the depositor stops after sending this many (0: one every 5 s)


@dataclass
class Remaining:
    """What the run accepted and the system has not finished yet."""

    open: dict[str, int] = field(default_factory=dict)  # operations by kind
    deposits: int = 0  # sent, not credited
    webhooks: int = 0  # events of the project not yet delivered to the receiver
    holds: int = 0  # holds of the run's users still active

    @property
    def total(self) -> int:
        return sum(self.open.values()) + self.deposits + self.webhooks + self.holds

    def line(self) -> str:
        ops = ", ".join(f"{k} {v}" for k, v in self.open.items())
        return (f"{ops}, deposits {self.deposits}, webhooks {self.webhooks}, "
                f"active holds {self.holds}")  # fmt: skip


_TABLES = {
    "transfers": "transfers", "locks": "holds", "mining": "mining_activities",
    "withdrawals": "withdrawals",
}  # fmt: skip


def remaining(topo: Topology, world: World, figures: Figures) -> Remaining:
    users = world.senders + world.receivers + world.miners + world.depositors
    left = Remaining()
    with _sql(topo) as c:
        for kind, ids in figures.accepted.items():
            row = c.execute(
                f"SELECT count(*) FROM {_TABLES[kind]} WHERE id = ANY(%s) AND status <> ALL(%s)",
                (list(ids), list(_terminal(kind))),
            ).fetchone()
            left.open[kind] = int(row[0]) if row else 0
        row = c.execute(
            "SELECT count(*) FROM deposits WHERE signature = ANY(%s)", (list(figures.deposits),)
        ).fetchone()
        left.deposits = len(figures.deposits) - (int(row[0]) if row else 0)
        # Events of the project not yet delivered (a delivery row may not exist yet: the
        # fan-out from events to deliveries is the pump's).
        row = c.execute(
            "SELECT count(*) FROM events e WHERE e.project_id = %s AND NOT EXISTS (SELECT 1 "
            "FROM webhook_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = %s "
            "AND d.status = 'succeeded')",
            (world.project_id, world.endpoint_id),
        ).fetchone()
        left.webhooks = int(row[0]) if row else 0
        row = c.execute(
            "SELECT count(*) FROM holds WHERE user_uid = ANY(%s) AND status = 'active'", (users,)
        ).fetchone()
        left.holds = int(row[0]) if row else 0
    return left


class Backlog:
    """What is left, read every two seconds while the load runs (the last reading is kept
    through a database outage)."""

    def __init__(self, topo: Topology, world: World, figures: Figures) -> None:
        self.topo, self.world, self.figures = topo, world, figures
        self.last = Remaining()

    def full(self, plan: Plan) -> bool:
        return (
            sum(self.last.open.values()) > plan.max_open or self.last.webhooks > plan.max_webhooks
        )

    async def follow(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(psycopg.Error):
                self.last = await asyncio.to_thread(remaining, self.topo, self.world, self.figures)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2)


def run_faults(faults: Faults, plan: Plan, stop: threading.Event) -> None:
    """Inject the faults in turn until ``plan.seconds`` have passed and each was injected
    ``plan.min_each`` times (or ``stop`` is set)."""
    order = list(plan.faults)
    if not order:  # a phase of weather alone: load for plan.seconds
        stop.wait(plan.seconds)
        return
    i = 0
    counts = faults.figures.faults
    end = time.monotonic() + plan.seconds
    while not stop.wait(plan.fault_every):
        if time.monotonic() > end and min(counts.get(k, 0) for k in order) >= plan.min_each:
            return
        kind = order[i % len(order)]
        i += 1
        try:
            faults.inject(kind)
        except Exception as exc:
            faults.figures.violations.append(f"fault {kind} could not be injected: {exc!r}")
        print(f"chaos: {kind} injected at {time.monotonic() - faults.figures.started:.0f} s",
              flush=True)  # fmt: skip


async def chaos(topo: Topology, plan: Plan) -> Figures:
    figures = Figures()
    world = await prepare(topo)
    await set_weather(topo, plan.weather)
    since = datetime.now(UTC)
    sampler, sampling = RpcSampler(topo), asyncio.Event()
    sampled = asyncio.create_task(sampler.run(sampling))
    receiver = Receiver(figures)
    await receiver.start()
    load = Load(topo, world, figures, plan)
    await load.register_hook(receiver)
    faults = Faults(topo, figures)
    stop = asyncio.Event()
    stop_faults = threading.Event()
    fault_thread = threading.Thread(target=run_faults, args=(faults, plan, stop_faults))
    flap = asyncio.create_task(receiver.flap(stop))
    deposits = asyncio.create_task(Depositor(topo, world, figures).run(stop, 5.0, plan.deposits))
    backlog = Backlog(topo, world, figures)
    following = asyncio.create_task(backlog.follow(stop))
    fault_thread.start()
    load_started = time.monotonic()
    try:
        runner = asyncio.create_task(load.run(stop, plan, backlog))
        while fault_thread.is_alive() or len(figures.accepted["transfers"]) < plan.transfers:
            await asyncio.sleep(5)
            print(f"chaos: load at {time.monotonic() - figures.started:.0f} s: "
                  f"{sum(figures.requests.values())} requests; left {backlog.last.line()}",
                  flush=True)  # fmt: skip
    finally:
        stop_faults.set()
        await asyncio.to_thread(fault_thread.join)
        stop.set()
    # A deposit in flight when the load stops gets 30 s (its send may be dropped and re-sent);
    # one still unconfirmed then is left out of the figures (if it lands, it is credited).
    await asyncio.wait({deposits}, timeout=30)
    deposits.cancel()
    await asyncio.gather(runner, flap, deposits, following, return_exceptions=True)
    figures.load_seconds = time.monotonic() - load_started
    for lock_id in list(load.locks):  # unlock what is left, or let it expire
        if random.random() < 0.5:
            load.locks.remove(lock_id)
            body = {"lock_id": lock_id, "reason": "drain", "idempotency_key": uuid.uuid4().hex}
            await load.call("unlock", "POST", "/v1/funds/unlock", body)
    try:
        await asyncio.to_thread(topo.wait_ready, 120)
    except TimeoutError as exc:
        figures.violations.append(f"not ready after the faults stopped: {exc}")
        print(figures.report(), flush=True)
        raise
    await drain(topo, world, figures, plan)
    sampling.set()
    await sampled
    figures.weather = WeatherFigures(plan.weather, float(topo.env.get("SOLANA_RPC_RPS", 200)))
    sampler.fill(figures.weather)
    await asyncio.to_thread(phase_figures, topo, figures.weather, since)
    await asyncio.to_thread(failed_attempts, topo, figures.weather, since)
    # The invariants read the chain's state, which no weather changes, with the harness's own
    # client: no door, so a rate-limited node's 429 ended the check of that phase (2026-11-29).
    await set_weather(topo, "calm")
    await check(topo, world, figures)
    await receiver.stop()
    await load.close()
    return figures


def _sql(topo: Topology) -> psycopg.Connection[Any]:
    dsn = topo.env["DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")
    return psycopg.connect(dsn, autocommit=True)


async def drain(topo: Topology, world: World, figures: Figures, plan: Plan) -> None:
    """Wait until everything accepted is done, printing what is left every 10 s; stop waiting
    when nothing moved for ``plan.stall_seconds`` (stuck) or after ``plan.drain_seconds``."""
    started = time.monotonic()
    best, best_at, printed = None, started, 0.0
    while True:
        try:
            left = await asyncio.to_thread(remaining, topo, world, figures)
        except psycopg.Error as exc:
            print(f"chaos: drain: {exc!r}", flush=True)
            await asyncio.sleep(2)
            continue
        now = time.monotonic()
        if best is None or left.total < best:
            best, best_at = left.total, now
        if now - printed >= 10 or not left.total:
            print(f"chaos: drain at {now - started:.0f} s: left {left.line()}", flush=True)
            printed = now
        if not left.total:
            figures.drain_end = "done"
            break
        if now - best_at > plan.stall_seconds:
            figures.drain_end = f"stuck: nothing finished for {plan.stall_seconds:.0f} s"
            break
        if now - started > plan.drain_seconds:
            figures.drain_end = f"still moving after {plan.drain_seconds:.0f} s"
            break
        await asyncio.sleep(2)
    figures.drain_seconds = time.monotonic() - started
    for kind, n in left.open.items():
        if n:
            figures.violations.append(f"{n} accepted {kind} not terminal after the drain")
    if left.deposits:
        figures.violations.append(f"{left.deposits} deposits not credited")


async def check(topo: Topology, world: World, figures: Figures) -> None:
    """The invariants, once the drain is over."""
    users = world.senders + world.receivers + world.miners + world.depositors
    for ids in figures.accepted.values():
        figures.checks["terminal"] += len(ids)
    figures.checks["deposits credited"] += len(figures.deposits)
    with _sql(topo) as c:
        # 2b. exactly one terminal state: a transfer's history holds one terminal entry
        twice = c.execute(
            "SELECT transfer_id, count(*) FROM transfer_states WHERE transfer_id = ANY(%s) "
            "AND status = ANY(%s) GROUP BY transfer_id HAVING count(*) > 1",
            (figures.accepted["transfers"], list(TERMINAL["transfers"])),
        ).fetchall()
        for tid, n in twice:
            figures.violations.append(f"transfer {tid} reached a terminal state {n} times")
        # 4. holds of this run's users: none active, each resolved by one entry
        holds = c.execute(
            "SELECT h.id, h.status, (SELECT count(*) FROM ledger_entries e WHERE e.hold_id = h.id "
            "AND e.d_held < 0) FROM holds h WHERE h.user_uid = ANY(%s)",
            (users,),
        ).fetchall()
        for hold_id, status, resolutions in holds:
            figures.checks["holds"] += 1
            if status == "active":
                figures.violations.append(f"hold {hold_id} still active")
            elif resolutions != 1:
                figures.violations.append(f"hold {hold_id} resolved {resolutions} times")
        # 5. every event of the project delivered at least once under its id
        events = [
            r[0]
            for r in c.execute(
                "SELECT id FROM events WHERE project_id = %s", (world.project_id,)
            ).fetchall()
        ]
        attempts = c.execute(
            "SELECT c.op_key, a.signature FROM chain_tx_attempts a "
            "JOIN chain_transactions c ON c.id = a.chain_tx_id"
        ).fetchall()
        ledger = dict(
            ((uid, cur), bal)
            for uid, cur, bal in c.execute(
                "SELECT user_uid, currency, balance FROM ledger_accounts WHERE user_uid = ANY(%s)",
                (users,),
            ).fetchall()
        )
    for event_id in events:
        figures.checks["events"] += 1
        if event_id not in figures.events_received:
            figures.violations.append(f"event {event_id} never delivered")
    await _chain_checks(topo, figures, attempts, ledger)
    await check_withdrawals(topo, world, figures)


def _terminal(kind: str) -> tuple[str, ...]:
    if kind == "locks":  # a lock is a hold: active -> posted, voided or expired
        return ("posted", "voided", "expired")
    return TERMINAL[kind]


async def _chain_checks(
    topo: Topology,
    figures: Figures,
    attempts: list[tuple[str, str]],
    ledger: dict[tuple[str, str], int],
) -> None:
    from solana.rpc.async_api import AsyncClient
    from solders.pubkey import Pubkey
    from solders.signature import Signature

    from chain.keys import load_or_create_keys
    from tokens.deposits import deposit_address

    keys = load_or_create_keys(topo.keys_dir)
    async with AsyncClient(topo.env["SOLANA_RPC_URL"], timeout=30) as client:
        for currency in ("MCC", "MCD"):  # a deposit address depends on the mint's program
            mint = (await client.get_account_info(keys.mint_for(currency))).value
            assert mint is not None, f"no {currency} mint on the chaos chain"
            keys.programs[currency] = mint.owner
        # 3. no op key landed twice
        landed: Counter[str] = Counter()
        for i in range(0, len(attempts), 200):
            chunk = attempts[i : i + 200]
            found = await client.get_signature_statuses(
                [Signature.from_string(s) for _, s in chunk], search_transaction_history=True
            )
            for (op_key, _), status in zip(chunk, found.value, strict=True):
                figures.checks["chain writes"] += 1
                if status is not None:
                    landed[op_key] += 1
        for op_key, n in landed.items():
            if n > 1:
                figures.violations.append(f"chain write {op_key} landed {n} times")
        # 1. custody balance on chain == ledger
        for (uid, currency), balance in sorted(ledger.items()):
            figures.checks["custody = ledger"] += 1
            address = Pubkey.from_string(deposit_address(keys, uid, currency)[0])
            resp = await client.get_token_account_balance(address)
            on_chain = int(resp.value.amount)
            if on_chain != balance:
                figures.violations.append(f"{uid} {currency}: chain {on_chain} != ledger {balance}")


async def check_withdrawals(topo: Topology, world: World, figures: Figures) -> None:
    """Each withdrawal's history holds one terminal state, and each sender's wallet holds on
    chain exactly what their completed withdrawals sent it (ledger = chain on the way out: no
    second transfer for one withdrawal, none for one that did not complete)."""
    from solana.rpc.async_api import AsyncClient
    from solders.pubkey import Pubkey

    from chain.custody import wallet_token_account
    from chain.keys import load_or_create_keys

    ids = figures.accepted["withdrawals"]
    with _sql(topo) as c:
        twice = c.execute(
            "SELECT withdrawal_id, count(*) FROM withdrawal_states WHERE withdrawal_id = ANY(%s) "
            "AND status = ANY(%s) GROUP BY withdrawal_id HAVING count(*) <> 1",
            (ids, list(TERMINAL["withdrawals"])),
        ).fetchall()
        sent = dict(
            c.execute(
                "SELECT wallet_address, sum(amount) FROM withdrawals WHERE user_uid = ANY(%s) "
                "AND status = 'completed' GROUP BY wallet_address",
                (world.senders,),
            ).fetchall()
        )
        ended = dict(
            c.execute(
                "SELECT status, count(*) FROM withdrawals WHERE id = ANY(%s) GROUP BY status",
                (ids,),
            ).fetchall()
        )
    figures.checks["withdrawals: one terminal state"] += len(ids)
    for withdrawal_id, n in twice:
        figures.violations.append(f"withdrawal {withdrawal_id} reached {n} terminal states")
    keys = load_or_create_keys(topo.keys_dir)
    keys.mints["MCC"] = Pubkey.from_string(topo.env["MCC_MINT"])
    async with AsyncClient(topo.env["SOLANA_RPC_URL"], timeout=30) as client:
        for uid, wallet in sorted(world.wallets.items()):
            figures.checks["wallet = completed withdrawals"] += 1
            account = wallet_token_account(keys, Pubkey.from_string(wallet), "MCC")
            found = (await client.get_account_info(account)).value
            on_chain = 0
            if found is not None:
                on_chain = int((await client.get_token_account_balance(account)).value.amount)
            if on_chain != int(sent.get(wallet, 0)):
                figures.violations.append(
                    f"{uid}'s wallet holds {on_chain}, its completed withdrawals sent "
                    f"{sent.get(wallet, 0)}"
                )
    print(f"chaos: withdrawals by outcome {dict(sorted(ended.items()))}", flush=True)
