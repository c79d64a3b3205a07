"""Record the histories tests/workflows/test_replay.py replays: one per workflow type of
``worker.WORKFLOWS``, and the named scenarios of the main paths (tests/workflows/scenarios.py).

    cd <repo> && DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
        ENVIRONMENT=test .venv/bin/python -m tests.workflows.record [Name ...]

Re-run it (no edit needed) after a deliberate workflow change or a new workflow type, review
the diff of tests/workflows/histories/, and commit it. It starts real services the way the test
session does (a fresh migrated database, Redis, a Temporal dev server, the local chain node;
DATABASE_URL / REDIS_URL / TEMPORAL_ADDRESS / SOLANA_RPC_URL are used when set), runs the real
worker (``worker.build_worker``), starts each workflow type once, waits until it closes or for
``WAIT_SECONDS`` (a long-lived workflow's history so far replays just as well), and writes
``histories/<workflow type name>.json``. Then each scenario builds its world through the real
app, which starts its workflow as in production; the scenario must close on its path within
``WAIT_SECONDS`` (or the recording fails) and is written as ``histories/<type>.<scenario>.json``.

Names on the command line record only those: a workflow type name records its history and its
scenarios, a scenario name (``TransferWorkflow.completed``) that scenario alone. A full
recording also deletes the histories of types no longer registered and of scenarios gone.

Inputs: ``INPUTS`` names a meaningful input for some types; any other type (a new one, or
one whose input changed) gets its input dataclass filled with placeholders (fresh UUID
strings, zeros, empty lists), which drives it down its rejection or retry path: still a real
history of the real code (the scenarios are there for the main paths).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import sys
import types
import typing
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.common import SearchAttributeKey
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from tests.workflows.scenarios import SCENARIOS, Stage, scenario_type, stage

HISTORIES = Path(__file__).parent / "histories"
WAIT_SECONDS = 30.0


def _soon() -> str:
    return (datetime.now(UTC) + timedelta(seconds=2)).isoformat()


# Inputs by workflow type name, as keyword arguments of its input dataclass.
INPUTS: dict[str, Callable[[], dict[str, Any]]] = {
    "PingWorkflow": lambda: {"message": "recorded"},
    # No such transfer: the never-committed path (local activity, Status, failure).
    "TransferWorkflow": lambda: {"transfer_id": str(uuid.uuid4())},
    # No such lock, expiring in 2 s: the timer, then the expiry activity.
    "FundLockWorkflow": lambda: {"lock_id": str(uuid.uuid4()), "expires_at": _soon()},
    "RecoveryWorkflow": lambda: {"stale_after_seconds": 30.0},
    "HousekeepingWorkflow": lambda: {"batch": 100, "max_batches": 2},
}


def type_name(cls: type) -> str:
    """The workflow type's registered name (a renamed class may keep its old one)."""
    return workflow._Definition.must_from_class(cls).name or cls.__name__


def input_type(cls: type) -> type | None:
    """The dataclass the workflow's run method takes (None if it takes nothing)."""
    defn = workflow._Definition.must_from_class(cls)
    hints = typing.get_type_hints(defn.run_fn)
    params = [p for p in hints if p != "return"]
    return hints[params[0]] if params else None


def placeholder(tp: Any, name: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return (
            None if type(None) in typing.get_args(tp) else placeholder(typing.get_args(tp)[0], name)
        )
    if origin in (list, Sequence, tuple, set):
        return []
    if origin is dict or tp is dict:
        return {}
    if tp is str:
        return str(uuid.uuid4())  # parses as an id of any kind, names nothing that exists
    if tp in (int, float):
        return tp(0)
    if tp is bool:
        return False
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return build_input(tp, {})
    return None


def build_input(tp: type, given: dict[str, Any]) -> Any:
    hints = typing.get_type_hints(tp)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(tp):
        if f.name in given:
            kwargs[f.name] = given[f.name]
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs[f.name] = placeholder(hints[f.name], f.name)
    return tp(**kwargs)


def workflow_input(cls: type) -> Any:
    tp = input_type(cls)
    if tp is None:
        return None
    given = INPUTS.get(type_name(cls), dict)()
    try:
        return build_input(tp, given)
    except TypeError:  # the input changed under the scenario: placeholders only
        return build_input(tp, {})


async def save(handle: WorkflowHandle[Any, Any], name: str) -> Path:
    """Write the workflow's history so far as ``histories/<name>.json`` (and end it)."""
    history = await handle.fetch_history()
    with contextlib.suppress(RPCError):  # already closed
        await handle.terminate("recorded")
    path = HISTORIES / f"{name}.json"
    path.write_text(history.to_json() + "\n")
    print(f"{name}: {len(history.events)} events -> {path}", flush=True)
    return path


async def record_one(client: Client, cls: type, queue: str) -> Path:
    name = type_name(cls)
    data = workflow_input(cls)
    args = [] if data is None else [data]
    handle: WorkflowHandle[Any, Any] = await client.start_workflow(
        name, args=args, id=f"record-{name}-{uuid.uuid4().hex[:8]}", task_queue=queue
    )
    try:
        await asyncio.wait_for(handle.result(), timeout=WAIT_SECONDS)
    except Exception as exc:  # a failure is a history as good as a success
        print(f"{name}: {type(exc).__name__}", flush=True)
    return await save(handle, name)


async def record_scenario(stage: Stage, name: str) -> Path:
    """One named scenario: its world built, its workflow started by the app, closed on its
    path (anything else is an error: the history would not be the one its name promises)."""
    scenario = SCENARIOS[name]
    handle = stage.temporal.get_workflow_handle(await scenario.start(stage))
    async with asyncio.timeout(WAIT_SECONDS):
        while True:  # the app starts it after its commit, without holding up the answer
            try:
                await handle.describe()
                break
            except RPCError as exc:
                if exc.status != RPCStatusCode.NOT_FOUND:
                    raise
                await asyncio.sleep(0.1)
        result = await handle.result()
    if not scenario.reached(result):
        raise RuntimeError(f"{name}: the workflow ended off its path: {result}")
    return await save(handle, name)


def chosen(only: Sequence[str], workflows: Sequence[type]) -> tuple[list[type], list[str]]:
    """The workflow types and the scenarios to record: all, or those named (a type's name
    brings its scenarios along: a change to it is re-recorded whole)."""
    types_ = [c for c in workflows if not only or {c.__name__, type_name(c)} & set(only)]
    names = {type_name(c) for c in types_}
    scenarios = [n for n in SCENARIOS if not only or n in only or (scenario_type(n) in names)]
    unknown = set(only) - names - {c.__name__ for c in types_} - set(scenarios)
    if unknown:
        raise SystemExit(f"neither a workflow type nor a scenario: {sorted(unknown)}")
    return types_, scenarios


def drop_stale(workflows: Sequence[type]) -> None:
    """A full recording: drop the histories of types that are gone and of scenarios gone."""
    kept = {type_name(c) for c in workflows} | set(SCENARIOS)
    for path in HISTORIES.glob("*.json"):
        if path.stem not in kept:
            path.unlink()


async def main(only: Sequence[str]) -> None:
    os.environ.setdefault("ENVIRONMENT", "test")
    from activities.deps import worker_deps
    from core.config import Settings
    from core.embedded import free_port, temporal_cli
    from tests.conftest import SEARCH_ATTRIBUTES, traversable_tmp
    from tests.services import fresh_database, redis_server
    from worker import WORKFLOWS, build_worker

    types_, scenarios = chosen(only, WORKFLOWS)
    tmp = traversable_tmp("mccgw-record-")
    node = None
    try:
        with fresh_database(tmp) as db_url, redis_server(tmp) as redis_url:
            keys = tmp / "keys"
            rpc_url = os.environ.get("SOLANA_RPC_URL")
            if not rpc_url:
                from devchain.node.process import start_node

                node = start_node(tmp / "chain", keys, free_port(), slot_ms=20)
                rpc_url = node.url
            settings = Settings(
                environment="test", database_url=db_url, redis_url=redis_url,
                chain_keys_dir=keys, solana_rpc_url=rpc_url, log_json=False,
            )  # fmt: skip
            if address := os.environ.get("TEMPORAL_ADDRESS"):
                env = WorkflowEnvironment.from_client(await Client.connect(address))
            else:
                attributes = [SearchAttributeKey.for_keyword(n) for n in SEARCH_ATTRIBUTES]
                env = await WorkflowEnvironment.start_local(
                    dev_server_existing_path=temporal_cli(), port=free_port(),
                    search_attributes=attributes,
                )  # fmt: skip
            async with env:  # shut down (a local server) even when a recording fails
                queue = f"record-{uuid.uuid4().hex[:8]}"
                HISTORIES.mkdir(exist_ok=True)
                if not only:
                    drop_stale(WORKFLOWS)
                async with worker_deps(settings) as deps:
                    # Decimals read before the first workflow: chain steps then run, not retry.
                    await asyncio.wait_for(deps.gateway.warm_up(keep=True), timeout=60)
                    async with build_worker(env.client, deps, task_queue=queue):
                        plain = asyncio.gather(*(record_one(env.client, c, queue) for c in types_))
                        try:
                            if scenarios:
                                async with stage(env.client, settings, deps, queue) as world:
                                    for name in scenarios:  # one at a time: plain to follow
                                        await record_scenario(world, name)
                        except BaseException:
                            plain.cancel()
                            raise
                        await plain
    finally:
        if node is not None:
            node.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
