"""Crashes and outages in the middle of a transfer: a worker killed with SIGKILL, and the chain
RPC unreachable for a while. Either way: exactly one on-chain transfer and the right final
state."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import AsyncIterator, Callable
from urllib.parse import urlparse

import pytest
from sqlalchemy import select
from temporalio.testing import WorkflowEnvironment

from activities.deps import WorkerDeps
from core.config import Settings
from core.embedded import free_port
from core.workflow_ids import transfer_workflow_id
from db.models.chain import ChainTransaction, ChainTxAttempt
from db.models.engine import Transfer
from engine.search import STATUS
from tests.engine.conftest import UNIT, Api, funded_user
from tests.engine.test_transfers import transfer_body, wait_final
from tests.factories import World
from tests.stack import asgi_client, running_app, running_worker, serving, worker_process


@pytest.fixture
async def own_queue_api(app_settings: Settings, api: Api) -> AsyncIterator[Callable[[str], Api]]:
    """The same project through an API process that starts workflows on a queue of the
    test's choosing (served by a worker the test controls)."""
    async with running_app(app_settings) as app, asgi_client(app) as c:

        def on(queue: str) -> Api:
            app.state.task_queue = queue
            return Api(c, api.project)

        yield on


async def _chain_writes(deps: WorkerDeps, transfer_id: str) -> tuple[str | None, list[str]]:
    """(status of the transfer's chain write, the status of each signed attempt)."""
    async with deps.sessions() as s:
        row = await s.scalar(
            select(ChainTransaction)
            .join(Transfer, Transfer.op_key == ChainTransaction.op_key)
            .where(Transfer.id == transfer_id)
        )
        if row is None:
            return None, []
        attempts = list(
            await s.scalars(select(ChainTxAttempt).where(ChainTxAttempt.chain_tx_id == row.id))
        )
        return row.status, [a.status for a in sorted(attempts, key=lambda a: a.attempt)]


async def test_worker_killed_mid_transfer_gives_one_transfer(
    app_settings: Settings, own_queue_api: Callable[[str], Api], world: World,
    deps: WorkerDeps, temporal_env: WorkflowEnvironment, api: Api,
) -> None:  # fmt: skip
    queue = f"crash-{uuid.uuid4().hex[:8]}"
    async with worker_process(app_settings, queue) as proc:
        src = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
        dst = await funded_user(world, deps, api.project.project_id, 0)
        client = own_queue_api(queue)
        r = await client.post("/v1/transfer/request", transfer_body(src, dst, "4"))
        assert r.status_code == 202, r.text
        transfer_id = r.json()["data"]["id"]

        # Kill the worker the moment its chain write is recorded (signed, maybe sent).
        for _ in range(2000):
            status, _ = await _chain_writes(deps, transfer_id)
            if status is not None:
                break
            await asyncio.sleep(0.005)
        assert status is not None, "the killed worker never reached the chain leg"
        proc.send_signal(signal.SIGKILL)  # a crash: no graceful shutdown, no cleanup
        await proc.wait()

    # A fresh worker on the same queue finishes the transfer from the durable records.
    async with serving(temporal_env.client, deps, queue):
        final = await wait_final(client, transfer_id, within=60)
    assert final["status"] == "completed", final
    assert await deps.gateway.custody_balance(dst, "MCC") == 4 * UNIT
    assert await deps.gateway.custody_balance(src, "MCC") == 6 * UNIT
    status, attempts = await _chain_writes(deps, transfer_id)
    # One landed transaction. A kill between record and send leaves bytes never sent; resumed
    # after their blockhash expired (3.6 s on the tests' chain) they are re-signed once, which
    # cannot double-spend (docs/chain.md): every earlier attempt expired unlanded.
    assert status == "succeeded"
    assert attempts == ["expired"] * (len(attempts) - 1) + ["succeeded"]


async def _status_attribute(
    temporal_env: WorkflowEnvironment, transfer_id: str, within: float
) -> str | None:
    """The workflow's Status search attribute once it leaves `pending` (or at the deadline)."""
    handle = temporal_env.client.get_workflow_handle(transfer_workflow_id(transfer_id))
    deadline = asyncio.get_running_loop().time() + within
    status = None
    while asyncio.get_running_loop().time() < deadline:
        described = await handle.describe()
        status = described.typed_search_attributes.get(STATUS)
        if status not in (None, "pending"):
            break
        await asyncio.sleep(0.5)
    return status


class _Proxy:
    """A TCP proxy to the chain node that can be taken down and brought back (an outage)."""

    def __init__(self, target: str) -> None:
        parsed = urlparse(target)
        self.host, self.target_port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self.port = free_port()
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def up(self) -> None:
        self.server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port)

    async def down(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            writer.close()
            return

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))


async def test_chain_rpc_down_for_a_while_then_back(
    app_settings: Settings, own_queue_api: Callable[[str], Api], world: World,
    deps: WorkerDeps, temporal_env: WorkflowEnvironment, api: Api,
) -> None:  # fmt: skip
    proxy = _Proxy(app_settings.solana_rpc_url)
    behind_proxy = app_settings.model_copy(update={"solana_rpc_url": proxy.url})
    queue = f"outage-{uuid.uuid4().hex[:8]}"
    src = await funded_user(world, deps, api.project.project_id, 10 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    async with running_worker(temporal_env.client, behind_proxy, queue):
        client = own_queue_api(queue)
        r = await client.post("/v1/transfer/request", transfer_body(src, dst, "2"))
        assert r.status_code == 202, r.text
        transfer_id = r.json()["data"]["id"]
        await asyncio.sleep(3)  # the chain leg fails and retries while the RPC is unreachable
        pending = (await client.get(f"/v1/transfer/{transfer_id}")).json()["data"]["attributes"]
        assert pending["status"] == "pending_onchain"
        # Operators find it in Temporal by its status while it is stuck.
        assert await _status_attribute(temporal_env, transfer_id, within=40) == "pending_onchain"
        await proxy.up()
        try:
            final = await wait_final(client, transfer_id, within=60)
        finally:
            await proxy.down()
    assert final["status"] == "completed", final
    assert await deps.gateway.custody_balance(dst, "MCC") == 2 * UNIT
    status, attempts = await _chain_writes(deps, transfer_id)
    assert (status, attempts) == ("succeeded", ["succeeded"])
