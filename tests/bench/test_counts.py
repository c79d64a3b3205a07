"""The cost accounting's arithmetic (bench/costs.py, bench/_counters.py, bench/_pg.py,
bench/latency.py) and the summary's aim lines it ends ``make bench`` with (bench/summary.py):
what the lead reads run after run must be computed right."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from temporalio.api.enums.v1 import EventType

from bench._counters import history_counts, redis_commands, rpc_methods
from bench._pg import API_ROLE, SqlCounts, as_api, sql_counts
from bench.costs import per_op
from bench.latency import SlotClock, latencies
from bench.summary import SQL_BEFORE, aim_block, issue43

E = EventType


def test_rpc_methods_counts_a_batch_call_by_call() -> None:
    one = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "getSlot", "params": []})
    batch = orjson.dumps([{"id": i, "method": "getBlock"} for i in range(3)])
    assert rpc_methods(one) == ["getSlot"]
    assert rpc_methods(batch) == ["getBlock"] * 3
    assert rpc_methods(b"not json") == []


def test_redis_commands_leave_out_the_counters_own() -> None:
    stats = {
        "cmdstat_evalsha": {"calls": 3, "usec": 10},
        "cmdstat_info": {"calls": 1},
        "cmdstat_config|resetstat": {"calls": 1},
        "cmdstat_get": {"calls": 0},
    }
    assert redis_commands(stats) == {"evalsha": 3}


def test_a_pings_history_counts() -> None:
    ping = [
        E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
        E.EVENT_TYPE_WORKFLOW_TASK_STARTED, E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, E.EVENT_TYPE_ACTIVITY_TASK_STARTED,
        E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
        E.EVENT_TYPE_WORKFLOW_TASK_STARTED, E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
    ]  # fmt: skip
    counts = history_counts(ping)
    assert (counts.events, counts.workflow_tasks, counts.activities) == (11, 2, 1)
    # A local activity leaves a marker, not an activity task: it is an execution too.
    assert history_counts([*ping, E.EVENT_TYPE_MARKER_RECORDED]).activities == 2


def test_sql_counts_tell_the_api_from_the_rest_and_transactions_by_begin() -> None:
    rows = [
        (API_ROLE, "BEGIN", 2),
        (API_ROLE, "INSERT INTO t VALUES ($1)", 2),
        (API_ROLE, "COMMIT", 2),
        ("postgres", "begin", 3),
        ("postgres", "SELECT  a\n FROM   t", 5),
        ("postgres", "SELECT pg_stat_statements_reset()", 1),  # the counter's own
    ]
    counts = sql_counts(rows)
    assert (counts.statements, counts.transactions, counts.api_statements) == (14, 5, 6)
    assert counts.by_query["worker: SELECT a FROM t"] == 5
    assert as_api("postgresql+psycopg://postgres@/db?host=/x") == (
        f"postgresql+psycopg://{API_ROLE}@/db?host=/x"
    )


def test_per_op_divides_and_takes_off_idle_cpu_and_background_calls() -> None:
    sql = SqlCounts(50, 10, {"worker: BEGIN": 10, "worker: SELECT 1": 40}, 20)
    cost = per_op(
        n=10, seconds=4.0, history=history_counts([E.EVENT_TYPE_ACTIVITY_TASK_STARTED] * 10),
        sql=sql, redis={"get": 30}, rpc={"getSlot": 48, "sendTransaction": 10},
        cpu={"API": 0.5, "worker": 0.2}, idle={"worker": 0.01},
        background={"rpc calls": 2.0, "rpc getSlot": 2.0},
    )  # fmt: skip
    assert cost.counts["activities"] == 1.0
    assert cost.counts["sql statements"] == 5.0
    assert cost.counts["sql transactions"] == 1.0
    assert cost.counts["sql statements API"] == 2.0
    assert cost.counts["redis commands"] == 3.0
    assert cost.counts["rpc calls"] == (58 - 8) / 10
    assert cost.rpc == {"getSlot": 4.0, "sendTransaction": 1.0}
    assert cost.cpu_ms["API"] == 50.0
    assert abs(cost.cpu_ms["worker"] - 16.0) < 1e-9  # 200 ms less 4 s x 10 ms/s, per op
    assert cost.cpu_ms["node"] == 0.0


def test_without_a_counting_server_the_sql_counts_are_unknown() -> None:
    cost = per_op(1, 1.0, None, None, {}, {}, {}, {})
    assert cost.counts["sql statements"] is None and cost.counts["history events"] == 0.0


def test_latency_takes_the_chains_own_time_off_each_transfer() -> None:
    clock = SlotClock("http://unused", 0.02)
    clock.note(processed=100, finalized=60, now=1000.0)
    clock.note(processed=101, finalized=70, now=1000.1)  # slot 101 seen at 1000.1
    clock.note(processed=140, finalized=101, now=1000.9)  # ... and finalized at 1000.9
    requested = {"a": 999.9, "b": 999.8}
    received = {"a": (1001.4, 101), "b": (1001.0, 100)}  # b's slot 100: seen 1000.0
    late = latencies(requested, received, clock)
    assert late.n == 2
    # a: 1.5 s in all, the chain's 0.8 s; b: 1.2 s in all, the chain's 0.9 s (70 < 100 <= 101)
    assert abs(late.overhead_p99_s - 0.7) < 1e-9
    assert abs(late.chain_p50_s - 0.9) < 1e-9  # nearest rank of (0.8, 0.9)
    assert latencies({}, {}, clock).n == 0


def _costs(statements: float, events: float) -> dict[str, object]:
    return {
        "counts": {"history events": events, "sql statements": statements},
        "rpc": {"sendTransaction": 1.0, "getSlot": 0.0},
        "cpu_ms": {"API": 4.0, "worker": 10.0},
    }


def test_the_summary_prints_every_count_and_each_aim_as_an_aim_line() -> None:
    data: dict[str, dict[str, Any]] = {
        "costs": {"figures": {
            "ping": _costs(0.0, 11.0),
            "transfer": _costs(SQL_BEFORE["transfer"] / 2, 12.0),
            "read": {"counts": {}, "rpc": {}, "cpu_ms": {"API": 0.5}},
            "transfer accept": {"counts": {}, "rpc": {}, "cpu_ms": {"API": 2.5}},
            "accept floor": {"counts": {}, "rpc": {}, "cpu_ms": {"API": 1.5}},
            "accept floor credentials": {"counts": {}, "rpc": {}, "cpu_ms": {"API": 0.25}},
            "accept floor row": {"counts": {}, "rpc": {}, "cpu_ms": {"API": 1.0}},
            "latency": {"overhead_p99_s": 0.8, "overhead_p50_s": 0.3},
        }},
        "engine": {"figures": {"cpu_ms_transfer_by_role": {"worker": 13.0},
                               "cpu_ms_ping_by_role": {"worker": 10.0}}},
        "tokens": {"figures": {"/bench/bare": {"cpu_ms": 0.3}, "/v1/mcc/balance": {"cpu_ms": 0.4},
                               "/v1/mcd/balance": {"cpu_ms": 0.3},
                               "/v1/mcc/price": {"cpu_ms": 0.6}}},
        "kpi_bonus": {"figures": {"/bench/bare": {"cpu_ms": 0.4},
                                  "/v1/tech-tree/bonus": {"cpu_ms": 0.5}}},
    }  # fmt: skip
    lines = {label: (value, aim) for label, value, _, aim in issue43(data)}
    assert lines["cost transfer sql statements"] == (SQL_BEFORE["transfer"] / 2, "")
    assert lines["cost transfer rpc sendTransaction"][0] == 1.0
    assert "cost transfer rpc getSlot" not in lines  # methods never called are left out
    assert lines["cost transfer cpu ms worker"][0] == 10.0
    assert lines["history transfer-ping"] == (1.0, "<= 1")
    assert lines["sql transfer/before"] == (0.5, "<= 0.5")
    assert lines["sql single/before"][0] is None  # not measured
    assert lines["api cpu transfer/read"] == (5.0, "<= 4")
    assert lines["api cpu accept-floor/read"] == (3.0, "")  # beside the aim, not an aim
    # the floor's parts, each in reads of 0.5 ms (each part a different figure, so that two
    # parts mixed up fail): credentials 0.25, the transaction 1.0 - 0.25, the start 1.5 - 1.0
    assert lines["api cpu floor credentials/read"] == (0.5, "")
    assert lines["api cpu floor transaction/read"] == (1.5, "")
    assert lines["api cpu floor start/read"] == (1.0, "")
    assert lines["worker cpu transfer/ping"] == (1.3, "<= 1.3")
    # the worst authenticated read by CPU (the public price, 0.5, is not one): 0.3 / 0.4
    value, aim = lines["authenticated reads/bare cpu"]
    assert (value, aim) == (pytest.approx(0.75), ">= 0.8")
    assert lines["transfer overhead p99 s"] == (0.8, "<= 1.0")
    block = aim_block(issue43(data)).splitlines()
    assert "aim history transfer-ping: 1.00" in block
    assert "aim sql single/before: nan" in block
    assert all(line.startswith("aim ") and ": " in line for line in block)
