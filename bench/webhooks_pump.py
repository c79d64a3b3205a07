"""Webhook deliveries through the real pump, from the outbox to a receiver in its own process.

N events are written through ``events.outbox`` by a few concurrent writers, once per phase:
one event per transaction (``emit``, as a transfer's completion commits its event; the
writers' rate caps this phase, its delays are the pump's latency), then 100 per transaction
(``emit_many``, as a batch; the outbox fills faster than the pump drains it, so this phase's
rate is the pump's capacity). The real
worker, in its own process, runs ``WebhookPumpWorkflow`` and its activity (started by the
worker itself, as in production), which fans the events out, claims, signs and POSTs them to
an aiohttp receiver on loopback in another process; the receiver checks every signature and
notes each event's delay from its ``created_at`` to its receipt.

Printed beside the references of the same run: the pump run alone in this process (no
Temporal, the events inserted at once, to the same receiver: what bench/webhooks_mining.py
calls the sender) and the PingWorkflow rate on the same worker.

    .venv/bin/python -m bench.webhooks_pump [--events 5000] [--writers 8] [--per-tx 1,100]
        [--reference 2000] [--pings 300] [--profile FILE]

Uses DATABASE_URL / TEMPORAL_ADDRESS when set, else embedded services; a local chain node
(400 ms slots) so the worker starts as in production. Bounded: it stops by itself (< 3 min).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._load import ensure_py_spy, load_line
from bench._procs import pct
from bench._report import record
from bench._worker import ping_rate, temporal, worker
from bench.webhooks_mining import hook_endpoint, sender_alone
from core.config import Settings
from core.embedded import free_port
from db.session import create_db_engine, create_session_maker
from events.outbox import emit, emit_many
from tests.services import fresh_database, redis_server


def receiver_call(port: int, path: str, method: str = "GET") -> Any:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read()) if method == "GET" else None


def start_receiver(port: int, secret: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench._receiver", "--port", str(port), "--secret", secret],
        cwd=Path(__file__).resolve().parent.parent,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            receiver_call(port, "/stats")
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the receiver did not start") from None
            time.sleep(0.1)


async def write_events(sessions: Any, project_id: int, n: int, writers: int, per_tx: int) -> float:
    """``n`` events, ``per_tx`` to a transaction (one: ``emit``, as a transfer's completion;
    more: ``emit_many``, as a batch), ``writers`` at once; returns the seconds it took."""
    queue: asyncio.Queue[range] = asyncio.Queue()
    for i in range(0, n, per_tx):
        queue.put_nowait(range(i, min(n, i + per_tx)))

    def event(i: int) -> dict[str, Any]:
        return {"lock_id": str(i), "amount": "1.5"}

    async def writer() -> None:
        while not queue.empty():
            batch = queue.get_nowait()
            async with sessions() as s:
                if len(batch) == 1:
                    await emit(s, project_id=project_id, type="funds.locked", data=event(batch[0]))
                else:
                    await emit_many(
                        s,
                        [
                            {"id": f"evt_{uuid.uuid4().hex}", "project_id": project_id,
                             "type": "funds.locked", "data": event(i)}
                            for i in batch
                        ],
                    )  # fmt: skip
                await s.commit()

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return time.perf_counter() - started


async def wait_received(port: int, n: int, deadline: float) -> dict[str, Any]:
    while True:
        stats: dict[str, Any] = receiver_call(port, "/stats")
        if stats["unique"] >= n or time.monotonic() > deadline:
            return stats
        await asyncio.sleep(0.05)


def profile(pid: int | None, out: Path | None, seconds: float) -> subprocess.Popen[bytes] | None:
    """py-spy on the worker for ``seconds`` (a tool of the bench, installed at run time)."""
    if out is None or pid is None:
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [ensure_py_spy(), "record", "-p", str(pid), "-r", "200", "-f", "raw",
         "-d", str(max(1, int(seconds))), "-o", str(out), "--nonblocking"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


async def bench(args: argparse.Namespace, settings: Settings) -> dict[str, float]:
    secret = "whsec_" + secrets.token_hex(16)
    port = free_port()
    receiver = start_receiver(port, secret)
    url = f"http://127.0.0.1:{port}/hook"
    db_engine = create_db_engine(settings)
    sessions = create_session_maker(db_engine)
    try:
        hook = await hook_endpoint(settings, sessions, url, secret)
        # The reference first: the worker's pump would take these deliveries too.
        alone = await sender_alone(settings, sessions, hook, "aiohttp", args.reference)
        receiver_call(port, "/reset", "POST")
        async with temporal() as env:
            address = env.client.service_client.config.target_host
            settings = settings.model_copy(update={"temporal_address": address})
            queue = f"bench-pump-{uuid.uuid4().hex[:6]}"
            async with worker(settings, queue, env.client) as pid:
                ping = await ping_rate(env.client, queue, args.pings)
                spy = profile(pid, args.profile, 2 * args.events / 800)
                phases = {}
                for per_tx in args.per_tx:
                    receiver_call(port, "/reset", "POST")
                    started = time.monotonic()
                    write_s = await write_events(
                        sessions, hook[0], args.events, args.writers, per_tx
                    )
                    phases[per_tx] = (
                        write_s,
                        await wait_received(port, args.events, started + args.max_wait),
                    )
                if spy is not None:
                    spy.wait(60)
    finally:
        await db_engine.dispose()
        receiver.terminate()
        receiver.wait(10)
    print(f"webhook deliveries through the real pump ({load_line()})")
    print(f"  reference PingWorkflow:       {ping:8.1f} workflows/s ({args.pings} runs)")
    print(
        f"  reference sender alone:       {alone:8.0f} deliveries/s "
        f"(pump in this process, no Temporal, {args.reference} events inserted at once)"
    )
    figures = {"sender_alone_rate": alone, "ping_rate": ping}
    for per_tx, (write_s, stats) in phases.items():
        delays = stats["delays_ms"]
        if stats["unique"] < args.events or stats["bad_signatures"]:
            raise SystemExit(
                f"only {stats['unique']}/{args.events} events received "
                f"({stats['bad_signatures']} bad signatures) within {args.max_wait:.0f} s"
            )
        span = stats["last"] - stats["created_first"]  # first event created -> last received
        rate = args.events / span
        print(
            f"  {args.events} events, {per_tx} per transaction, {args.writers} writers: "
            f"written at {args.events / write_s:.0f}/s"
        )
        print(
            f"    through the pump:           {rate:8.0f} deliveries/s "
            f"({span:.2f} s; {stats['received'] - stats['unique']} duplicates; signatures ok)"
        )
        print(
            f"    delay event -> receipt:     p50 {pct(delays, 0.5):.0f} ms   "
            f"p99 {pct(delays, 0.99):.0f} ms   max {max(delays):.0f} ms"
        )
        figures |= {
            f"pump_rate_tx{per_tx}": rate,
            f"write_rate_tx{per_tx}": args.events / write_s,
            f"delay_p50_ms_tx{per_tx}": pct(delays, 0.5),
            f"delay_p99_ms_tx{per_tx}": pct(delays, 0.99),
        }
    best = max(v for k, v in figures.items() if k.startswith("pump_rate"))
    figures["pump_rate"] = best
    print(f"  aim >= 1,000 deliveries/s through the pump: {best:.0f} ({best / alone:.2f}x alone)")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument(
        "--per-tx",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[1, 100],
        help="events per transaction, one phase each (default 1,100)",
    )
    parser.add_argument("--reference", type=int, default=2000, help="events, sender alone")
    parser.add_argument("--pings", type=int, default=300)
    parser.add_argument("--max-wait", type=float, default=90.0)
    parser.add_argument("--profile", type=Path, help="py-spy raw profile of the worker")
    args = parser.parse_args()
    os.environ["WEBHOOK_ALLOW_LOOPBACK"] = "true"  # the worker reads it from its environment
    from devchain.node.process import start_node

    with tempfile.TemporaryDirectory(prefix="mccgw-bench-pump-") as tmp:
        os.chmod(tmp, 0o755)
        node = start_node(Path(tmp) / "chain", Path(tmp) / "keys", free_port())
        try:
            with fresh_database(Path(tmp)) as db_url, redis_server(Path(tmp)) as redis_url:
                settings = Settings(
                    environment="test", database_url=db_url, redis_url=redis_url,
                    solana_rpc_url=node.url, chain_keys_dir=Path(tmp) / "keys",
                    log_json=False, log_level="WARNING", webhook_allow_loopback=True,
                )  # fmt: skip
                figures = uvloop.run(asyncio.wait_for(bench(args, settings), 170))
                record("webhooks_pump", figures)
        finally:
            node.stop()


if __name__ == "__main__":
    main()
