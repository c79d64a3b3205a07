"""The chain gateway against the real local node and the real database.

Every assertion about money reads real SPL balances at ``finalized``; every assertion about
exactly-once reads the stored rows and the signatures' statuses on chain.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.signature import Signature
from solders.transaction_status import TransactionStatus
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody import CustodyMint, CustodyTransfer
from chain.errors import ChainUnavailable, ChainWriteConflict, InsufficientChainFunds
from chain.gateway import ChainGateway
from chain.keys import ChainKeys, load_or_create_keys
from core.config import Settings
from core.embedded import free_port
from db.models.chain import ChainTransaction, ChainTxAttempt

UNIT = 10**9  # 9 decimals

GatewayFactory = Callable[..., Awaitable[ChainGateway]]


@pytest.fixture
async def make_gateway(
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> AsyncIterator[GatewayFactory]:
    """Build independent gateway instances: each one stands for a fresh process."""
    url, keys_dir = chain_node
    clients: list[AsyncClient] = []

    async def build(**kwargs: object) -> ChainGateway:
        client = AsyncClient(url, timeout=10)
        clients.append(client)
        cfg = settings.model_copy(update={"solana_rpc_url": url, "chain_keys_dir": keys_dir})
        opts: dict[str, object] = {"poll_interval": 0.05, "max_poll_interval": 0.3}
        opts.update(kwargs)
        return ChainGateway(cfg, client, load_or_create_keys(keys_dir), session_maker, **opts)  # type: ignore[arg-type]

    yield build
    for client in clients:
        await client.close()


@pytest.fixture
async def gw(make_gateway: GatewayFactory) -> ChainGateway:
    return await make_gateway()


def uid() -> str:
    return f"user-{uuid.uuid4().hex[:12]}"


def op() -> str:
    return f"test-op-{uuid.uuid4().hex}"


async def funded(gw: ChainGateway, currency: str, amount: int) -> str:
    """A fresh user whose custody account holds ``amount`` (minted, finalized)."""
    user = uid()
    await gw.ensure_custody_account(user, currency)
    if amount:
        await gw.mint(op(), user, amount, currency=currency)
    return user


async def row(maker: async_sessionmaker[AsyncSession], op_key: str) -> ChainTransaction:
    async with maker() as session:
        result = await session.execute(
            select(ChainTransaction).where(ChainTransaction.op_key == op_key)
        )
        return result.scalar_one()


async def attempt_rows(
    maker: async_sessionmaker[AsyncSession], op_key: str
) -> list[ChainTxAttempt]:
    async with maker() as session:
        result = await session.execute(
            select(ChainTxAttempt)
            .join(ChainTransaction, ChainTransaction.id == ChainTxAttempt.chain_tx_id)
            .where(ChainTransaction.op_key == op_key)
            .order_by(ChainTxAttempt.attempt)
        )
        return list(result.scalars())


async def chain_status(gw: ChainGateway, signature: str) -> TransactionStatus | None:
    resp = await gw._client.get_signature_statuses(
        [Signature.from_string(signature)], search_transaction_history=True
    )
    return resp.value[0]


async def wait_until_expired(gw: ChainGateway, last_valid_block_height: int) -> None:
    for _ in range(600):
        if await gw.block_height("finalized") > last_valid_block_height:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("blockhash never expired")


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

    info = (await gw._client.get_account_info(address)).value
    assert info is not None
    keys: ChainKeys = gw.keys
    state = await gw._token_account(address, "finalized")
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


# ------------------------------------------------------------- exactly once


async def test_crash_between_persist_and_send(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    alice = await funded(gw, "MCC", 50 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    ix = [gw.transfer_instruction(CustodyTransfer("MCC", alice, bob, 20 * UNIT))]

    # "Crash": the record is committed, the process dies before sending.
    prepared = await gw.prepare(key, ix, kind="transfer")
    assert prepared.status == "signed" and prepared.send_count == 0
    assert (await row(session_maker, key)).status == "signed"
    assert await chain_status(gw, prepared.signature) is None

    # Several fresh processes retry at once; exactly one transfer lands.
    others = [await make_gateway() for _ in range(3)]
    await asyncio.gather(*(g.submit(key, ix, kind="transfer") for g in others))
    finals = await asyncio.gather(*(g.await_final(key, 30) for g in others))
    assert {f.status for f in finals} == {"succeeded"}
    assert {f.signature for f in finals} == {prepared.signature}  # the SAME bytes were sent
    assert all(f.attempt == 1 for f in finals)

    assert await gw.custody_balance(alice, "MCC") == 30 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 20 * UNIT
    attempts = await attempt_rows(session_maker, key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "succeeded")]


async def test_crash_between_send_and_confirmation(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    alice = await funded(gw, "MCC", 10 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 4 * UNIT)]

    first = await make_gateway()
    sent = await first.submit_transfers(key, transfers)
    assert sent.status == "sent" and sent.send_count == 1
    await first._client.close()  # the process is gone before any confirmation

    second = await make_gateway()
    retried = await second.submit_transfers(key, transfers)  # a retry of the activity
    assert retried.signature == sent.signature
    final = await second.await_final(key, 30)
    assert final.succeeded and final.attempt == 1 and final.previous_signatures == ()

    assert await gw.custody_balance(alice, "MCC") == 6 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 4 * UNIT
    stored = await row(session_maker, key)
    assert (stored.status, stored.attempt, stored.signature) == ("succeeded", 1, sent.signature)


async def test_expired_blockhash_is_resigned_exactly_once(
    gw: ChainGateway,
    make_gateway: GatewayFactory,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    alice = await funded(gw, "MCC", 9 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 2 * UNIT)]
    ix = [gw.transfer_instruction(t) for t in transfers]

    prepared = await gw.prepare(key, ix, kind="transfer")  # signed, persisted, never sent
    await wait_until_expired(gw, prepared.last_valid_block_height)

    retry = await make_gateway()
    resubmitted, concurrent = await asyncio.gather(
        retry.submit(key, ix, kind="transfer"), (await make_gateway()).advance(key)
    )
    assert resubmitted.attempt == 2 and concurrent.attempt == 2  # re-signed once, not twice
    assert resubmitted.signature == concurrent.signature != prepared.signature
    assert resubmitted.previous_signatures == (prepared.signature,)
    final = await retry.await_final(key, 30)
    assert final.succeeded and final.attempt == 2

    assert await chain_status(gw, prepared.signature) is None  # the first never landed
    assert await gw.custody_balance(alice, "MCC") == 7 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 2 * UNIT
    attempts = await attempt_rows(session_maker, key)
    assert [(a.attempt, a.status) for a in attempts] == [(1, "expired"), (2, "succeeded")]
    assert attempts[0].signature == prepared.signature


async def test_failed_on_chain_is_terminal(
    make_gateway: GatewayFactory, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    # Without simulation the doomed transfer is sent and lands with an error.
    gw = await make_gateway(simulate=False)
    alice = await funded(gw, "MCC", 5 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    transfers = [CustodyTransfer("MCC", alice, bob, 6 * UNIT)]

    sent = await gw.submit_transfers(key, transfers)
    assert sent.send_count == 1
    final = await gw.await_final(key, 30)
    assert final.status == "failed"
    assert final.err == {"InstructionError": [0, {"Custom": 1}]}  # SPL InsufficientFunds
    assert final.insufficient_funds
    with pytest.raises(InsufficientChainFunds):
        final.raise_for_failure()
    landed = await chain_status(gw, final.signature)
    assert landed is not None and landed.err is not None

    # Retries never re-send nor re-sign it.
    again = await (await make_gateway()).submit_transfers(key, transfers)
    assert (again.status, again.attempt, again.send_count) == ("failed", 1, 1)
    stored = await row(session_maker, key)
    assert (stored.status, stored.attempt, stored.send_count) == ("failed", 1, 1)
    assert stored.err == final.err
    assert await gw.custody_balance(alice, "MCC") == 5 * UNIT
    assert await gw.custody_balance(bob, "MCC") == 0


async def test_simulation_rejects_without_sending(
    gw: ChainGateway, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    alice = await funded(gw, "MCC", 1 * UNIT)
    bob = await funded(gw, "MCC", 0)
    key = op()
    write = await gw.submit_transfers(key, [CustodyTransfer("MCC", alice, bob, 2 * UNIT)])
    assert write.status == "failed" and write.send_count == 0 and write.insufficient_funds
    assert await chain_status(gw, write.signature) is None  # never broadcast
    assert (await row(session_maker, key)).status == "failed"
    assert (await gw.await_final(key, 5)).status == "failed"
    assert await gw.custody_balance(alice, "MCC") == 1 * UNIT


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

    # The history of c's account shows that single transaction with both of its movements.
    history = await gw.history(gw.custody_address(c, "MCC"), limit=10)
    assert history[0].signature == final.signature
    change = {ch.account: ch for ch in history[0].token_changes}[str(gw.custody_address(c, "MCC"))]
    assert (change.pre, change.post) == (0, 15 * UNIT)
    older = await gw.history(gw.custody_address(c, "MCC"), before=final.signature, limit=10)
    assert final.signature not in {h.signature for h in older}
    assert len(older) >= 1  # the account's creation


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
    async with AsyncClient(f"http://127.0.0.1:{free_port()}", timeout=2) as dead:
        down = ChainGateway(settings, dead, load_or_create_keys(keys_dir), session_maker)
        with pytest.raises(ChainUnavailable):
            await down.await_final(key, 5)
        with pytest.raises(ChainUnavailable):  # nothing can be signed without a blockhash
            await down.submit(op(), ix)
    assert (await row(session_maker, key)).status == "signed"  # untouched by the failures

    assert (await gw.await_final(key, 30)).succeeded
    assert await gw.custody_balance(user, "MCD") == 5
