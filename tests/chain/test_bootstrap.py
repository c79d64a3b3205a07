"""`mccgw chain-init` brings a cluster without our mints to the local genesis's state."""

from __future__ import annotations

from pathlib import Path

from solana.rpc.async_api import AsyncClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from core.config import Settings
from devchain.bootstrap import ensure_mints


async def test_creates_missing_mints_once(
    chain_node: tuple[str, Path],
    settings: Settings,
    session_maker: async_sessionmaker[AsyncSession],
    tmp_path: Path,
) -> None:
    rpc_url, _ = chain_node
    # Fresh keys: the node's genesis never saw these mints or this fee payer.
    keys = load_or_create_keys(tmp_path / "other-keys")
    async with AsyncClient(rpc_url) as client:
        gateway = ChainGateway(
            settings,
            client,
            keys,
            session_maker,
            extra_signers=(keys.mcc_mint, keys.mcd_mint),
            poll_interval=0.05,
        )
        assert await gateway.mint_info(keys.mcc_mint.pubkey()) is None

        first = await ensure_mints(gateway, decimals=9)
        assert [(m.currency, m.created) for m in first] == [("MCC", True), ("MCD", True)]
        for mint in (keys.mcc_mint, keys.mcd_mint):
            assert await gateway.mint_info(mint.pubkey()) == (keys.mint_authority.pubkey(), 9)
        assert await gateway.sol_balance(keys.fee_payer.pubkey()) > 0

        again = await ensure_mints(gateway, decimals=9)
        assert [m.created for m in again] == [False, False]
        assert [m.address for m in again] == [m.address for m in first]

        # The mints are real: the gateway can mint MCD into a custody account.
        await gateway.ensure_custody_account("u_boot", "MCD")
        await gateway.mint("boot-mint-1", "u_boot", 5, currency="MCD", timeout=30)
        assert await gateway.custody_balance("u_boot", "MCD") == 5
