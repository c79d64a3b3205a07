"""An operator's cancel of a transfer whose chain write was signed (engine/operators.py): the
gateway decides whether the write can still land (ChainGateway.abandon, the rule of
chain/writes.py), and the transfer's cancel and the write's close commit together."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import select

from activities.deps import WorkerDeps
from chain.custody import CustodyTransfer
from chain.decimals import TokenDecimals
from core.errors import InvalidState
from db.last import flush_last
from db.models.chain import ChainTransaction, ChainTxAttempt
from db.models.engine import Transfer
from engine import operators, transfers
from tests.engine.conftest import UNIT, Api, funded_user
from tests.engine.test_transfers import books
from tests.factories import World


async def _signed_unsent(api: Api, world: World, deps: WorkerDeps) -> tuple[str, str, str, int]:
    """A transfer claimed by a chain write that was signed and recorded but never sent (a
    process died right after): (transfer id, op_key, source uid, lastValidBlockHeight)."""
    src = await funded_user(world, deps, api.project.project_id, 5 * UNIT)
    dst = await funded_user(world, deps, api.project.project_id, 0)
    transfer_id = f"tr_{uuid.uuid4().hex}"
    op_key = transfers.op_key_for(transfer_id)
    async with deps.sessions() as s:
        await transfers.create(
            s, transfers.NewTransfer(
                transfer_id=transfer_id, project_id=api.project.project_id,
                transfer_type="test", from_uid=src, to_uid=dst, currency="MCC", amount=2 * UNIT,
                reference={}, requires_onchain=True,
            ), TokenDecimals(9, 9),
        )  # fmt: skip
        await flush_last(s)
        await s.commit()
    async with deps.sessions() as s:
        assert [t.id for t in await transfers.claim(s, [transfer_id], op_key)] == [transfer_id]
        await s.commit()
    await deps.gateway.ensure_custody_account(dst, "MCC")
    ix = deps.gateway.transfer_instruction(CustodyTransfer("MCC", src, dst, 2 * UNIT))
    write = await deps.gateway.prepare(op_key, [ix], kind="transfer")
    assert write.status == "signed"  # would land if sent (simulated)
    return transfer_id, op_key, src, write.last_valid_block_height


async def _cancel(deps: WorkerDeps, transfer_id: str) -> str:
    async with deps.sessions() as s:
        nine = TokenDecimals(9, 9)
        ended = await operators.cancel(s, deps.gateway, transfer_id, "operator: test", nine)
        await s.commit()
        return ended.status


async def test_cancel_waits_until_the_write_can_no_longer_land(
    api: Api, world: World, deps: WorkerDeps
) -> None:
    transfer_id, op_key, src, last_valid = await _signed_unsent(api, world, deps)
    assert await books(deps, src) == (5 * UNIT, 0, 2 * UNIT)  # balance, held, pending out

    with pytest.raises(InvalidState) as refused:
        await _cancel(deps, transfer_id)
    assert refused.value.extra["last_valid_block_height"] == last_valid
    assert refused.value.extra["finalized_block_height"] <= last_valid
    async with deps.sessions() as s:
        assert (await s.get(Transfer, transfer_id)).status == "pending_onchain"  # type: ignore[union-attr]
        row = await s.scalar(select(ChainTransaction).where(ChainTransaction.op_key == op_key))
        assert row is not None and row.status == "signed"

    for _ in range(600):  # past lastValidBlockHeight at finalized: the bytes can never land
        if await deps.gateway.block_height("finalized") > last_valid:
            break
        await asyncio.sleep(0.05)
    assert await _cancel(deps, transfer_id) == "cancelled"
    async with deps.sessions() as s:
        row = await s.scalar(select(ChainTransaction).where(ChainTransaction.op_key == op_key))
        assert row is not None and (row.status, row.err) == (
            "failed", {"operator_cancelled": "operator: test"},
        )  # fmt: skip
        attempts = (
            await s.scalars(
                select(ChainTxAttempt.status).where(ChainTxAttempt.chain_tx_id == row.id)
            )
        ).all()
        assert attempts == ["expired"]
    assert await books(deps, src) == (5 * UNIT, 0, 0)  # the hold is released, nothing moved
    # The write is closed for good: no process re-signs it.
    again = await deps.gateway.advance(op_key)
    assert (again.status, again.attempt, again.send_count) == ("failed", 1, 0)
