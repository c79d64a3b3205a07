"""Item 10: lamports sent to a user's derivable custody address before it exists cannot block
the account (nor every credit to that user)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody import custody_address
from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings


@pytest.fixture
async def gateway(
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
) -> AsyncIterator[ChainGateway]:
    url, keys_dir = chain_node
    rpc = ChainRpc(url)
    cfg = settings.model_copy(update={"solana_rpc_url": url, "chain_keys_dir": keys_dir})
    yield ChainGateway(
        cfg,
        rpc,
        load_or_create_keys(keys_dir),
        session_maker,
        poll_interval=0.05,
    )
    await rpc.aclose()


async def _airdrop(client: AsyncClient, address: object, lamports: int) -> None:
    await client.request_airdrop(address, lamports)  # type: ignore[arg-type]
    for _ in range(200):
        if (await client.get_balance(address, "finalized")).value >= lamports:  # type: ignore[arg-type]
            return
        await asyncio.sleep(0.05)
    raise AssertionError("airdrop did not land")


@pytest.mark.parametrize("lamports", [1_000_000, 10_000_000])  # below, above the rent
async def test_item10_prefunded_custody_address_still_becomes_the_users_account(
    gateway: ChainGateway, chain_node: tuple[str, Path], lamports: int
) -> None:
    url, keys_dir = chain_node
    keys = load_or_create_keys(keys_dir)
    uid = f"victim-{uuid.uuid4().hex[:10]}"
    address = custody_address(keys, uid, "MCC")
    async with AsyncClient(url) as client:
        await _airdrop(client, address, lamports)  # the attacker front-runs the gateway
    created = await gateway.ensure_custody_account(uid, "MCC")
    assert created == address
    await gateway.mint(f"sec-mint-{uuid.uuid4().hex}", uid, 5, currency="MCC")
    assert await gateway.custody_balance(uid, "MCC", "finalized") == 5


async def test_item10_user_blocked_before_the_fix_recovers(
    gateway: ChainGateway, chain_node: tuple[str, Path]
) -> None:
    """A creation that failed over pre-funded lamports under the old instruction (recorded as
    a failed op) does not keep the user blocked."""
    from solders.system_program import CreateAccountWithSeedParams, create_account_with_seed
    from spl.token.constants import ACCOUNT_LEN, TOKEN_PROGRAM_ID

    from chain.custody import custody_seed

    url, keys_dir = chain_node
    keys = load_or_create_keys(keys_dir)
    uid = f"blocked-{uuid.uuid4().hex[:10]}"
    address = custody_address(keys, uid, "MCC")
    async with AsyncClient(url) as client:
        await _airdrop(client, address, 1_000_000)
    old = create_account_with_seed(
        CreateAccountWithSeedParams(
            from_pubkey=keys.fee_payer.pubkey(),
            to_pubkey=address,
            base=keys.custody_authority.pubkey(),
            seed=custody_seed(keys.mint_for("MCC"), uid),
            lamports=3_000_000,
            space=ACCOUNT_LEN,
            owner=TOKEN_PROGRAM_ID,
        )
    )
    await gateway.submit(f"custody:{address}", [old], kind="custody", meta={})
    assert (await gateway.await_final(f"custody:{address}", 60)).status == "failed"
    assert await gateway.ensure_custody_account(uid, "MCC") == address
    await gateway.mint(f"sec-mint-{uuid.uuid4().hex}", uid, 7, currency="MCC")
    assert await gateway.custody_balance(uid, "MCC", "finalized") == 7
