"""Fixtures and helpers of the chain gateway tests (``test_gateway*.py``): independent gateway
instances on the session's node and database (each one stands for a fresh process), stored rows,
signature statuses on chain."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.signature import Signature
from solders.transaction_status import TransactionStatus
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings
from db.models.chain import ChainTransaction, ChainTxAttempt

UNIT = 10**9  # 9 decimals

GatewayFactory = Callable[..., Awaitable[ChainGateway]]


@pytest.fixture(name="make_gateway")
async def make_gateway_fixture(
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> AsyncIterator[GatewayFactory]:
    """Build independent gateway instances: each one stands for a fresh process."""
    url, keys_dir = chain_node
    transports: list[ChainRpc] = []

    async def build(**kwargs: object) -> ChainGateway:
        rpc = ChainRpc(url)
        transports.append(rpc)
        cfg = settings.model_copy(update={"solana_rpc_url": url, "chain_keys_dir": keys_dir})
        opts: dict[str, object] = {"poll_interval": 0.05}
        opts.update(kwargs)
        return ChainGateway(cfg, rpc, load_or_create_keys(keys_dir), session_maker, **opts)  # type: ignore[arg-type]

    yield build
    for rpc in transports:
        await rpc.aclose()


@pytest.fixture(name="gw")
async def gw_fixture(make_gateway: GatewayFactory) -> ChainGateway:
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
    """The signature's status as an outside client (solana-py) sees it on the gateway's node."""
    async with AsyncClient(gw.rpc.url, timeout=10) as client:
        resp = await client.get_signature_statuses(
            [Signature.from_string(signature)], search_transaction_history=True
        )
    return resp.value[0]


async def wait_until_expired(gw: ChainGateway, last_valid_block_height: int) -> None:
    for _ in range(600):
        if await gw.block_height("finalized") > last_valid_block_height:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("blockhash never expired")
