"""Webhook delivery and mining throughput, measured in one run on loopback.

- Webhook deliveries per second through the real pump (fan-out from the outbox, claim, signed
  POST, attempt log, commit) to a local aiohttp receiver: httpx vs aiohttp on the same work.
- Mining submissions per second end to end (API in-process -> workflow -> verify -> mint ->
  finalized on the local chain -> confirmed), N single submissions in flight at once.
- batch-submit of 100 items: confirmed items per second, beside the bare one-activity
  PingWorkflow rate on the same Temporal server in the same run.

Uses DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS / SOLANA_RPC_URL when set, else the embedded
services the tests use (chain node with 20 ms slots). Bounded: well under 3 minutes.

    .venv/bin/python -m bench.webhooks_mining [--deliveries 2000] [--singles 40] [--batches 4]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from aiohttp import web
from sqlalchemy import func, insert, make_url, select
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activities.deps import worker_deps
from api.app import create_app
from bench._counters import serve
from bench._procs import CpuSample, cpu_between, cpu_sample
from bench._report import record
from bench._seed import bench_project
from bench._worker import ping_rate as pings_per_second
from bench._worker import temporal, worker
from core.config import Settings, WebhookSettings
from core.embedded import free_port
from core.security import encrypt_secret
from db.models import Event, Project
from db.models.mining import MiningSubmission
from db.models.webhooks import WebhookDelivery, WebhookEndpoint
from tests.services import fresh_database, redis_server
from webhooks.pump import WebhookPump
from webhooks.senders import make_sender

BASE = "http://127.0.0.1:8000"


@asynccontextmanager
async def receiver() -> AsyncIterator[str]:
    async def ok(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_post("/hook", ok)
    async with serve(app) as port:
        yield f"http://127.0.0.1:{port}/hook"


async def hook_endpoint(
    settings: Settings, sessions: Any, url: str, secret: str = "whsec_bench"
) -> tuple[int, str]:
    """A project with one endpoint at ``url`` for ``funds.locked``: (project id, endpoint id)."""
    async with sessions() as s:
        project = Project(name="bench-hooks", allowed_scopes=[], rate_limit_tier="enterprise")
        s.add(project)
        await s.flush()
        endpoint = WebhookEndpoint(
            id=f"whk_{uuid.uuid4().hex[:24]}",
            project_id=project.project_id,
            url=url,
            events=["funds.locked"],
            secret_encrypted=encrypt_secret(secret, settings.master_key, settings.master_key_id),
        )
        s.add(endpoint)
        await s.commit()
        return project.project_id, endpoint.id


async def sender_alone(
    settings: Settings, sessions: Any, hook: tuple[int, str], kind: str, n: int
) -> float:
    """Deliveries/s of the pump run in this process (no Temporal) on ``n`` events inserted at
    once: fan-out, claim, signed POST with the ``kind`` client, attempt log, commit."""
    project_id, endpoint_id = hook
    async with sessions() as s:
        await s.execute(
            insert(Event),
            [
                {
                    "id": f"evt_{uuid.uuid4().hex}",
                    "project_id": project_id,
                    "type": "funds.locked",
                    "data": {"lock_id": str(i), "amount": "1.5"},
                    "created_at": datetime.now(UTC),
                }
                for i in range(n)
            ],
        )
        await s.commit()
    keys = {settings.master_key_id: settings.master_key}
    wh = WebhookSettings(poll_seconds=0.01, allow_loopback=True, http_client=kind)
    pump = WebhookPump(sessions, keys, wh, make_sender(kind, 15, wh.concurrency))
    started = time.perf_counter()
    stats = pump.stats
    await pump.run(lambda: stats.succeeded >= n)
    elapsed = time.perf_counter() - started
    await pump.aclose()
    async with sessions() as s:
        pending = await s.scalar(
            select(func.count())
            .select_from(WebhookDelivery)
            .where(WebhookDelivery.endpoint_id == endpoint_id)
            .where(WebhookDelivery.status != "succeeded")
        )
    assert pending == 0, pending
    return n / elapsed


async def bench_deliveries(settings: Settings, sessions: Any, url: str, n: int) -> dict[str, float]:
    hook = await hook_endpoint(settings, sessions, url)
    print(f"webhook deliveries to a local receiver ({n} per client, 100 in flight):")
    best: dict[str, float] = {}
    for kind in ("httpx", "aiohttp", "httpx", "aiohttp"):
        rate = await sender_alone(settings, sessions, hook, kind, n)
        best[kind] = max(best.get(kind, 0.0), rate)
        print(f"  {kind:8s} {rate:8.0f} deliveries/s  ({n / rate:.2f} s)")
    return best


def signed_activity(uid: str, secret: str, n: int) -> dict[str, Any]:
    data = {"trade_volume_usdc": 100 + n, "trade_count": 3, "profit_usdc": 1.5}
    ts = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    canonical = json.dumps(
        {"activity_data": data, "activity_type": "trade", "timestamp": ts, "user_uid": uid},
        separators=(",", ":"),
        sort_keys=True,
    )
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    sig = hmac.new(secret.encode(), digest.encode(), hashlib.sha256).hexdigest()
    return {
        "user_uid": uid,
        "activity_type": "trade",
        "activity_data": data,
        "proof": {"type": "hmac-sha256", "hash": digest, "signature": sig, "timestamp": ts},
        "idempotency_key": uuid.uuid4().hex,
    }


async def wait_confirmed(sessions: Any, ids: list[str], deadline: float) -> None:
    while time.perf_counter() < deadline:
        async with sessions() as s:
            rows = await s.execute(
                select(MiningSubmission.status).where(MiningSubmission.id.in_(ids))
            )
            statuses = [r[0] for r in rows]
        if all(st in ("confirmed", "rejected", "failed") for st in statuses):
            bad = [st for st in statuses if st != "confirmed"]
            assert not bad, bad
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("mining activities not confirmed in time")


async def phases(client: Client, sessions: Any, ids: list[str], accept_s: float) -> str:
    """Where one batch's time went: the HTTP accept (of all batches sent at once), then each
    activity from the workflow's own history (scheduled -> started is queueing, started ->
    closed the activity itself)."""
    async with sessions() as s:
        workflow_id = await s.scalar(
            select(MiningSubmission.workflow_id).where(MiningSubmission.id == ids[0])
        )
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    names: dict[int, str] = {}
    scheduled: dict[int, datetime] = {}
    started: dict[int, datetime] = {}
    first = last = None
    parts = [f"accept {accept_s * 1000:.0f} ms"]
    for event in history.events:
        at = event.event_time.ToDatetime(UTC)
        first = first or at
        last = at
        kind = EventType.Name(event.event_type)
        if kind == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED":
            attrs = event.activity_task_scheduled_event_attributes
            names[event.event_id] = attrs.activity_type.name
            scheduled[event.event_id] = at
        elif kind == "EVENT_TYPE_ACTIVITY_TASK_STARTED":
            started[event.activity_task_started_event_attributes.scheduled_event_id] = at
        elif kind == "EVENT_TYPE_ACTIVITY_TASK_COMPLETED":
            sid = event.activity_task_completed_event_attributes.scheduled_event_id
            wait = (started[sid] - scheduled[sid]).total_seconds() * 1000
            run = (at - started[sid]).total_seconds() * 1000
            parts.append(f"{names[sid].removeprefix('mining_')} {run:.0f} ms (+{wait:.0f} queued)")
    if first and last:
        parts.append(f"workflow {(last - first).total_seconds() * 1000:.0f} ms")
    return ", ".join(parts)


async def single_phases(sessions: Any, ids: list[str], accepts: list[float]) -> str:
    """Median time of each step of single submissions, from their recorded histories: the HTTP
    accept, then accepted -> verified -> pending_onchain (sent) -> confirmed."""
    async with sessions() as s:
        rows = await s.execute(
            select(MiningSubmission.created_at, MiningSubmission.history).where(
                MiningSubmission.id.in_(ids)
            )
        )
        steps: dict[str, list[float]] = {}
        for created_at, history in rows:
            previous = created_at
            for entry in history:
                at = datetime.fromisoformat(entry["at"].replace("Z", "+00:00"))
                if entry["status"] != "pending_verification":
                    gap = (at - previous).total_seconds() * 1000
                    steps.setdefault(entry["status"], []).append(gap)
                previous = at
    parts = [f"accept {statistics.median(accepts) * 1000:.0f} ms"]
    parts += [f"-> {k} {statistics.median(v):.0f} ms" for k, v in steps.items()]
    return ", ".join(parts)


async def main_async(args: argparse.Namespace) -> None:
    os.environ.setdefault("WEBHOOK_ALLOW_LOOPBACK", "true")
    tmp = Path(tempfile.mkdtemp(prefix="mccgw-bench-"))
    os.chmod(tmp, 0o755)
    async with AsyncExitStack() as stack:
        db_url = stack.enter_context(fresh_database(tmp))
        redis_url = stack.enter_context(redis_server(tmp))
        rpc_url = os.environ.get("SOLANA_RPC_URL")
        keys_dir = Path(os.environ.get("CHAIN_KEYS_DIR", tmp / "keys"))
        if not rpc_url:
            from devchain.node.process import start_node

            node = start_node(
                data_dir=tmp / "chain", keys_dir=keys_dir, port=free_port(), slot_ms=20
            )
            stack.callback(node.stop)
            rpc_url = node.url
            node_pid: int | None = node.process.pid
        else:
            node_pid = None
        client = (await stack.enter_async_context(temporal())).client
        settings = Settings(
            environment="test",
            database_url=db_url,
            redis_url=redis_url,
            solana_rpc_url=rpc_url,
            chain_keys_dir=keys_dir,
            log_json=False,
            log_level="WARNING",
            temporal_address=client.service_client.config.target_host,
        )
        app = create_app(settings)
        await stack.enter_async_context(app.router.lifespan_context(app))
        app.state.temporal = client
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        app.state.task_queue = queue
        sessions = app.state.session_maker

        url = await stack.enter_async_context(receiver())
        figures: dict[str, float] = {
            f"sender_{k}": v
            for k, v in (await bench_deliveries(settings, sessions, url, args.deliveries)).items()
        }

        deps = await stack.enter_async_context(worker_deps(settings))
        # The worker in a process of its own (as in production and in bench.engine), unless
        # --in-process: the API and this driver then share their process with it.
        worker_pid = await stack.enter_async_context(
            worker(settings, queue, client, deps if args.in_process else None)
        )
        db_name = str(make_url(settings.database_url).database)

        def cpu() -> CpuSample:
            return cpu_sample(worker_pid, node_pid, db_name)

        # The yardstick: bare one-activity workflows, 100 in flight.
        before = cpu()
        ping_rate = await pings_per_second(client, queue, args.pings, 100)
        ping_cpu = cpu_between(before, cpu())
        print(f"PingWorkflow (one activity, 100 in flight): {ping_rate:8.1f} workflows/s")
        figures["ping_rate"] = ping_rate

        # A project, users who authorized it, custody accounts created up front.
        uids = [f"u_bench_{uuid.uuid4().hex[:8]}" for _ in range(4)]
        project = await bench_project(
            sessions, settings, name="bench-mining", scopes=["mining:write", "mining:read"],
            users=uids, consenting=uids, limits={"mining": {"MCD": {"per_day": "100000000"}}},
        )  # fmt: skip
        secret = project.secret
        await asyncio.gather(*(deps.gateway.ensure_custody_account(u, "MCD") for u in uids))
        headers = project.headers
        http = await stack.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, timeout=60)
        )

        # Singles end to end, measured as the reference is: --steady submissions, 100 in
        # flight, from the first request to the last confirmation (a rate, not one latency).
        async def submit(i: int) -> str:
            r = await http.post(
                "/v1/mining/submit-activity",
                json=signed_activity(uids[i % 4], secret, i),
                headers=headers,
            )
            return str(r.json()["data"]["id"])

        # One poller for all the submissions in flight (a poll each would load this process).
        waiting: dict[str, asyncio.Future[None]] = {}

        async def poll_confirmed() -> None:
            while True:
                await asyncio.sleep(0.05)
                if not waiting:
                    continue
                async with sessions() as s:
                    rows = await s.execute(
                        select(MiningSubmission.id, MiningSubmission.status).where(
                            MiningSubmission.id.in_(list(waiting))
                        )
                    )
                for sid, status in rows:
                    if status in ("confirmed", "rejected", "failed"):
                        future = waiting.pop(sid)
                        if status == "confirmed":
                            future.set_result(None)
                        else:
                            future.set_exception(AssertionError(f"{sid} {status}"))

        accepts: list[float] = []
        steady_ids: list[str] = []

        async def settle_single(i: int, flight: asyncio.Semaphore) -> None:
            async with flight:
                t0 = time.perf_counter()
                sid = await submit(i)
                accepts.append(time.perf_counter() - t0)
                steady_ids.append(sid)
                waiting[sid] = asyncio.get_running_loop().create_future()
                await asyncio.wait_for(waiting[sid], 60)

        n = args.steady
        flight = asyncio.Semaphore(100)
        poller = asyncio.create_task(poll_confirmed())
        before = cpu()
        started = time.perf_counter()
        await asyncio.gather(*(settle_single(i, flight) for i in range(n)))
        single_rate = n / (time.perf_counter() - started)
        single_cpu = cpu_between(before, cpu())
        poller.cancel()
        print(
            f"mining submit-activity end to end ({n}, 100 in flight): {single_rate:8.1f} "
            f"confirmed/s ({single_rate / ping_rate:.2f}x the PingWorkflow rate)"
        )
        figures["single_rate"] = single_rate
        figures["cpu_ms_ping"] = sum(ping_cpu.values()) / args.pings * 1000
        figures["cpu_ms_single"] = sum(single_cpu.values()) / n * 1000
        for what, used, count in (("Ping", ping_cpu, args.pings), ("single", single_cpu, n)):
            shares = "  ".join(f"{k} {v / count * 1000:.1f}" for k, v in used.items())
            print(f"  CPU ms per {what}: {shares}  = {sum(used.values()) / count * 1000:.1f}")
        print(f"  median phases: {await single_phases(sessions, steady_ids, accepts)}")

        # A burst of --singles at once, to the last confirmation: mostly one finality latency.
        n = args.singles
        started = time.perf_counter()
        ids = await asyncio.gather(*(submit(10_000 + i) for i in range(n)))
        accept_s = time.perf_counter() - started
        await wait_confirmed(sessions, ids, time.perf_counter() + 60)
        burst_rate = n / (time.perf_counter() - started)
        breakdown = await phases(client, sessions, [ids[-1]], accept_s)
        print(f"mining submit-activity, a burst of {n}: {burst_rate:8.1f} confirmed/s")
        print(f"  phases of its last: {breakdown}")
        figures["single_burst_rate"] = burst_rate

        # Batches of 100.
        for batches in (1, args.batches):
            before = cpu()
            started = time.perf_counter()
            responses = await asyncio.gather(
                *(
                    http.post(
                        "/v1/mining/batch-submit",
                        json={
                            "activities": [
                                # Numbered apart from the singles' and the other
                                # round's: the same data in the same second is the same
                                # proof, and its second use is rejected as a replay.
                                signed_activity(
                                    uids[i % 4], secret, batches * 100_000 + b * 100 + i
                                )
                                for i in range(100)
                            ],
                            "idempotency_key": uuid.uuid4().hex,
                        },
                        headers=headers,
                    )
                    for b in range(batches)
                )
            )
            accepted_s = time.perf_counter() - started
            ids = [
                item["attributes"]["activity"]["id"] for r in responses for item in r.json()["data"]
            ]
            await wait_confirmed(sessions, ids, time.perf_counter() + 60)
            elapsed = time.perf_counter() - started
            batch_cpu = cpu_between(before, cpu())
            rate = len(ids) / elapsed
            figures[f"batch_{batches}x100_rate"] = rate
            figures[f"cpu_ms_batch_{batches}x100_item"] = sum(batch_cpu.values()) / len(ids) * 1000
            print(
                f"batch-submit {batches} x 100 items: {rate:8.1f} confirmed items/s "
                f"({elapsed:.2f} s; {rate / ping_rate:.1f}x the PingWorkflow rate)"
            )
            for n, r in enumerate(responses):
                first = r.json()["data"][0]["attributes"]["activity"]["id"]
                breakdown = await phases(client, sessions, [first], accepted_s)
                print(f"  phases of batch {n + 1}/{batches}: {breakdown}")
            shares = "  ".join(f"{k} {v / len(ids) * 1000:.2f}" for k, v in batch_cpu.items())
            print(f"  CPU ms per item: {shares}  = {sum(batch_cpu.values()) / len(ids) * 1000:.2f}")
        ping_ms = figures["cpu_ms_ping"]
        print(f"aim CPU single / Ping: {figures['cpu_ms_single'] / ping_ms:.2f}   (<= 1.0)")
        item = figures[f"cpu_ms_batch_{args.batches}x100_item"]
        print(f"aim CPU batch item / Ping: {item / ping_ms:.2f}   (<= 0.2)")
        record("webhooks_mining", figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--pings", type=int, default=300)
    parser.add_argument("--singles", type=int, default=40, help="the burst")
    parser.add_argument("--steady", type=int, default=300, help="singles, 100 in flight")
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--in-process", action="store_true", help="run the worker in this process")
    asyncio.run(asyncio.wait_for(main_async(parser.parse_args()), 170))


if __name__ == "__main__":
    main()
