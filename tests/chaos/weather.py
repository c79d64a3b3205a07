"""The chaos suite in the weather (issue 39; docs/reliability.md "In the weather"): the figures
of one phase under a node weather (``Topology.set_weather``), beside calm.

- ``RpcSampler`` reads the API's and each worker's ``/metrics`` every second during the phase:
  the chain RPC requests they sent (``mccgw_chain_rpc_requests_total``, every try), so the
  requests per operation and the peak request rate (per second, all processes together)
  against the budget (``SOLANA_RPC_RPS``), and the 429s met;
- ``phase_figures`` reads the database after the drain: operations completed of accepted, p50
  and p99 from request to final (transfers: created to finished), attempts and re-signs per
  chain write, the fee paid per write;
- ``failed_attempts`` reads the workers' logs (kept in the topology's ``logs/``): the activity
  attempts that failed during the phase, and those that failed for a 429 (the door must wait
  every 429 out inside the call, so none should).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import psycopg

from deploy.topology import Topology

_REQUESTS = re.compile(r"^mccgw_chain_rpc_requests_total\{[^}]*\} ([0-9.e+]+)$", re.M)
_LIMITED = re.compile(
    r'^mccgw_chain_rpc_errors_total\{[^}]*kind="rate_limited"[^}]*\} ([0-9.e+]+)$', re.M
)


@dataclass
class WeatherFigures:
    profile: str
    budget: float
    accepted: int = 0
    completed: int = 0
    p50: float = 0.0
    p99: float = 0.0
    writes: int = 0
    attempts: float = 0.0
    resigns: float = 0.0
    fee: float = 0.0
    rpc_requests: float = 0.0
    limited: float = 0.0
    peak_rate: float = 0.0
    failed_attempts: int = 0  # activity attempts failed during the phase (workers' logs)
    failed_429: int = 0  # of which for a 429 (ChainRateLimited)
    samples: list[float] = field(default_factory=list)

    def line(self) -> str:
        per_op = self.rpc_requests / max(1, self.accepted)
        return (
            f"weather {self.profile}: {self.completed}/{self.accepted} operations final, "
            f"request->final p50 {self.p50:.1f} s p99 {self.p99:.1f} s; {self.writes} chain "
            f"writes, {self.attempts:.2f} attempts and {self.resigns:.2f} re-signs a write, fee "
            f"{self.fee:.0f} lamports a write; {self.rpc_requests:.0f} RPC requests "
            f"({per_op:.1f} an operation), {self.limited:.0f} answered 429, peak "
            f"{self.peak_rate:.0f}/s against a budget of {self.budget:.0f}/s; "
            f"{self.failed_attempts} activity attempts failed, {self.failed_429} for a 429"
        )


class RpcSampler:
    """The RPC requests of every process of the topology, summed, once a second."""

    def __init__(self, topo: Topology) -> None:
        ports = [topo.ports.api, *topo.worker_metrics_ports]
        self.urls = [f"http://127.0.0.1:{p}/metrics" for p in ports]
        self.totals: list[tuple[float, float, float]] = []  # (time, requests, 429s)

    async def _read(self, http: httpx.AsyncClient) -> tuple[float, float]:
        requests = limited = 0.0
        for url in self.urls:
            try:
                text = (await http.get(url, timeout=2)).text
            except httpx.HTTPError:
                continue
            requests += sum(float(v) for v in _REQUESTS.findall(text))
            limited += sum(float(v) for v in _LIMITED.findall(text))
        return requests, limited

    async def run(self, stop: asyncio.Event) -> None:
        async with httpx.AsyncClient() as http:
            while not stop.is_set():
                requests, limited = await self._read(http)
                self.totals.append((asyncio.get_running_loop().time(), requests, limited))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1.0)

    def fill(self, figures: WeatherFigures) -> None:
        if len(self.totals) < 2:
            return
        figures.rpc_requests = self.totals[-1][1] - self.totals[0][1]
        figures.limited = self.totals[-1][2] - self.totals[0][2]
        rates = [
            (b[1] - a[1]) / max(1e-3, b[0] - a[0])
            for a, b in zip(self.totals, self.totals[1:], strict=False)
            if b[1] >= a[1]  # a restarted process starts its counters again
        ]
        figures.samples = rates
        figures.peak_rate = max(rates, default=0.0)


def phase_figures(topo: Topology, figures: WeatherFigures, since: Any) -> None:
    """The database's side of a phase: what reached a final state, how long it took, what
    each chain write cost."""
    dsn = topo.env["DATABASE_URL"].replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE status IN ('completed','failed','cancelled')),"
            " percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - "
            "created_at)) FILTER (WHERE status = 'completed'),"
            " percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - "
            "created_at)) FILTER (WHERE status = 'completed')"
            " FROM transfers WHERE created_at >= %s",
            (since,),
        ).fetchone()
        assert row is not None
        figures.accepted, figures.completed = int(row[0]), int(row[1])
        figures.p50, figures.p99 = float(row[2] or 0), float(row[3] or 0)
        row = conn.execute(
            "SELECT count(*), avg(attempt), avg(attempt - 1), avg(fee_lamports) "
            "FROM chain_transactions WHERE created_at >= %s AND status = 'succeeded'",
            (since,),
        ).fetchone()
        assert row is not None
        figures.writes = int(row[0])
        figures.attempts, figures.resigns = float(row[1] or 0), float(row[2] or 0)
        figures.fee = float(row[3] or 0)


_RATE_LIMITED = re.compile(r"ChainRateLimited|\b429\b")


def failed_attempts(topo: Topology, figures: WeatherFigures, since: Any) -> None:
    """The workers' activity attempts that failed since ``since`` (Temporal's "Completing
    activity as failed" lines), and how many of them for a 429."""
    for log in sorted(topo.logs.glob("worker-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if "Completing activity as failed" not in line:
                continue
            with contextlib.suppress(ValueError, KeyError):
                entry = json.loads(line)
                if datetime.fromisoformat(entry["ts"]) < since:
                    continue
                figures.failed_attempts += 1
                figures.failed_429 += bool(_RATE_LIMITED.search(entry.get("exc", "")))
