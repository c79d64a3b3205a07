"""The chain gateway against the real local node and the real database: custody, reads, batching
(the exactly-once write protocol is in ``test_gateway_writes.py``).

Every assertion about money reads real SPL balances at ``finalized``; every assertion about
exactly-once reads the stored rows and the signatures' statuses on chain.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.blocks import BlockReader
from chain.custody import CustodyMint, CustodyTransfer, parse_token_account
from chain.errors import ChainUnavailable, ChainWriteConflict
from chain.gateway import ChainGateway
from chain.keys import ChainKeys, load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings
from core.embedded import free_port
from db.models.chain import ChainTransaction
from tests.chain.gateway_support import (  # noqa: F401  (fixtures)
    UNIT,
    chain_status,
    funded,
    gw_fixture,
    make_gateway_fixture,
    op,
    row,
    uid,
)

# --------------------------------------------------------------------- custody


async def test_custody_account_is_derived_and_created_once(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    user = uid()
    address = gw.custody_address(user, "MCC")
    assert address == gw.custody_address(user, "mcc")
    assert address != gw.custody_address(user, "MCD")
    assert address != gw.custody_address(uid(), "MCC")
    assert await gw.token_balance(address) == 0  # does not exist yet

    assert await gw.ensure_custody_account(user, "MCC") == address
    assert await gw.ensure_custody_account(user, "MCC") == address  # exists -> no-op

    async with AsyncClient(gw.rpc.url) as outside:
        info = (await outside.get_account_info(address)).value
    assert info is not None
    keys: ChainKeys = gw.keys
    account = await gw.account(address, "finalized")
    state = parse_token_account(account.data) if account is not None else None
    assert state is not None
    assert state.owner == keys.custody_authority.pubkey()
    assert state.mint == keys.mcc_mint.pubkey()
    record = await row(session_maker, f"custody:{address}")
    assert (record.status, record.attempt, record.kind) == ("succeeded", 1, "custody")


# -------------------------------------------------------------- writes + reads


async def test_mint_and_transfer_move_real_balances(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    alice = await funded(gw, "MCC", 1_000 * UNIT)
    bob = await funded(gw, "MCC", 0)
    assert await gw.custody_balance(alice, "MCC") == 1_000 * UNIT

    key = op()
    write = await gw.transfer(key, "MCC", alice, bob, 300 * UNIT + 7)
    assert write.succeeded and write.err is None
    assert write.confirmation_status == "finalized" and write.slot is not None
    assert await gw.custody_balance(alice, "MCC") == 700 * UNIT - 7
    assert await gw.custody_balance(bob, "MCC") == 300 * UNIT + 7

    stored = await row(session_maker, key)
    assert stored.status == "succeeded"
    assert stored.signature == write.signature
    assert stored.meta["transfers"][0]["amount"] == str(300 * UNIT + 7)
    status = await chain_status(gw, write.signature)
    assert status is not None and status.err is None

    # The same op_key again: nothing is sent, nothing moves.
    again = await gw.submit_transfers(key, [CustodyTransfer("MCC", alice, bob, 300 * UNIT + 7)])
    assert again.status == "succeeded" and again.send_count == write.send_count
    assert await gw.custody_balance(bob, "MCC") == 300 * UNIT + 7
    # ... but the same op_key for something else is refused.
    with pytest.raises(ChainWriteConflict):
        await gw.submit_transfers(key, [CustodyTransfer("MCC", alice, bob, 1)])


async def test_mcd_reward_mint(gw: ChainGateway) -> None:
    miner = await funded(gw, "MCD", 0)
    write = await gw.mint(op(), miner, 42 * UNIT)  # MCD by default
    assert write.succeeded
    assert await gw.custody_balance(miner, "MCD") == 42 * UNIT
    assert await gw.custody_balance(miner, "MCC") == 0


async def test_reads(gw: ChainGateway) -> None:
    assert await gw.sol_balance(gw.keys.fee_payer.pubkey()) > 0
    assert await gw.sol_balance(Keypair().pubkey()) == 0
    assert await gw.token_balance(str(Keypair().pubkey())) == 0
    await gw.load_token_decimals()  # transfer_checked carries the mint's decimals
    with pytest.raises(TypeError):
        gw.transfer_instruction(CustodyTransfer("MCC", uid(), uid(), 1.5))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        gw.mint_instruction(CustodyMint("MCD", uid(), 0))


# ------------------------------------------------------------------- batching


async def test_batch_of_transfers_in_one_transaction(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    a = await funded(gw, "MCC", 100 * UNIT)
    b, c, d = [await funded(gw, "MCC", 0) for _ in range(3)]
    m = await funded(gw, "MCD", 0)
    key = op()
    transfers = [
        CustodyTransfer("MCC", a, b, 10 * UNIT),
        CustodyTransfer("MCC", a, c, 20 * UNIT),
        CustodyTransfer("MCC", c, d, 5 * UNIT),  # uses what the previous instruction moved
    ]
    ix = [gw.transfer_instruction(t) for t in transfers]
    ix.append(gw.mint_instruction(CustodyMint("MCD", m, 3 * UNIT)))
    await gw.submit(key, ix, kind="batch")
    final = await gw.await_final(key, 30)
    assert final.succeeded

    assert await gw.custody_balance(a, "MCC") == 70 * UNIT
    assert await gw.custody_balance(b, "MCC") == 10 * UNIT
    assert await gw.custody_balance(c, "MCC") == 15 * UNIT
    assert await gw.custody_balance(d, "MCC") == 5 * UNIT
    assert await gw.custody_balance(m, "MCD") == 3 * UNIT
    async with session_maker() as session:
        count = len(
            (
                await session.execute(
                    select(ChainTransaction).where(ChainTransaction.signature == final.signature)
                )
            )
            .scalars()
            .all()
        )
    assert count == 1  # one transaction, one fee payer, four instructions

    # The signatures of c's account show that single transaction with both of its movements.
    custody_c = gw.custody_address(c, "MCC")
    walked = await BlockReader(gw.rpc).signatures_of(str(custody_c))
    assert walked[-1].signature == final.signature
    assert len(walked) >= 2  # the account's creation before it
    tx = await gw.transaction(final.signature)
    assert tx is not None and tx.slot == walked[-1].slot and tx.err is None
    change = {ch.account: ch for ch in tx.token_changes}[str(custody_c)]
    assert (change.pre, change.post) == (0, 15 * UNIT)


async def test_check_many_in_one_status_call(gw: ChainGateway) -> None:
    users = [await funded(gw, "MCD", 0) for _ in range(3)]
    keys = [op() for _ in users]
    for key, user in zip(keys, users, strict=True):
        await gw.submit_mints(key, [CustodyMint("MCD", user, 1 * UNIT)])
    for _ in range(200):
        states = await gw.check_many([*keys, "no-such-op"])
        if all(s.final for s in states.values()):
            break
        await asyncio.sleep(0.1)
    assert set(states) == set(keys)
    assert {s.status for s in states.values()} == {"succeeded"}
    for user in users:
        assert await gw.custody_balance(user, "MCD") == 1 * UNIT
    assert not set(keys) & set(await gw.open_writes())


async def test_rpc_down_is_retryable_and_records_stay_consistent(
    gw: ChainGateway,
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    user = await funded(gw, "MCD", 0)
    key = op()
    ix = [gw.mint_instruction(CustodyMint("MCD", user, 5))]
    await gw.prepare(key, ix, kind="mint")

    _, keys_dir = chain_node
    async with ChainRpc(f"http://127.0.0.1:{free_port()}", timeout=2) as dead:
        down = ChainGateway(settings, dead, load_or_create_keys(keys_dir), session_maker)
        with pytest.raises(ChainUnavailable):
            await down.await_final(key, 5)
        with pytest.raises(ChainUnavailable):  # nothing can be signed without a blockhash
            await down.submit(op(), ix)
    assert (await row(session_maker, key)).status == "signed"  # untouched by the failures

    assert (await gw.await_final(key, 30)).succeeded
    assert await gw.custody_balance(user, "MCD") == 5
