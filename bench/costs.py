"""What each operation costs, counted part by part, beside a bare PingWorkflow (issue 43).

The whole stack runs as in production, each part in a process of its own: the API (uvicorn,
one worker), the real worker (``python -m worker --no-schedules``: its webhook pump runs, its
schedules do not, so nothing runs that the bench did not ask for), a Temporal dev server,
PostgreSQL with ``pg_stat_statements`` (bench/_pg.py), Redis, and the chain node (20 ms slots)
behind a proxy that counts JSON-RPC calls by method (bench/_counters.py). This process only
drives.

Each operation runs ``n`` times, one at a time (nothing batches with anything else, so the
counts are the operation's own and do not move with the machine's load), and is counted over
its window:

- Temporal: history events, workflow tasks and activity executions (local ones included), from
  the histories of the operation's workflows;
- PostgreSQL: statements (BEGIN and COMMIT included) and transactions;
- Redis: commands; the chain: RPC calls by method;
- CPU ms by process (API, worker, Temporal, PostgreSQL, Redis, node), less what each process
  used idle for as long (the idle rates are measured first, over ``--idle`` seconds).

Operations: ``ping`` (the reference), ``floor`` (what a transfer needs beyond a Ping at the
least: one database transaction and one chain write, by this process's leanest clients;
``Floor``), ``transfer`` (request -> completed), ``single`` (one
``submit-activity`` -> confirmed), ``batch item`` (``batch-submit`` of 100 -> confirmed, per
item), ``lock+unlock`` (a fund lock, its unlock, its workflow ended), ``deposit`` (an outside
wallet's deposit -> credited, the ``funds.deposited`` webhook received; the deposit watcher's
own following of the chain over the same time is measured alone first and subtracted), and
``read`` (an authenticated ``GET /v1/mcc/balance``), and ``transfer accept`` (the API's part of a
transfer: ``POST /v1/transfer/request`` answered; with reads, ``FLIGHT`` in flight, so the API's
CPU per call is as under load; the settlements of the accepted transfers run alongside, in the
other parts' figures of that window), and ``accept floor`` (the least any accept of a write
costs the API, made the same way: ``POST /bench/accept-floor`` checks the project's
credentials as a transfer's, reads the body, writes one row in one transaction and starts a
Ping; ``bench._load._accept_floor``), and its parts: ``accept floor credentials`` (the
credentials and the body alone) and ``accept floor row`` (with the row's transaction, without
the start).

    .venv/bin/python -m bench.costs [--n 20] [--reads 300] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop
from aiohttp import web
from sqlalchemy import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _load as load
from bench import latency
from bench._counters import HistoryCounts, RedisCounter, RpcCounter, histories, serve
from bench._pg import SqlCounter, as_api, counting_postgres
from bench._procs import cpu_between, cpu_sample
from bench._report import record
from bench._seed import BenchProject, bench_project, funded_on_chain
from bench._worker import temporal, worker
from core.config import Settings
from core.embedded import free_port
from core.workflow_ids import MINING_BATCH_PREFIX, MINING_PREFIX, request_workflow_id
from tests.services import migrated_database, redis_server

UNIT = 10**9
SLOT_MS = 20
FLIGHT = 8  # reads and accepts in flight (the API's CPU per call as under load)
PARTS = ("API", "worker", "Temporal", "PostgreSQL", "Redis", "node")
# The counts of one operation, in the order the summary prints them.
COUNTS = (
    "history events", "workflow tasks", "activities", "sql statements", "sql transactions",
    "sql statements API",
    "redis commands", "rpc calls",
)  # fmt: skip


@dataclass
class Cost:
    """One operation's figures, per operation."""

    n: int
    seconds: float
    counts: dict[str, float | None]  # COUNTS
    rpc: dict[str, float]  # calls by method
    cpu_ms: dict[str, float]  # by part, idle subtracted
    sql: dict[str, float]  # statements by text (the largest), for the docs' breakdown
    redis: dict[str, float]  # commands by name


def per_op(
    n: int,
    seconds: float,
    history: HistoryCounts | None,
    sql: Any,
    redis: dict[str, int],
    rpc: dict[str, int],
    cpu: dict[str, float],
    idle: dict[str, float],
    background: dict[str, float] | None = None,
    parts: tuple[str, ...] = PARTS,
) -> Cost:
    """The window's totals divided by ``n``; ``idle``: CPU seconds per second of each part
    when nothing runs; ``background``: calls per second of what runs regardless (the deposit
    watcher following the chain), subtracted from the RPC, SQL and Redis counts; ``parts``:
    the processes whose CPU is counted."""
    bg = background or {}

    def less(name: str, total: float) -> float:
        return max(0.0, total - bg.get(name, 0.0) * seconds) / n

    counts: dict[str, float | None] = {
        "history events": history.events / n if history else 0.0,
        "workflow tasks": history.workflow_tasks / n if history else 0.0,
        "activities": history.activities / n if history else 0.0,
        "sql statements": less("sql statements", sql.statements) if sql else None,
        "sql transactions": less("sql transactions", sql.transactions) if sql else None,
        "sql statements API": sql.api_statements / n if sql else None,
        "redis commands": less("redis commands", sum(redis.values())),
        "rpc calls": less("rpc calls", sum(rpc.values())),
    }
    top = sorted(sql.by_query.items(), key=lambda kv: -kv[1])[:40] if sql else []
    return Cost(
        n=n,
        seconds=seconds,
        counts=counts,
        rpc={m: less(f"rpc {m}", c) for m, c in sorted(rpc.items())},
        cpu_ms={p: max(0.0, cpu.get(p, 0.0) - idle.get(p, 0.0) * seconds) * 1000 / n
                for p in parts},
        sql={q[:300]: c / n for q, c in top},
        redis={k: v / n for k, v in sorted(redis.items())},
    )  # fmt: skip


def background_rates(
    sql: Any, redis: dict[str, int], rpc: dict[str, int], seconds: float
) -> dict[str, float]:
    """Calls per second of what runs with no operation going on."""
    rates = {f"rpc {m}": c / seconds for m, c in rpc.items()}
    rates["rpc calls"] = sum(rpc.values()) / seconds
    rates["redis commands"] = sum(redis.values()) / seconds
    if sql:
        rates["sql statements"] = sql.statements / seconds
        rates["sql transactions"] = sql.transactions / seconds
    return rates


class Bench:
    def __init__(self, args: argparse.Namespace, settings: Settings, client: Any) -> None:
        self.args, self.settings, self.client = args, settings, client
        self.rpc = RpcCounter()
        self.sql: SqlCounter
        self.redis = RedisCounter(settings.redis_url)
        self.pids: dict[str, int | None] = {}
        self.idle: dict[str, float] = {}

    def cpu(self) -> Any:
        db = str(make_url(self.settings.database_url).database)
        return cpu_sample(self.pids["worker"], self.pids["node"], db, api_pid=self.pids["api"])

    def _spy(self, name: str) -> list[subprocess.Popen[bytes]]:
        """py-spy on the API and the worker for this window (raw collapsed stacks)."""
        self.args.profile.mkdir(parents=True, exist_ok=True)
        slug = name.replace(" ", "_").replace("+", "_")
        spies = []
        for part in ("api", "worker"):
            out = self.args.profile / f"{slug}.{part}.txt"
            cmd = [load.ensure_py_spy(), "record", "-p", str(self.pids[part]), "-r", "200"]
            cmd += ["-f", "raw", "-o", str(out), "--nonblocking"]
            spies.append(
                subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        return spies

    async def window(
        self,
        name: str,
        n: int,
        run: Callable[[], Awaitable[list[str]]],
        background: dict[str, float] | None = None,
    ) -> Cost:
        """Run ``run`` (it returns the workflow ids it caused) and count over its window."""
        self.sql.reset()
        await self.redis.reset()
        self.rpc.reset()
        spies = self._spy(name) if self.args.profile else []
        before, started = self.cpu(), time.perf_counter()
        workflow_ids = await run()
        await asyncio.sleep(0.5)  # what follows the last one (the pump's fan-out) is its cost
        seconds = time.perf_counter() - started
        for spy in spies:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)
        cpu = cpu_between(before, self.cpu())
        sql, redis, rpc = self.sql.read(), await self.redis.read(), self.rpc.read()
        history = await histories(self.client, workflow_ids) if workflow_ids else None
        # The floor's client is this process (``driver``): its CPU is the floor's too.
        parts = (*PARTS, "driver") if name == "floor" else PARTS
        return per_op(n, seconds, history, sql, redis, rpc, cpu, self.idle, background, parts)

    async def idle_rates(self, seconds: float) -> None:
        before, started = self.cpu(), time.perf_counter()
        await asyncio.sleep(seconds)
        used = cpu_between(before, self.cpu())
        self.idle = {
            p: used.get(p, 0.0) / (time.perf_counter() - started) for p in (*PARTS, "driver")
        }


async def result(client: Any, workflow_id: str, timeout: float = 60.0) -> None:  # noqa: ASYNC109
    """Wait for a workflow the API starts after its answer (it may not exist yet)."""
    from temporalio.service import RPCError, RPCStatusCode

    deadline = time.monotonic() + timeout
    while True:
        try:
            await asyncio.wait_for(client.get_workflow_handle(workflow_id).result(), timeout)
            return
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.01)


async def operations(b: Bench, http: httpx.AsyncClient, world: dict[str, Any]) -> dict[str, Cost]:
    from bench._worker import ping_rate
    from bench.webhooks_mining import signed_activity
    from core.workflow_ids import lock_workflow_id, transfer_workflow_id

    args, client, project = b.args, b.client, world["project"]
    headers: dict[str, str] = project.headers
    sender, receiver, miner = world["sender"], world["receiver"], world["miner"]
    costs: dict[str, Cost] = {}

    async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = await http.post(path, json=body, headers=headers)
        if r.status_code >= 300:
            raise RuntimeError(f"{path}: {r.status_code} {r.text}")
        return dict(r.json())

    async def pings() -> list[str]:
        tag = uuid.uuid4().hex[:6]
        await ping_rate(client, b.settings.task_queue, args.n, concurrency=1, warmup=0, tag=tag)
        return [f"bench-ping-{b.settings.task_queue}-{tag}-{i}" for i in range(args.n)]

    async def transfer_one(i: int) -> str:
        body = {
            "transfer_type": "bench", "from_uid": sender, "to_uid": receiver, "currency": "MCC",
            "amount": "0.001", "idempotency_key": uuid.uuid4().hex,
        }  # fmt: skip
        tid = (await post("/v1/transfer/request", body))["data"]["id"]
        wid = transfer_workflow_id(tid)
        await result(client, wid)
        return wid

    async def transfers() -> list[str]:
        return [await transfer_one(i) for i in range(args.n)]

    async def singles() -> list[str]:
        out = []
        for i in range(args.n):
            body = signed_activity(miner, project.secret, 1000 + i)
            await post("/v1/mining/submit-activity", body)
            out.append(request_workflow_id(MINING_PREFIX, f"p:{project.project_id}",
                                           body["idempotency_key"]))  # fmt: skip
            await result(client, out[-1])
        return out

    async def batches() -> list[str]:
        out = []
        for b_ in range(args.batches):
            key = uuid.uuid4().hex
            items = [signed_activity(miner, project.secret, 100_000 + b_ * 100 + i)
                     for i in range(100)]  # fmt: skip
            await post("/v1/mining/batch-submit", {"activities": items, "idempotency_key": key})
            out.append(request_workflow_id(MINING_BATCH_PREFIX, f"p:{project.project_id}", key))
            await result(client, out[-1])
        return out

    async def locks() -> list[str]:
        out = []
        expires = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        for _ in range(args.n):
            lock = await post("/v1/funds/lock", {
                "user_uid": sender, "currency": "MCC", "amount": "0.001", "reason": "bench",
                "expires_at": expires, "idempotency_key": uuid.uuid4().hex,
            })  # fmt: skip
            lock_id = lock["data"]["id"]
            await post("/v1/funds/unlock", {"lock_id": lock_id, "reason": "bench",
                                            "idempotency_key": uuid.uuid4().hex})  # fmt: skip
            out.append(lock_workflow_id(lock_id))
            await result(client, out[-1])
        return out

    async def in_flight(n: int, one: Callable[[int], Awaitable[None]]) -> None:
        """``n`` calls, ``FLIGHT`` at a time (the API's CPU per call as under load)."""
        sem = asyncio.Semaphore(FLIGHT)

        async def call(i: int) -> None:
            async with sem:
                await one(i)

        await asyncio.gather(*(call(i) for i in range(n)))

    async def reads() -> list[str]:
        bearer = {"Authorization": f"Bearer {world['token']}"}

        async def read(_: int) -> None:
            r = await http.get("/v1/mcc/balance", headers=bearer)
            if r.status_code != 200:
                raise RuntimeError(f"balance: {r.status_code} {r.text}")

        await in_flight(args.reads, read)
        return []

    async def accepts_to(path: str, workflow_of: Callable[[str], str] | None) -> list[str]:
        """``args.accepts`` of the same body to ``path``, then each one's workflow awaited
        (settled before the next window: their settlement is in this one's other parts; none
        without ``workflow_of``)."""
        ids: list[str] = []

        async def accept(_: int) -> None:
            answer = await post(path, {
                "transfer_type": "bench", "from_uid": sender, "to_uid": receiver,
                "currency": "MCC", "amount": "0.001", "idempotency_key": uuid.uuid4().hex,
            })  # fmt: skip
            if workflow_of is not None:
                ids.append(workflow_of(answer["data"]["id"]))

        await in_flight(args.accepts, accept)
        await asyncio.gather(*(result(client, i) for i in ids))
        return []

    async def accepts() -> list[str]:
        return await accepts_to("/v1/transfer/request", transfer_workflow_id)

    async def accept_floors_warm() -> None:  # its table made, outside every window
        await post("/bench/accept-floor", {})

    async def accept_floors() -> list[str]:
        return await accepts_to("/bench/accept-floor", lambda i: f"bench-floor-{i}")

    async def accept_floor_credentials() -> list[str]:
        return await accepts_to("/bench/accept-floor/credentials", None)

    async def accept_floor_rows() -> list[str]:
        return await accepts_to("/bench/accept-floor/row", None)

    floor = Floor(b, world)

    async def floors() -> list[str]:
        for _ in range(args.n):
            await floor.one()
        return []

    await pings()  # warm-up of every path
    await transfer_one(-1)
    if not args.only or any(o.startswith("accept floor") for o in args.only.split(",")):
        await accept_floors_warm()
    if not args.only or "floor" in args.only.split(","):
        await floor.setup()
    for name, n, run in (
        ("ping", args.n, pings), ("floor", args.n, floors),
        ("transfer", args.n, transfers), ("single", args.n, singles),
        ("batch item", args.batches * 100, batches), ("lock+unlock", args.n, locks),
        ("read", args.reads, reads), ("transfer accept", args.accepts, accepts),
        ("accept floor", args.accepts, accept_floors),
        ("accept floor credentials", args.accepts, accept_floor_credentials),
        ("accept floor row", args.accepts, accept_floor_rows),
    ):  # fmt: skip
        if args.only and name not in args.only.split(",") and name != "ping":
            continue
        print(f"  {name} x {n} ...", flush=True)
        calls = floor.rpc_calls
        costs[name] = await b.window(name, n, run)
        if name == "floor":  # straight to the node, not through the counting proxy
            costs[name].counts["rpc calls"] = (floor.rpc_calls - calls) / n
    return costs


class Floor:
    """The floor of aim (b), what a transfer needs beyond a Ping at the least: one database
    transaction (a booking's shape: two balances moved and two entries, BEGIN to COMMIT) and
    one chain write (a blockhash, one custody ``transfer_checked`` signed and sent, and one
    ``getSignatureStatuses`` at its expected finality, then once a slot until finalized), made
    by this process with the leanest clients there are (psycopg and aiohttp, straight to the
    node, no ORM, no record). Its CPU: the node's and PostgreSQL's, and this process's own
    (``driver``, the floor's client: the least a worker could spend on it)."""

    def __init__(self, b: Bench, world: dict[str, Any]) -> None:
        self.b, self.world = b, world
        self.node_url: str = b.args.node_url
        self.rpc_calls = 0
        self.statements = 0

    async def setup(self) -> None:
        import psycopg
        from aiohttp import ClientSession

        from chain.custody import CustodyMint, CustodyTransfer

        gateway = self.world["gateway"]
        keys = gateway.keys
        # Custody accounts of two uids with no ledger row: the deposit watcher follows only
        # the ledger's accounts, so the floor's writes (signed by this bench, not recorded by
        # the gateway) are not taken for custody outflows. Minted into, nothing booked.
        tag = uuid.uuid4().hex[:6]
        source, dest = f"bench-floor-from-{tag}", f"bench-floor-to-{tag}"
        for uid in (source, dest):
            await gateway.ensure_custody_account(uid, "MCC")
        await gateway.submit(
            f"bench-floor-fund:{tag}",
            [gateway.mint_instruction(CustodyMint("MCC", source, 10**9))],
            kind="outside_mint",
        )
        (await gateway.await_final(f"bench-floor-fund:{tag}")).raise_for_failure()
        self.ix = gateway.transfer_instruction(CustodyTransfer("MCC", source, dest, 1))
        self.payer, self.signers = keys.fee_payer, [keys.fee_payer, keys.custody_authority]
        self.http = ClientSession()
        self.db = await psycopg.AsyncConnection.connect(self.b.settings.database_url_plain)
        async with self.db.transaction():
            await self.db.execute(
                "CREATE TABLE IF NOT EXISTS bench_floor_accounts (id int PRIMARY KEY, "
                "balance bigint NOT NULL)"
            )
            await self.db.execute(
                "CREATE TABLE IF NOT EXISTS bench_floor_entries (id bigserial PRIMARY KEY, "
                "account int NOT NULL, amount bigint NOT NULL, at timestamptz DEFAULT now())"
            )
            await self.db.execute(
                "INSERT INTO bench_floor_accounts VALUES (1, 1000000), (2, 0) "
                "ON CONFLICT DO NOTHING"
            )
        self.amount = 0
        await self.one()  # warm

    async def call(self, method: str, params: list[Any]) -> Any:
        self.rpc_calls += 1
        body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        async with self.http.post(
            self.node_url, data=body, headers={"Content-Type": "application/json"}
        ) as r:
            got = orjson.loads(await r.read())
        if "error" in got:
            raise RuntimeError(f"{method}: {got['error']}")
        return got["result"]

    async def one(self) -> None:
        import base64

        from solders.hash import Hash
        from solders.message import Message
        from solders.transaction import VersionedTransaction

        self.amount += 1
        async with self.db.transaction():
            await self.db.execute(
                "UPDATE bench_floor_accounts SET balance = balance - %s WHERE id = 1",
                (self.amount,),
            )
            await self.db.execute(
                "UPDATE bench_floor_accounts SET balance = balance + %s WHERE id = 2",
                (self.amount,),
            )
            await self.db.execute(
                "INSERT INTO bench_floor_entries (account, amount) VALUES (1, %s), (2, %s)",
                (-self.amount, self.amount),
            )
        got = await self.call("getLatestBlockhash", [{"commitment": "confirmed"}])
        blockhash = Hash.from_string(got["value"]["blockhash"])
        # A new blockhash each time (a write every ~0.7 s, 20 ms slots): a new signature.
        message = Message.new_with_blockhash([self.ix], self.payer.pubkey(), blockhash)
        tx = bytes(VersionedTransaction(message, self.signers))
        signature = await self.call(
            "sendTransaction",
            [base64.b64encode(tx).decode(), {"encoding": "base64", "skipPreflight": True}],
        )
        await asyncio.sleep(32 * SLOT_MS / 1000)
        for _ in range(500):
            got = await self.call("getSignatureStatuses", [[signature]])
            status = got["value"][0]
            if status is not None and status.get("confirmationStatus") == "finalized":
                if status.get("err") is not None:
                    raise RuntimeError(f"floor write failed: {status['err']}")
                return
            await asyncio.sleep(SLOT_MS / 1000)
        raise RuntimeError("floor write not finalized")


async def deposits(b: Bench, world: dict[str, Any]) -> Cost:
    """The deposit watcher follows the chain (its workflow, as the schedule starts it); its
    cost with no deposit is measured first over ``--idle`` seconds, then ``n`` deposits, one
    at a time, each until its ``funds.deposited`` webhook arrives."""
    from workflows.tokens import DepositScanInput, DepositScanWorkflow

    wallet, custody, received = world["wallet"], world["deposit_address"], world["received"]
    follow = await b.client.start_workflow(
        DepositScanWorkflow.run, DepositScanInput(note="bench", follow_seconds=600),
        id=f"bench-deposits-{uuid.uuid4().hex[:6]}", task_queue=b.settings.task_queue,
    )  # fmt: skip
    await asyncio.sleep(3)  # caught up and following
    b.sql.reset()
    await b.redis.reset()
    b.rpc.reset()
    started = time.perf_counter()
    await asyncio.sleep(b.args.idle)
    seconds = time.perf_counter() - started
    quiet = background_rates(b.sql.read(), await b.redis.read(), b.rpc.read(), seconds)
    await asyncio.sleep(11)  # the watcher's quick polls after activity have ended

    async def run() -> list[str]:
        for i in range(b.args.n):
            got = len(received)
            await wallet.deposit(world["gateway"], "MCC", custody, UNIT + i)
            for _ in range(6000):  # a minute at most
                if len(received) > got:
                    break
                await asyncio.sleep(0.01)
        return []

    cost = await b.window("deposit", b.args.n, run, background=quiet)
    # Cancelled, and waited for: a terminated workflow's activity would go on following the
    # chain in the worker (until its next heartbeat fails) during what the bench does next.
    await follow.cancel()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(follow.result(), 30)
    cost.sql["(the watcher's idle calls per second, subtracted)"] = quiet.get("rpc calls", 0.0)
    return cost


async def seed(b: Bench, deps: Any, hook_url: str) -> dict[str, Any]:
    from solana.rpc.async_api import AsyncClient
    from solders.keypair import Keypair

    from access.scopes import USER_SCOPES
    from authserver.issue import issue_token
    from authserver.server import AuthServer
    from core.security import encrypt_secret
    from db.models.access import OAuthClient
    from db.models.webhooks import WebhookEndpoint
    from devchain.outside import OutsideWallet
    from mccgw.seed import PROJECT_SCOPES
    from tokens.deposits import register

    tag = uuid.uuid4().hex[:6]
    sender, receiver, miner, depositor = (f"u_c{k}_{tag}" for k in "srmd")
    project: BenchProject = await bench_project(
        deps.sessions, b.settings, name="bench-costs", scopes=PROJECT_SCOPES,
        users=[sender, receiver, miner, depositor],
        consenting=[sender, receiver, miner, depositor],
        limits={"mining": {"MCD": {"per_day": "100000000"}}},
    )  # fmt: skip
    await funded_on_chain(deps, [sender], 1000 * UNIT, [receiver])
    await deps.gateway.ensure_custody_account(miner, "MCD")
    async with deps.sessions() as s:
        await register(s, deps.gateway, depositor, "MCC")
        s.add(OAuthClient(
            client_id=f"cl_{tag}", project_id=project.project_id, name="bench",
            redirect_uris=["http://localhost/cb"], allowed_scopes=list(USER_SCOPES),
            grant_types=["authorization_code"], access_token_format="jwt",
        ))  # fmt: skip
        s.add(WebhookEndpoint(
            id=f"whk_{uuid.uuid4().hex[:24]}", project_id=project.project_id, url=hook_url,
            events=["funds.deposited"],
            secret_encrypted=encrypt_secret("whsec_bench", b.settings.master_key,
                                            b.settings.master_key_id),
        ))  # fmt: skip
        await s.commit()
    await deps.gateway.ensure_custody_account(depositor, "MCC")
    token = await asyncio.to_thread(
        _token, b.settings, sender, f"cl_{tag}", issue_token, AuthServer
    )
    wallet = OutsideWallet(Keypair(), AsyncClient(b.args.node_url, timeout=30))
    await wallet.ensure_sol(deps.gateway, 10 * UNIT)
    await wallet.receive_minted(deps.gateway, "MCC", 10**6 * UNIT, f"bench:{wallet.address}")
    return {
        "project": project, "sender": sender, "receiver": receiver, "miner": miner,
        "token": token, "wallet": wallet, "gateway": deps.gateway,
        "deposit_address": deps.gateway.custody_address(depositor, "MCC"),
    }  # fmt: skip


async def hook_on(deps: Any, world: dict[str, Any], event: str) -> None:
    """The project's endpoint now hears ``event`` too (after the counted operations: their
    counts are without a delivery of theirs)."""
    from sqlalchemy import update

    from db.models.webhooks import WebhookEndpoint

    async with deps.sessions() as s:
        await s.execute(
            update(WebhookEndpoint)
            .where(WebhookEndpoint.project_id == world["project"].project_id)
            .values(events=["funds.deposited", event])
        )
        await s.commit()


def _token(settings: Settings, uid: str, client_id: str, issue: Any, server: Any) -> str:
    import sqlalchemy

    engine = sqlalchemy.create_engine(settings.database_url)
    try:
        return str(issue(server(settings, engine), user=uid, scope="mcc:read",
                         client_id=client_id)["access_token"])  # fmt: skip
    finally:
        engine.dispose()


def show(costs: dict[str, Cost]) -> None:
    names = list(costs)
    print(f"{'per operation':<22}" + "".join(f"{n:>13}" for n in names))

    def line(label: str, values: list[float | None], fmt: str = "{:13.2f}") -> None:
        print(f"{label:<22}" + "".join(
            f"{'nan':>13}" if v is None else fmt.format(v) for v in values))  # fmt: skip

    for count in COUNTS:
        line(count, [costs[n].counts[count] for n in names])
    methods = sorted({m for c in costs.values() for m in c.rpc})
    for m in methods:
        line(f"  rpc {m}", [costs[n].rpc.get(m, 0.0) for n in names])
    for part in PARTS:
        line(f"cpu ms {part}", [costs[n].cpu_ms[part] for n in names])
    if any("driver" in c.cpu_ms for c in costs.values()):  # the floor's client
        line("cpu ms driver", [costs[n].cpu_ms.get("driver") for n in names])
    line("cpu ms (all)", [sum(costs[n].cpu_ms.values()) for n in names])
    line("n", [float(costs[n].n) for n in names], "{:13.0f}")


async def amain(args: argparse.Namespace) -> None:
    from activities.deps import worker_deps
    from devchain.node.process import start_node

    tmp = Path(tempfile.mkdtemp(prefix="mccgw-bench-costs-"))
    os.chmod(tmp, 0o755)
    received: list[float] = []  # funds.deposited arrivals
    completed: dict[str, tuple[float, int]] = {}  # transfer id -> (arrival, landing slot)

    async def hook(request: web.Request) -> web.Response:
        event = orjson.loads(await request.read())
        if event["type"] == "transfer.completed":
            data = event["data"]
            completed.setdefault(data["transfer_id"], (time.time(), int(data["slot"])))
        else:
            received.append(time.time())
        return web.Response(text="ok")

    async with AsyncExitStack() as stack:
        node = start_node(tmp / "chain", tmp / "keys", free_port(), slot_ms=SLOT_MS)
        stack.callback(node.stop)
        args.node_url = node.url
        b_rpc = RpcCounter()
        rpc_url = await stack.enter_async_context(b_rpc.proxy(node.url))
        server_url, counting = stack.enter_context(counting_postgres(tmp))
        db_url = stack.enter_context(migrated_database(server_url, "mccgw_bench"))
        redis_url = stack.enter_context(redis_server(tmp))
        env = await stack.enter_async_context(temporal())
        queue = f"bench-costs-{uuid.uuid4().hex[:6]}"
        settings = Settings(
            environment="test", database_url=db_url, redis_url=redis_url,
            solana_rpc_url=rpc_url, chain_keys_dir=tmp / "keys", log_json=False,
            log_level="WARNING", task_queue=queue,
            temporal_address=env.client.service_client.config.target_host,
        )  # fmt: skip
        b = Bench(args, settings, env.client)
        b.rpc = b_rpc
        b.sql = SqlCounter(settings.database_url_plain, counting)
        app = web.Application()
        app.router.add_post("/hook", hook)
        hook_port = await stack.enter_async_context(serve(app))
        deps = await stack.enter_async_context(worker_deps(settings))
        print("seeding ...", flush=True)
        world = await seed(b, deps, f"http://127.0.0.1:{hook_port}/hook")
        world["received"] = received
        b.pids["worker"] = await stack.enter_async_context(
            worker(settings, queue, env.client, schedules=False, WEBHOOK_ALLOW_LOOPBACK="true")
        )
        b.pids["node"] = node.process.pid
        api_port = free_port()
        api_env = {
            "ENVIRONMENT": "test", "REDIS_URL": redis_url,
            "DATABASE_URL": as_api(db_url) if counting else db_url,
            "CHAIN_KEYS_DIR": str(tmp / "keys"), "TEMPORAL_ADDRESS": settings.temporal_address,
            "SOLANA_RPC_URL": rpc_url, "LOG_LEVEL": "WARNING", "TASK_QUEUE": queue,
        }  # fmt: skip
        # Entered in a thread: it waits for the API's start, which reads the mints' decimals
        # through the counting proxy served by this process's event loop.
        api = await asyncio.to_thread(
            stack.enter_context, load.api_process("bench._load:bench_app", api_env, api_port)
        )
        b.pids["api"] = api.pid
        http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{api_port}", timeout=60)
        )
        await asyncio.sleep(2)
        print("measuring ...", flush=True)
        await b.idle_rates(args.idle)
        costs = {} if args.latency_only else await operations(b, http, world)
        await hook_on(deps, world, "transfer.completed")
        print(f"  latency at {args.rate:g} transfers/s ...", flush=True)
        late = await latency.run(
            http, world["project"].headers, [(world["sender"], world["receiver"])], completed,
            node.url, rate=args.rate, seconds=args.seconds, slot_ms=SLOT_MS,
            sessions=deps.sessions,
        )  # fmt: skip
        if not args.latency_only and (not args.only or "deposit" in args.only.split(",")):
            print("  deposit ...", flush=True)  # last: its watcher follows the chain meanwhile
            costs["deposit"] = await deposits(b, world)
    load_avg = os.getloadavg()
    print(f"cost per operation, one at a time (load {load_avg[0]:.2f}; "
          f"SQL counted: {'yes' if counting else 'no: no pg_stat_statements here'})")  # fmt: skip
    show(costs)
    print("idle CPU ms/s by part (subtracted): "
          + "  ".join(f"{p} {v * 1000:.1f}" for p, v in b.idle.items()))  # fmt: skip
    print(
        f"latency at {args.rate:g} transfers/s ({late.n}/{late.sent} webhooks, {SLOT_MS} ms "
        f"slots): request -> transfer.completed received p50 {late.e2e_p50_s:.2f} s, p99 "
        f"{late.e2e_p99_s:.2f} s; the chain's own (landing slot -> finalized) p50 "
        f"{late.chain_p50_s:.2f} s, p99 {late.chain_p99_s:.2f} s; the gateway's overhead p50 "
        f"{late.overhead_p50_s:.2f} s, p99 {late.overhead_p99_s:.2f} s (aim p99 <= 1.0)"
    )
    print("  median steps: " + ", ".join(f"{k} {v:.3f} s" for k, v in (late.phases or {}).items()))
    record("costs", {**{name: asdict(c) for name, c in costs.items()}, "latency": asdict(late)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20, help="of each operation, one at a time")
    parser.add_argument("--batches", type=int, default=2, help="batch-submit of 100 items")
    parser.add_argument("--reads", type=int, default=300, help=f"{FLIGHT} in flight")
    parser.add_argument("--accepts", type=int, default=200, help=f"{FLIGHT} in flight")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of each idle window")
    parser.add_argument("--rate", type=float, default=20.0, help="transfers/s, latency run")
    parser.add_argument("--seconds", type=float, default=10.0, help="of the latency run")
    parser.add_argument("--latency-only", action="store_true", help="no counts, the latency run")
    parser.add_argument("--profile", type=Path, help="py-spy of the API and worker per window")
    parser.add_argument("--only", help="the operations to count (comma-separated)")
    uvloop.run(amain(parser.parse_args()))


if __name__ == "__main__":
    main()
