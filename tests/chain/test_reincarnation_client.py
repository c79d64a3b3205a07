"""The Reincarnation price store through the local node and the chain gateway: the pool exists
from genesis, reads decode it, and write_update_price is exactly once per write key."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.instruction import AccountMeta
from solders.pubkey import Pubkey
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import reincarnation as rn
from chain.errors import ChainRejected, ChainWriteConflict
from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings
from db.models.chain import ChainTransaction, ChainTxAttempt
from devchain.node.ecosystem import POOL_NAME
from tests.chain.svm_util import decompile

GatewayFactory = Callable[..., Awaitable[ChainGateway]]


@pytest.fixture
async def client(worker_settings: Settings) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(worker_settings.solana_rpc_url, timeout=10) as c:
        yield c


@pytest.fixture
async def make_gateway(
    worker_settings: Settings, session_maker: async_sessionmaker[AsyncSession]
) -> AsyncIterator[GatewayFactory]:
    """Independent gateway instances: each one stands for a fresh process."""
    transports: list[ChainRpc] = []

    async def build(settings: Settings | None = None, **kwargs: object) -> ChainGateway:
        rpc = ChainRpc.of(worker_settings)
        transports.append(rpc)
        opts: dict[str, object] = {"poll_interval": 0.05}
        opts.update(kwargs)
        keys = load_or_create_keys(worker_settings.chain_keys_dir)
        return ChainGateway(settings or worker_settings, rpc, keys, session_maker, **opts)  # type: ignore[arg-type]

    yield build
    for rpc in transports:
        await rpc.aclose()


def key() -> str:
    return f"close-{uuid.uuid4().hex}"


async def rows(
    maker: async_sessionmaker[AsyncSession], op_key: str
) -> tuple[ChainTransaction, list[ChainTxAttempt]]:
    async with maker() as session:
        row = (
            await session.execute(select(ChainTransaction).where(ChainTransaction.op_key == op_key))
        ).scalar_one()
        attempts = (
            await session.execute(
                select(ChainTxAttempt).where(ChainTxAttempt.chain_tx_id == row.id)
            )
        ).scalars()
        return row, list(attempts)


async def test_genesis_pool_is_at_the_real_pda_with_the_gateway_as_authority(
    client: AsyncClient,
    make_gateway: GatewayFactory,
    worker_settings: Settings,
    chain_node: tuple[str, Path],
) -> None:
    keys = load_or_create_keys(chain_node[1])
    address = rn.pool_address(worker_settings)
    assert str(address) == "H3azAs4vdPKa1zVJ74dkGyUtNzpobE8fDKAn4BmZ26it"  # mainnet's PDA
    account = (await client.get_account_info(address)).value
    assert account is not None and str(account.owner) == worker_settings.reincarnation_program_id
    assert len(account.data) == rn.POOL_SPACE
    pool = await rn.read_reincarnation_pool(await make_gateway())
    assert pool.name == POOL_NAME and len(POOL_NAME.encode()) == 22
    assert pool.authority == keys.price_authority.pubkey()
    assert pool.mcc_mint == keys.mcc_mint.pubkey() and pool.mcd_mint == keys.mcd_mint.pubkey()
    assert pool.premium_bps == rn.DEFAULT_PREMIUM_BPS
    assert rn.MIN_BASE_PRICE <= pool.base_price <= rn.MAX_BASE_PRICE


async def test_read_refuses_a_missing_pool(
    make_gateway: GatewayFactory, worker_settings: Settings
) -> None:
    elsewhere = worker_settings.model_copy(
        update={"reincarnation_pool_address": "11111111111111111111111111111112"}
    )
    with pytest.raises(rn.PoolNotFound):
        await rn.read_reincarnation_pool(await make_gateway(elsewhere))


async def test_write_update_price_is_exactly_once_per_key(
    make_gateway: GatewayFactory,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    gw = await make_gateway()
    write_key = key()
    price = 10_000_000 + uuid.uuid4().int % 1_000_000
    signature = await rn.write_update_price(gw, write_key=write_key, new_base_price=price)
    pool = await rn.read_reincarnation_pool(gw, "finalized")
    assert pool.base_price == price

    # A retry (same process, then a fresh one) returns the same signature and sends nothing.
    assert await rn.write_update_price(gw, write_key=write_key, new_base_price=price) == signature
    again = await make_gateway()
    assert (
        await rn.write_update_price(again, write_key=write_key, new_base_price=price) == signature
    )
    row, attempts = await rows(session_maker, rn.update_price_op_key(write_key))
    assert (row.status, row.kind, row.attempt, row.send_count) == (
        "succeeded",
        "price_update",
        1,
        1,
    )
    assert [a.signature for a in attempts] == [signature]
    # The transaction the gateway recorded and sent: exactly update_price, as on mainnet.
    payer, [ix] = decompile(attempts[0].tx_bytes)
    assert payer == gw.keys.fee_payer.pubkey()
    assert ix.program_id == Pubkey.from_string("REn8oKyydvjRsistZ2cVi6tksPubvR3bEuLdVTyGknb")
    assert bytes(ix.data) == bytes.fromhex("3d22759b4b227bd0") + price.to_bytes(8, "little")
    assert ix.accounts == [
        AccountMeta(gw.keys.price_authority.pubkey(), is_signer=True, is_writable=False),
        AccountMeta(
            Pubkey.from_string("H3azAs4vdPKa1zVJ74dkGyUtNzpobE8fDKAn4BmZ26it"),
            is_signer=False,
            is_writable=True,
        ),
    ]

    # The key is bound to its price: reusing it for another one is refused, nothing is sent.
    with pytest.raises(ChainWriteConflict):
        await rn.write_update_price(gw, write_key=write_key, new_base_price=price + 1)
    assert (await rn.read_reincarnation_pool(gw)).base_price == price


async def test_crash_after_record_before_send_resumes_the_same_transaction(
    make_gateway: GatewayFactory,
    worker_settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    first = await make_gateway()
    write_key = key()
    price = 20_000_000 + uuid.uuid4().int % 1_000_000
    ix = rn.update_price_instruction(
        program_id=rn.program_id(worker_settings),
        pool=rn.pool_address(worker_settings),
        authority=first.keys.price_authority.pubkey(),
        new_base_price=price,
    )
    # The process records the write and dies before sending it.
    prepared = await first.prepare(rn.update_price_op_key(write_key), [ix], kind="price_update")
    assert prepared.send_count == 0

    # Several fresh processes retry at once: one transaction, the recorded one, lands.
    others = [await make_gateway() for _ in range(3)]
    signatures = await asyncio.gather(
        *(rn.write_update_price(g, write_key=write_key, new_base_price=price) for g in others)
    )
    assert set(signatures) == {prepared.signature}
    _, attempts = await rows(session_maker, rn.update_price_op_key(write_key))
    assert [(a.attempt, a.status) for a in attempts] == [(1, "succeeded")]
    pool = await rn.read_reincarnation_pool(others[0], "finalized")
    assert pool.base_price == price


async def test_out_of_range_price_is_refused_before_any_write(
    make_gateway: GatewayFactory, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    gw = await make_gateway()
    write_key = key()
    for price in (rn.MIN_BASE_PRICE - 1, rn.MAX_BASE_PRICE + 1):
        with pytest.raises(rn.PriceOutOfRange):
            await rn.write_update_price(gw, write_key=write_key, new_base_price=price)
    async with session_maker() as session:
        op_key = rn.update_price_op_key(write_key)
        found = await session.scalar(
            select(ChainTransaction.id).where(ChainTransaction.op_key == op_key)
        )
    assert found is None


async def test_a_refusal_by_the_program_is_a_chain_rejection(
    make_gateway: GatewayFactory, worker_settings: Settings, tmp_path: Path
) -> None:
    # A gateway whose price key is not the pool's authority (another operator's keys dir).
    stranger = load_or_create_keys(tmp_path / "keys").price_authority
    gw = await make_gateway(extra_signers=[stranger])
    gw._keys = dataclasses.replace(gw.keys, price_authority=stranger)
    with pytest.raises(ChainRejected) as refused:
        await rn.write_update_price(gw, write_key=key(), new_base_price=15_000_000)
    assert refused.value.err == {
        "InstructionError": [0, {"Custom": rn.ReincarnationError.UNAUTHORIZED}]
    }
