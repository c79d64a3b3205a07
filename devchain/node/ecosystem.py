"""The part of the ecosystem the local chain carries from genesis: our own programs loaded at
the ecosystem's program ids, and the singleton accounts they need, in their real layouts.

* the MCD Token whitelist (``devchain/program/mcd_token.so``) at the MCD Token program id, and
  its ``McdConfig`` at ``PDA(["mcd_config"])`` with the gateway's ``whitelist_authority`` key
  as authority (the only signer the whitelist instructions accept);
* the Reincarnation price store (``devchain/program/reincarnation.so``) at the Reincarnation
  program id, and its ``ReincarnationPool`` at ``PDA(["reincarnation_pool_v2"])`` with the
  gateway's ``price_authority`` key as authority.

``ensure_accounts`` only creates what is missing, so it runs on a fresh chain and on every
restart of an existing one: a dev chain made before these accounts existed gets them on its
next start, and an account the programs have changed since is never overwritten.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from solders.account import Account
from solders.pubkey import Pubkey

from chain import cluster
from chain import reincarnation as rn
from chain import whitelist as wl
from chain.keys import ChainKeys
from devchain.node.svm import Chain
from devchain.program import PROGRAM_DIR

log = logging.getLogger("devchain.node")

REINCARNATION_PROGRAM_ID = Pubkey.from_string(cluster.MAINNET_PROGRAM_IDS["reincarnation"])
MCD_TOKEN_PROGRAM_ID = Pubkey.from_string(cluster.MAINNET_PROGRAM_IDS["mcd_token"])
POOL_NAME = "MCC Reincarnation Pool"  # 22 bytes, the length mainnet's hard-coded offsets imply
DEFAULT_BASE_PRICE = 10_000_000  # $10.00 in 6-decimal USD (reincarnation DEFAULT_BASE_PRICE)
DEFAULT_DAILY_LIMIT = 1_000_000_000_000  # $1 000 000


def programs() -> dict[Pubkey, Path]:
    """Program id -> .so of every program the local node loads at an ecosystem id."""
    return {
        MCD_TOKEN_PROGRAM_ID: PROGRAM_DIR / "mcd_token.so",
        REINCARNATION_PROGRAM_ID: PROGRAM_DIR / "reincarnation.so",
    }


def genesis_mcd_config(*, authority: Pubkey, mcd_mint: Pubkey, now: int) -> wl.McdConfig:
    """McdConfig as a migrated (209-byte) mainnet config holds it, with local keys. The two
    pools are the PDAs the real program uses (not created on the local chain)."""
    program = MCD_TOKEN_PROGRAM_ID
    return wl.McdConfig(
        authority=authority,
        mcd_mint=mcd_mint,
        genesis_pool=Pubkey.find_program_address([b"mcd_genesis_pool"], program)[0],
        recycle_pool=Pubkey.find_program_address([b"mcd_recycle_pool"], program)[0],
        total_minted=0,
        total_recycled=0,
        total_vault_minted=0,
        total_consumed=0,
        total_usdc_deposited=0,
        total_usdc_withdrawn=0,
        total_burned=0,
        total_fees_collected=0,
        last_update_timestamp=now,
        bump=wl.find_config_pda(program)[1],
    )


def genesis_pool(
    *, authority: Pubkey, mcc_mint: Pubkey, mcd_mint: Pubkey, now: int
) -> rn.ReincarnationPool:
    """The pool as a freshly initialised mainnet pool would hold it, with local keys. Addresses
    the local chain does not have (stablecoin mints, vaults) stay all-zero."""
    zero = Pubkey.default()
    bump = Pubkey.find_program_address([rn.POOL_SEED], REINCARNATION_PROGRAM_ID)[1]
    return rn.ReincarnationPool(
        name=POOL_NAME,
        authority=authority,
        mcc_mint=mcc_mint,
        usdc_mint=zero,
        mcd_mint=mcd_mint,
        usdc_vault=zero,
        mcc_vault=zero,
        mcd_vault=zero,
        usdt_mint=zero,
        usdt_vault=zero,
        base_price=DEFAULT_BASE_PRICE,
        premium_bps=rn.DEFAULT_PREMIUM_BPS,
        price_updated_at=now,
        paused=False,
        daily_limit=DEFAULT_DAILY_LIMIT,
        daily_used=0,
        last_reset_day=now // 86_400,
        total_mcc_bought=0,
        total_usd_paid=0,
        total_buyback_count=0,
        total_mining_usd_received=0,
        total_mining_mcc_minted=0,
        total_mining_mcd_minted=0,
        total_mining_count=0,
        last_cycle_timestamp=0,
        total_mcc_cycled=0,
        total_mcd_cycled=0,
        total_cycle_count=0,
        created_at=now,
        bump=bump,
    )


def ensure_accounts(chain: Chain, keys: ChainKeys) -> list[Pubkey]:
    """Create the missing ecosystem singletons; returns the addresses created."""
    created: list[Pubkey] = []
    now = int(time.time())
    config = wl.find_config_pda(MCD_TOKEN_PROGRAM_ID)[0]
    if chain.get_account(config) is None:
        config_state = genesis_mcd_config(
            authority=keys.whitelist_authority.pubkey(), mcd_mint=keys.mcd_mint.pubkey(), now=now
        )
        data = wl.encode_config(config_state)
        lamports = chain.minimum_balance(len(data))
        chain.set_account(config, Account(lamports, data, MCD_TOKEN_PROGRAM_ID, False, 0))
        created.append(config)
    pool = rn.reincarnation_pool_address(REINCARNATION_PROGRAM_ID)
    if chain.get_account(pool) is None:
        state = genesis_pool(
            authority=keys.price_authority.pubkey(),
            mcc_mint=keys.mcc_mint.pubkey(),
            mcd_mint=keys.mcd_mint.pubkey(),
            now=now,
        )
        data = rn.encode_reincarnation_pool(state)
        lamports = chain.minimum_balance(len(data))
        chain.set_account(pool, Account(lamports, data, REINCARNATION_PROGRAM_ID, False, 0))
        created.append(pool)
    for key in created:
        log.info("genesis: created ecosystem account %s", key)
    return created
