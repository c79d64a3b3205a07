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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from spl.token.instructions import get_associated_token_address
from sqlalchemy import select

from chain.answers import TOKEN_PROGRAMS
from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys, read_keypair, write_keypair
from chain.rpc import ChainRpc
from core.config import Settings
from db.models.tokens import Deposit
from db.session import create_db_engine, create_session_maker
from devchain.market_pool import MarketPool, ensure_market_pool
from devchain.outside import OutsideWallet
from mccgw.devphases import NO_PHASES, Phases
from tokens.deposits import register

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


def faucet_address(keys_dir: Path) -> str:
    """The dev faucet's address: the sender of every demo deposit."""
    return str(_keypair(keys_dir, "dev_faucet").pubkey())


def market_pool_settings(keys_dir: Path, mcc_mint: Pubkey) -> dict[str, str]:
    """The dev pool's vault addresses (no chain call): settings for every process."""
    usdc = _keypair(keys_dir, "dev_usdc_mint").pubkey()
    owner = _keypair(keys_dir, "dev_pool_owner").pubkey()
    return {
        "MARKET_POOL_MCC_VAULT": str(get_associated_token_address(owner, mcc_mint)),
        "MARKET_POOL_USDC_VAULT": str(get_associated_token_address(owner, usdc)),
    }


async def fund_demo(
    settings: Settings, users: list[dict[str, Any]], phases: Phases = NO_PHASES
) -> dict[str, Any]:
    """Create the pool and deposit the demo users' funds; returns what demo.json shows.

    One finality wait on the way: each step waits only for what the next one needs. The
    gateway's own writes (the faucet's mints, the custody accounts) are driven to
    ``finalized`` in the background while the deposit transaction goes out as soon as their
    effect is visible at ``confirmed`` (it lands in a later slot, so it finalizes after them);
    the worker's deposit watcher credits them at ``finalized``, as any deposit (mccgw.demo
    waits for that). The pool is built meanwhile and is final (the oracle reads it at
    ``finalized``) when this returns."""
    keys_dir = Path(settings.chain_keys_dir)
    keys = load_or_create_keys(keys_dir)
    engine = create_db_engine(settings)
    sessions = create_session_maker(engine)
    try:
        async with (
            AsyncClient(settings.solana_rpc_url, timeout=30) as client,
            ChainRpc.of(settings, timeout=30) as rpc,
        ):
            gateway = ChainGateway(settings, rpc, keys, sessions)
            decimals = await gateway.load_token_decimals()
            faucet = OutsideWallet(_keypair(keys_dir, "dev_faucet"), client)
            with phases("faucet SOL airdrop (confirmed)"):
                await faucet.ensure_sol(gateway, 100 * 10**9, wait="confirmed")
            wanted = [
                (u["uid"], cur, whole * 10 ** decimals.of(cur))
                for u in users
                for cur, whole in DEMO_FUNDS.get(u["username"], {}).items()
            ]
            async with sessions() as session:
                for uid, cur, _ in wanted:
                    await register(session, gateway, uid, cur)
                await session.commit()

            async def build_pool() -> MarketPool:
                with phases("market pool (finalized)"):
                    return await ensure_market_pool(
                        gateway,
                        faucet,
                        _keypair(keys_dir, "dev_usdc_mint"),
                        _keypair(keys_dir, "dev_pool_owner").pubkey(),
                        mcc_amount=POOL_MCC * 10**decimals.mcc,
                        usdc_amount=POOL_USDC * 10**6,
                    )

            pool_task = asyncio.create_task(build_pool())
            supply = {cur: FAUCET_SUPPLY * 10 ** decimals.of(cur) for cur in ("MCC", "MCD")}
            writes: list[asyncio.Task[Any]] = [
                asyncio.create_task(
                    faucet.receive_minted(gateway, cur, amount, f"dev-faucet:{cur}")
                )
                for cur, amount in supply.items()
            ] + [
                asyncio.create_task(gateway.ensure_custody_account(uid, cur))
                for uid, cur, _ in wanted
            ]
            try:
                with phases("faucet mints and custody accounts (confirmed)"):
                    await _until_visible(
                        writes,
                        [
                            # enough for the deposits (a restart's faucet has sent some)
                            *(
                                _holds(
                                    gateway, faucet, cur, sum(a for _, c, a in wanted if c == cur)
                                )
                                for cur in supply
                            ),
                            *(
                                _exists(gateway, gateway.custody_address(uid, cur))
                                for uid, cur, _ in wanted
                            ),
                        ],
                    )
                sends = [
                    faucet.transfer_instruction(
                        keys.mint_for(cur),
                        gateway.custody_address(uid, cur),
                        amount,
                        decimals.of(cur),
                        gateway.keys.token_program(cur),
                    )
                    for uid, cur, amount in wanted
                    if not await _already_funded(sessions, gateway, faucet, uid, cur)
                ]
                with phases("demo deposits sent (finalized)"):
                    if sends:
                        await faucet.send_instructions(sends)  # one transaction, all deposits
                    await asyncio.gather(*writes)  # final already: earlier slots
                pool = await pool_task
            finally:
                # Interrupted (Ctrl-C) or failed: stop every write still waiting, and let the
                # gateway's finality watcher see no waiter left before the client closes.
                for task in [pool_task, *writes]:
                    task.cancel()
                await asyncio.gather(pool_task, *writes, return_exceptions=True)
                await _finality_watchers_done()
    finally:
        await engine.dispose()
    return {
        "market_pool": {
            "usdc_mint": pool.usdc_mint,
            "mcc_vault": pool.mcc_vault,
            "usdc_vault": pool.usdc_vault,
        },
        "faucet": str(faucet.address),
    }


async def _finality_watchers_done(timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Until the gateway's finality watcher (chain/watcher.py) has stopped: it stops by itself
    within one poll once no write is awaited."""
    watchers = [
        t for t in asyncio.all_tasks() if t.get_name() == "chain-finality-watcher" and not t.done()
    ]
    if watchers:
        await asyncio.wait(watchers, timeout=timeout)


Check = Callable[[], Awaitable[bool]]


def _holds(gateway: ChainGateway, wallet: OutsideWallet, currency: str, amount: int) -> Check:
    mint, program = gateway.keys.mint_for(currency), gateway.keys.token_program(currency)

    async def check() -> bool:
        held = await gateway.token_balance(wallet.token_account(mint, program), "confirmed")
        return held >= amount

    return check


def _exists(gateway: ChainGateway, address: Pubkey) -> Check:
    async def check() -> bool:
        account = await gateway.account(address, "confirmed")
        return account is not None and account.owner in TOKEN_PROGRAMS  # created, not just paid

    return check


async def _until_visible(
    writes: list[asyncio.Task[Any]],
    checks: list[Check],
    timeout: float = 60.0,  # noqa: ASYNC109
) -> None:
    """Wait until every check holds (an effect of ``writes`` seen at ``confirmed``); a write
    that failed fails this at once."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for task in writes:
            if task.done():
                task.result()  # raises the write's error
        checks = [check for check in checks if not await check()]
        if not checks:
            return
        if loop.time() > deadline:
            raise TimeoutError(
                f"the demo's faucet mints and custody accounts not seen in {timeout}s"
            )
        await asyncio.sleep(0.1)


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
