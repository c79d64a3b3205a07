"""Money in the demo: the dev stack's demo users get real tokens through the deposit path, and
the dev chain gets an MCC/USDC market pool for the price oracle.

A faucet wallet (``dev_faucet.json`` in the keys dir, an OUTSIDE wallet: the gateway never
signs for it) receives MCC and MCD from the mint authority, then sends each demo user's amount
to that user's custody account (deposit address) in one ordinary SPL transaction. The deposit
watcher sees that transaction at ``finalized`` and credits each user once, exactly as it would
a deposit from any wallet (funds.deposited events included). The pool is a USDC-like mint
(``dev_usdc_mint.json``, 6 decimals) and the two vaults of ``dev_pool_owner.json``: 1,000,000
MCC against 10,500,000 USDC, a market price of 10.5 USDC per MCC.

Idempotent across restarts: the faucet's mints are gateway writes with fixed op keys; a user
who already holds the deposit (credited, or on chain waiting for the watcher) is not sent it
again; pool steps already on chain are skipped.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from spl.token.instructions import get_associated_token_address, transfer_checked
from spl.token.models import TransferCheckedParams
from sqlalchemy import select

from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys, read_keypair, write_keypair
from core.config import Settings
from db.models.tokens import Deposit
from db.session import create_db_engine, create_session_maker
from devchain.market_pool import MarketPool, ensure_market_pool
from devchain.outside import OutsideWallet
from tokens.deposits import DepositScanner, register

# Whole tokens per demo user (decisions.md: alice 10,000 MCC and 1,000 MCD).
DEMO_FUNDS: dict[str, dict[str, int]] = {
    "alice": {"MCC": 10_000, "MCD": 1_000},
    "bob": {"MCC": 5_000, "MCD": 500},
}
FAUCET_SUPPLY = 1_000_000  # whole tokens of each currency minted once to the faucet
POOL_MCC = 1_000_000
POOL_USDC = 10_500_000


def _keypair(keys_dir: Path, name: str) -> Keypair:
    path = keys_dir / f"{name}.json"
    if not path.exists():
        write_keypair(path, Keypair())
    return read_keypair(path)


def market_pool_settings(keys_dir: Path, mcc_mint: Pubkey) -> dict[str, str]:
    """The dev pool's vault addresses (no chain call): settings for every process."""
    usdc = _keypair(keys_dir, "dev_usdc_mint").pubkey()
    owner = _keypair(keys_dir, "dev_pool_owner").pubkey()
    return {
        "MARKET_POOL_MCC_VAULT": str(get_associated_token_address(owner, mcc_mint)),
        "MARKET_POOL_USDC_VAULT": str(get_associated_token_address(owner, usdc)),
    }


async def fund_demo(settings: Settings, users: list[dict[str, Any]]) -> dict[str, Any]:
    """Create the pool and deposit the demo users' funds; returns what demo.json shows."""
    keys_dir = Path(settings.chain_keys_dir)
    keys = load_or_create_keys(keys_dir)
    engine = create_db_engine(settings)
    sessions = create_session_maker(engine)
    try:
        async with AsyncClient(settings.solana_rpc_url, timeout=30) as client:
            gateway = ChainGateway(settings, client, keys, sessions)
            scanner = DepositScanner(sessions, gateway, client)
            decimals = await gateway.load_token_decimals()
            faucet = OutsideWallet(_keypair(keys_dir, "dev_faucet"), client)
            await faucet.ensure_sol(gateway, 100 * 10**9)
            wanted = [
                (u["uid"], cur, whole * 10 ** decimals.of(cur))
                for u in users
                for cur, whole in DEMO_FUNDS.get(u["username"], {}).items()
            ]
            async with sessions() as session:
                for uid, cur, _ in wanted:
                    await register(session, gateway.keys, uid, cur)
                await session.commit()
            # All independent chain steps at once: one finality wait instead of many.
            results = await asyncio.gather(
                ensure_market_pool(
                    gateway, faucet, _keypair(keys_dir, "dev_usdc_mint"),
                    _keypair(keys_dir, "dev_pool_owner").pubkey(),
                    mcc_amount=POOL_MCC * 10**decimals.mcc, usdc_amount=POOL_USDC * 10**6,
                ),
                *(
                    faucet.receive_minted(
                        gateway, cur, FAUCET_SUPPLY * 10 ** decimals.of(cur), f"dev-faucet:{cur}"
                    )
                    for cur in ("MCC", "MCD")
                ),
                *(gateway.ensure_custody_account(uid, cur) for uid, cur, _ in wanted),
            )  # fmt: skip
            pool = cast(MarketPool, results[0])
            await scanner.scan()
            sends = []
            for uid, cur, amount in wanted:
                if await _already_funded(sessions, gateway, faucet, uid, cur):
                    continue
                mint = keys.mint_for(cur)
                sends.append(
                    transfer_checked(
                        TransferCheckedParams(
                            program_id=gateway.keys.token_program(cur),
                            source=faucet.token_account(mint, gateway.keys.token_program(cur)),
                            mint=mint, dest=gateway.custody_address(uid, cur),
                            owner=faucet.address, amount=amount,
                            decimals=decimals.of(cur),
                        )
                    )
                )  # fmt: skip
            if sends:
                await faucet.send_instructions(sends)  # one outside transaction, all deposits
            summary = await scanner.scan()
            await scanner.aclose()
    finally:
        await engine.dispose()
    return {
        "market_pool": {
            "usdc_mint": pool.usdc_mint,
            "mcc_vault": pool.mcc_vault,
            "usdc_vault": pool.usdc_vault,
        },
        "faucet": str(faucet.address),
        "deposited": summary.credited,
    }


async def _already_funded(
    sessions: Any, gateway: ChainGateway, faucet: OutsideWallet, uid: str, currency: str
) -> bool:
    async with sessions() as session:
        credited = await session.scalar(
            select(Deposit.id).where(
                Deposit.user_uid == uid,
                Deposit.currency == currency,
                Deposit.sender == str(faucet.address),
                Deposit.outcome == "credited",
            )
        )
    if credited is not None:
        return True
    # Sent before a crash, not yet seen by the watcher: on chain already, do not send twice.
    return await gateway.custody_balance(uid, currency, "confirmed") > 0
