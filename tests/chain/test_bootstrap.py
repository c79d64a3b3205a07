"""`mccgw chain-init` brings a cluster without our mints to the local genesis's state."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spl.token.constants import TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.gateway import ChainGateway
from chain.keys import ChainKeys, load_or_create_keys
from chain.rpc import ChainRpc
from core.config import Settings
from devchain.bootstrap import ensure_mints
from devchain.mints import dev_mints


def _gateway(
    rpc: ChainRpc,
    settings: Settings,
    keys: ChainKeys,
    session_maker: async_sessionmaker[AsyncSession],
) -> ChainGateway:
    return ChainGateway(
        settings,
        rpc,
        keys,
        session_maker,
        extra_signers=(keys.mcc_mint, keys.mcd_mint),
        poll_interval=0.05,
    )


async def test_creates_missing_mints_once(
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
    tmp_path: Path,
) -> None:
    rpc_url, _ = chain_node
    # Fresh keys: the node's genesis never saw these mints or this fee payer.
    keys = load_or_create_keys(tmp_path / "other-keys")
    async with ChainRpc(rpc_url) as rpc:
        gateway = _gateway(rpc, settings, keys, session_maker)
        assert await gateway.mint_info(keys.mcc_mint.pubkey()) is None

        first = await ensure_mints(gateway, dev_mints())
        assert [(m.currency, m.created) for m in first] == [("MCC", True), ("MCD", True)]
        for mint in (keys.mcc_mint, keys.mcd_mint):
            assert await gateway.mint_info(mint.pubkey()) == (keys.mint_authority.pubkey(), 9)
        assert await gateway.sol_balance(keys.fee_payer.pubkey()) > 0

        again = await ensure_mints(gateway, dev_mints())
        assert [m.created for m in again] == [False, False]
        assert [m.address for m in again] == [m.address for m in first]

        # The mints are real: the gateway can mint MCD into a custody account.
        await gateway.ensure_custody_account("u_boot", "MCD")
        await gateway.mint("boot-mint-1", "u_boot", 5, currency="MCD", timeout=30)
        assert await gateway.custody_balance("u_boot", "MCD") == 5


async def test_each_mint_gets_its_own_decimals_and_program(
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
    tmp_path: Path,
) -> None:
    """``mccgw chain-init --mcd-decimals 6 --mcd-token-2022`` (issue 29): MCC stays an SPL
    Token mint of 9 decimals, MCD gets 6 and Token-2022, the genesis's rule; the gateway then
    reads and uses them as it does the local node's."""
    rpc_url, _ = chain_node
    keys_dir = tmp_path / "mixed-keys"
    keys = load_or_create_keys(keys_dir)
    env = {
        **os.environ,
        "ENVIRONMENT": "test",
        "DATABASE_URL": settings.database_url,
        "SOLANA_RPC_URL": rpc_url,
        "CHAIN_KEYS_DIR": str(keys_dir),
        "MCCGW_DEV_DIR": "/nonexistent",
    }
    command = [sys.executable, "-m", "mccgw.cli", "chain-init"]
    command += ["--mcd-decimals", "6", "--mcd-token-2022"]
    done = await asyncio.to_thread(
        subprocess.run, command, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(": created") == 2, done.stdout
    async with ChainRpc(rpc_url) as rpc:
        gateway = _gateway(rpc, settings, keys, session_maker)
        owners = {}
        for currency, mint, decimals in (("MCC", keys.mcc_mint, 9), ("MCD", keys.mcd_mint, 6)):
            assert await gateway.mint_info(mint.pubkey()) == (
                keys.mint_authority.pubkey(),
                decimals,
            )
            account = await gateway.account(mint.pubkey(), "confirmed")
            assert account is not None
            owners[currency] = account.owner
        assert owners == {"MCC": TOKEN_PROGRAM_ID, "MCD": TOKEN_2022_PROGRAM_ID}
        # Asked again with other facts, it refuses rather than trusting the existing mint.
        with pytest.raises(RuntimeError, match="MCD mint"):
            await ensure_mints(gateway, dev_mints(6))

        read = await gateway.load_token_decimals(stored=False)
        assert (read.mcc, read.mcd) == (9, 6)
        await gateway.ensure_custody_account("u_mixed", "MCD")
        await gateway.mint("mixed-mint-1", "u_mixed", 1_500_000, currency="MCD", timeout=30)
        assert await gateway.custody_balance("u_mixed", "MCD") == 1_500_000
