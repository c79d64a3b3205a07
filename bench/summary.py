"""One table of the figures the benches wrote (``$BENCH_JSON_DIR/*.json``, see bench/_report.py):
every ratio of issue 18 beside the reference of the same run, each marked aim met or not, then
the token, bonus and views reads. Ends with the row to append to docs/performance.md.

    BENCH_JSON_DIR=/tmp/bench .venv/bin/python -m bench.summary
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Row = tuple[str, str, str, str, bool | None]  # measure, figure, reference, aim, met


def load_all(where: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(where.glob("*.json"))}


def _get(data: dict[str, dict[str, Any]], bench: str, *keys: str) -> Any:
    value: Any = data.get(bench, {}).get("figures")
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _row(name: str, aim: str, value: Any, render: Callable[[], tuple[str, str, bool]]) -> Row:
    """``render()`` gives (figure, reference, met) once ``value`` was measured."""
    if value is None:
        return (name, "not measured", "", aim, None)
    figure, reference, met = render()
    return (name, figure, reference, aim, met)


def issue_rows(d: dict[str, dict[str, Any]]) -> list[Row]:
    def ratio(name: str, bench: str, key: str, unit: str, aim: float) -> Row:
        rate, ping = _get(d, bench, key), _get(d, bench, "ping_rate")
        return _row(
            name, f">= {aim:g}", rate and ping,
            lambda: (f"{rate / ping:.2f} ({rate:.1f} {unit}/s)", f"Ping {ping:.1f}/s",
                     rate / ping >= aim),
        )  # fmt: skip

    p50, p99 = _get(d, "engine", "accept_busy_p50_ms"), _get(d, "engine", "accept_busy_p99_ms")
    steady = _get(d, "engine", "accept_steady_p99_ms")
    pump = _get(d, "webhooks_pump", "pump_rate")
    alone = _get(d, "webhooks_pump", "sender_alone_rate")
    p99d = _get(d, "webhooks_pump", "delay_p99_ms_tx1")
    return [
        ratio("transfers end to end / Ping", "engine", "e2e_rate", "transfers", 1.0),
        _row(
            "accept p50/p99 at 20/s, burst settling", "p50 <= 10, p99 <= 25", p99,
            lambda: (f"{p50:.1f} / {p99:.1f} ms", f"p99 {steady:.1f} ms, stream alone",
                     p50 <= 10 and p99 <= 25),
        ),
        ratio("single submit-activity / Ping", "webhooks_mining", "single_rate", "confirmed", 0.8),
        ratio("batch-submit 4 x 100 / Ping", "webhooks_mining", "batch_4x100_rate", "items", 6.0),
        _row(
            "webhook deliveries/s through the pump", ">= 1,000/s", pump,
            lambda: (f"{pump:.0f}/s (p99 delay {p99d:.0f} ms at 1 event per tx)",
                     f"sender alone {alone:.0f}/s", pump >= 1000),
        ),
    ]  # fmt: skip


def read_rows(d: dict[str, dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    reads: list[tuple[str, str, str, Callable[[dict[str, float]], bool] | None, str]] = [
        ("tokens", "/v1/mcd/balance", "GET /v1/mcd/balance", _read_aim, "p50 <= 3, >= 1,500/s"),
        ("tokens", "/v1/mcc/price", "GET /v1/mcc/price", _read_aim, "p50 <= 3, >= 1,500/s"),
        ("kpi_bonus", "/v1/tech-tree/bonus", "GET /v1/tech-tree/bonus", _p50_aim, "p50 <= 3"),
    ]
    for bench, key, name, aim, aim_text in reads:
        f, bare = _get(d, bench, key), _get(d, bench, "/bench/bare")
        if f is None:
            rows.append((name, "not measured", "", aim_text, None))
            continue
        figure = (
            f"p50 {f['p50_ms']:.2f} ms, {f['rate']:.0f}/s, {f['cpu_ms']:.3f} CPU ms "
            f"({1000 / f['cpu_ms']:.0f}/s per core)"
        )
        ref = f"bare {bare['cpu_ms']:.3f} CPU ms" if bare else ""
        rows.append((name, figure, ref, aim_text, aim(f) if aim else None))
    for label in ("transactions page 1", "transactions page 2500"):
        f = _get(d, "tokens", label)
        if f is not None:
            rows.append((f"GET /v1/mcc/{label}", f"p50 {f['p50_ms']:.2f} ms", "", "p50 <= 10",
                         f["p50_ms"] <= 10))  # fmt: skip
    for name, f in (_get(d, "views") or {}).items():
        bare = _get(d, "views", "bare")
        ref = f"bare p50 {bare['p50_ms']:.2f}" if bare and name != "bare" else ""
        rows.append((f"views {name}", f"p50 {f['p50_ms']:.2f} / p99 {f['p99_ms']:.2f} ms", ref,
                     "", None))  # fmt: skip
    return rows


def issue33(d: dict[str, dict[str, Any]]) -> list[tuple[str, float | None, str, str]]:
    """Issue 33's aims: (aim line label, figure, its reference in the same run, aim)."""

    def ratio(a: Any, b: Any) -> float | None:
        return a / b if a is not None and b else None

    ping_e, ping_m = _get(d, "engine", "cpu_ms_ping"), _get(d, "webhooks_mining", "cpu_ms_ping")
    transfer = _get(d, "engine", "cpu_ms_transfer")
    single = _get(d, "webhooks_mining", "cpu_ms_single")
    item = _get(d, "webhooks_mining", "cpu_ms_batch_4x100_item")
    # (route, its req/s, bare req/s of its run, bare CPU per request / its CPU per request)
    reads: list[tuple[str, float, float, float]] = []
    for bench, path in (("tokens", "/v1/mcc/balance"), ("tokens", "/v1/mcc/price"),
                        ("kpi_bonus", "/v1/tech-tree/bonus")):  # fmt: skip
        f, bare = _get(d, bench, path), _get(d, bench, "/bench/bare")
        if f and bare:
            reads.append((path, f["rate"], bare["rate"], bare["cpu_ms"] / f["cpu_ms"]))
    worst = min(reads, key=lambda r: r[1] / r[2]) if reads else None
    auth, nothing = _get(d, "tokens", "/bench/auth"), _get(d, "tokens", "/bench/nothing")
    access = auth["cpu_ms"] - nothing["cpu_ms"] if auth and nothing else None
    idle, bare_idle = _get(d, "idle", "worker_cpu_ms_s"), _get(d, "idle", "bare_worker_cpu_ms_s")
    # One window in three holds the 5-minute custody reconciliation's run (1.5-2 ms/s more).
    reconciled = _get(d, "idle", "reconciliation_in_window")
    idle_note = (
        ""
        if reconciled is None
        else "; reconciliation in the window: " + ("yes" if reconciled else "no")
    )
    busy, alone = _get(d, "engine", "accept_busy_p99_ms"), _get(d, "engine", "accept_steady_p99_ms")

    def ms(v: Any) -> str:
        return "—" if v is None else f"{v:.1f} ms"

    return [
        ("cpu transfer/ping", ratio(transfer, ping_e),
         f"transfer {ms(transfer)} / Ping {ms(ping_e)} CPU (all processes)", "<= 1.2"),
        ("cpu single/ping", ratio(single, ping_m),
         f"single {ms(single)} / Ping {ms(ping_m)} CPU (all processes)", "<= 1.2"),
        ("cpu batch-item/ping", ratio(item, ping_m),
         f"4x100 item {ms(item)} / Ping {ms(ping_m)} CPU (all processes)", "<= 0.2"),
        ("reads/bare", worst and worst[1] / worst[2],
         "; ".join(f"{p} {r:.0f} vs bare {b:.0f} req/s ({c:.2f} by CPU per request)"
                   for p, r, b, c in reads), ">= 0.8"),
        ("access cpu ms", access,
         f"/bench/auth {auth['cpu_ms']:.3f} - /bench/nothing {nothing['cpu_ms']:.3f} ms"
         if auth and nothing else "", "<= 0.5"),
        ("idle worker cpu ms/s", idle,
         f"bare worker (Ping only) {bare_idle:.2f} ms/s{idle_note}"
         if bare_idle is not None else "",
         "<= 5"),
        ("accept p99 burst/alone", ratio(busy, alone),
         f"p99 {ms(busy)} while a burst settles / {ms(alone)} alone", "<= 2.0"),
    ]  # fmt: skip


# SQL statements per operation before issue 43's cuts (bench.costs at 8b48714, one at a time):
# the aim halves them.
SQL_BEFORE = {"transfer": 60.6, "single": 81.0}


def issue43(d: dict[str, dict[str, Any]]) -> list[tuple[str, float | None, str, str]]:
    """Issue 43: every count of bench.costs (``cost <operation> <count>``, no aim), then the
    aims, each beside its reference of the same run."""
    costs: dict[str, Any] = d.get("costs", {}).get("figures") or {}
    ops = [k for k in costs if k != "latency"]
    lines: list[tuple[str, float | None, str, str]] = []
    for op in ops:
        c = costs[op]
        lines += [(f"cost {op} {k}", v, "", "") for k, v in c["counts"].items()]
        lines += [(f"cost {op} rpc {m}", v, "", "") for m, v in c["rpc"].items() if v]
        lines += [(f"cost {op} cpu ms {p}", v, "", "") for p, v in c["cpu_ms"].items()]

    def count(op: str, name: str) -> float | None:
        value = costs.get(op, {}).get("counts", {}).get(name)
        return None if value is None else float(value)

    def cpu(op: str, part: str) -> float | None:
        value = costs.get(op, {}).get("cpu_ms", {}).get(part)
        return None if value is None else float(value)

    def less(a: float | None, b: float | None) -> float | None:
        return a - b if a is not None and b is not None else None

    def ratio(a: float | None, b: float | None) -> float | None:
        return a / b if a is not None and b else None

    def shown(v: float | None) -> str:
        return "—" if v is None else f"{v:.2f}"

    by_role = _get(d, "engine", "cpu_ms_transfer_by_role") or {}
    ping_role = _get(d, "engine", "cpu_ms_ping_by_role") or {}
    worker_t, worker_p = by_role.get("worker"), ping_role.get("worker")
    api_t, api_r = cpu("transfer accept", "API"), cpu("read", "API")
    api_f = cpu("accept floor", "API")
    api_fc, api_fr = cpu("accept floor credentials", "API"), cpu("accept floor row", "API")
    # Aim 5 as the issue states it: every AUTHENTICATED read by CPU per request (issue 33's
    # `reads/bare` above takes the worst by req/s, the public price read included).
    authenticated = (
        ("tokens", "/v1/mcc/balance"),
        ("tokens", "/v1/mcd/balance"),
        ("kpi_bonus", "/v1/tech-tree/bonus"),
    )
    by_cpu = [
        (path, bare["cpu_ms"] / f["cpu_ms"])
        for bench, path in authenticated
        if (f := _get(d, bench, path)) and (bare := _get(d, bench, "/bench/bare")) and f["cpu_ms"]
    ]
    worst_read = min(by_cpu, key=lambda r: r[1]) if by_cpu else None
    late = costs.get("latency") or {}
    events_t, events_p = count("transfer", "history events"), count("ping", "history events")
    sql_t, sql_s = count("transfer", "sql statements"), count("single", "sql statements")
    lines += [
        ("history transfer-ping", less(events_t, events_p),
         f"transfer {shown(events_t)} - Ping {shown(events_p)} events", "<= 1"),
        ("sql transfer/before", ratio(sql_t, SQL_BEFORE["transfer"]),
         f"{shown(sql_t)} statements per transfer, {SQL_BEFORE['transfer']} before", "<= 0.5"),
        ("sql single/before", ratio(sql_s, SQL_BEFORE["single"]),
         f"{shown(sql_s)} statements per single, {SQL_BEFORE['single']} before", "<= 0.5"),
        ("api cpu transfer/read", ratio(api_t, api_r),
         f"API CPU per accepted transfer {shown(api_t)} ms / per balance read {shown(api_r)} ms",
         "<= 4"),
        ("api cpu accept-floor/read", ratio(api_f, api_r),
         f"the least an accept costs the API (credentials, body, one row written, a Ping "
         f"started) {shown(api_f)} ms / per balance read {shown(api_r)} ms", ""),
        ("api cpu floor credentials/read", ratio(api_fc, api_r),
         f"the floor's credentials and body alone {shown(api_fc)} ms / read", ""),
        ("api cpu floor transaction/read", ratio(less(api_fr, api_fc), api_r),
         f"what its one-row transaction adds {shown(less(api_fr, api_fc))} ms / read", ""),
        ("api cpu floor start/read", ratio(less(api_f, api_fr), api_r),
         f"what its workflow start adds {shown(less(api_f, api_fr))} ms / read", ""),
        ("authenticated reads/bare cpu", worst_read[1] if worst_read else None,
         "; ".join(f"{path} {r:.2f}" for path, r in by_cpu) + " (bare CPU per request / the "
         "read's; the worst is the figure)", ">= 0.8"),
        ("worker cpu transfer/ping", ratio(worker_t, worker_p),
         f"worker CPU per transfer {shown(worker_t)} / per Ping {shown(worker_p)} ms "
         "(bench.engine)",
         "<= 1.3"),
        ("transfer overhead p99 s", late.get("overhead_p99_s"),
         f"request -> transfer.completed p99 {shown(late.get('e2e_p99_s'))} s less the chain's "
         f"own (landing slot -> finalized) at 20/s; p50 {shown(late.get('overhead_p50_s'))} s",
         "<= 1.0"),
        ("transfer overhead p50 s", late.get("overhead_p50_s"),
         f"request -> webhook p50 {shown(late.get('e2e_p50_s'))} s, chain's own p50 "
         f"{shown(late.get('chain_p50_s'))} s", ""),
    ]  # fmt: skip
    return lines


def _met(value: float, aim: str) -> bool:
    op, bound = aim.split()
    return value <= float(bound) if op == "<=" else value >= float(bound)


def _read_aim(f: dict[str, float]) -> bool:
    return f["p50_ms"] <= 3 and f["rate"] >= 1500


def _p50_aim(f: dict[str, float]) -> bool:
    return f["p50_ms"] <= 3


def mark(met: bool | None) -> str:
    return "—" if met is None else ("met" if met else "NOT met")


def commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return out.stdout.strip() or "?"


def main() -> None:
    where = Path(os.environ.get("BENCH_JSON_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "."))
    data = load_all(where)
    if not data:
        raise SystemExit(f"no bench figures in {where} (set BENCH_JSON_DIR)")
    loads = ", ".join(f"{k} {v['load'][0]:.1f}" for k, v in data.items())
    now = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    print(f"\nbench summary, commit {commit()}, {now} UTC")
    print(f"load average at the end of each bench: {loads}  ({os.cpu_count()} CPUs)")
    issue, reads = issue_rows(data), read_rows(data)
    widths = [max(len(str(r[i])) for r in issue + reads) for i in range(4)]
    header = ("measure", "figure", "reference (same run)", "aim")
    for block in (issue, reads):
        print()
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + "  result")
        for row in block:
            cells = [str(c).ljust(w) for c, w in zip(row[:4], widths, strict=True)]
            print("  ".join([*cells, mark(row[4])]))
    figures = " | ".join(str(r[1]) for r in issue)
    top = max(v["load"][0] for v in data.values())
    print("\nhistory row for docs/performance.md:")
    print(f"| {now} | {commit()} | {top:.1f} | {figures} |")
    aims = issue33(data)
    print("\nissue 33 (each figure beside its reference of the same run):")
    for label, value, reference, aim in aims:
        result = "not measured" if value is None else ("met" if _met(value, aim) else "NOT met")
        shown = "—" if value is None else f"{value:.2f}"
        print(f"  {label:<24}{shown:>7}  aim {aim:<7}{result:<14}{reference}")
    print(
        f"| {now} | {commit()} | {top:.1f} | "
        + " | ".join("—" if v is None else f"{v:.2f}" for _, v, _, _ in aims)
        + " |"
    )
    counts = issue43(data)
    print("\nissue 43 (each aim beside its reference of the same run):")
    for label, value, reference, aim in counts:
        if label.startswith("cost "):
            continue  # every count is in the block below
        shown = "—" if value is None else f"{value:.2f}"
        if aim:
            result = "not measured" if value is None else ("met" if _met(value, aim) else "NOT met")
            print(f"  {label:<26}{shown:>7}  aim {aim:<7}{result:<14}{reference}")
        else:  # a figure the aims are read beside
            print(f"  {label:<26}{shown:>7}  {'(beside)':<26}{reference}")
    print()
    print(aim_block(aims + counts))


def aim_block(lines: list[tuple[str, float | None, str, str]]) -> str:
    """The block a tool reads, last: ``aim <label>: <figure>`` a line, ``nan`` if unmeasured."""
    return "\n".join(
        f"aim {label}: {'nan' if value is None or value != value else f'{value:.2f}'}"
        for label, value, _, _ in lines
    )


if __name__ == "__main__":
    main()
