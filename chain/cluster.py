"""The ecosystem's program ids, mints and singleton addresses, and how settings pick them.

Facts from ``../shared/spec/ecosystem-programs.md`` (sections 1 and 1.4). Every value is a
setting (core/config.py); this module holds the mainnet values and resolves an empty setting:

* program ids: the setting itself (its default is the mainnet id; the local node loads our own
  programs at the same ids, see devchain/node/genesis.py);
* mints: in production the mainnet mint, in dev/test the local chain's (the keys dir);
* McdConfig / ReincarnationPool: the PDA of the configured program (the real seeds).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from solders.pubkey import Pubkey

from chain.keys import ChainKeys
from core.config import Settings

# Section 1.1 (declare_id!) and 1.2 of the facts page.
MAINNET_PROGRAM_IDS: dict[str, str] = {
    "mcc_token": "mCCUkDxoDfnVjTQjQHWkVi1PWBU2jxfQGJUhhDbeq5x",
    "mcd_token": "McDVieuEFv5ucnM3C7p8wsT6LY8BAipKDrTG9HjAu3R",
    "reincarnation": "REn8oKyydvjRsistZ2cVi6tksPubvR3bEuLdVTyGknb",
    "auction": "6JRmShodszZca3ez7GfDkmsRSzTi5ELwscWCDgjsteJx",
    "fragment": "J7wyftDtfzqn2pbpLr8QPqKQkAxecgVze75SUz9D4Fq3",
    "lending": "5JRnecaAZNfF1bBjdW93JB8VFJVpWWDkR3NKg2jHnMPQ",
    "level_verifier": "8TSuNuR1Carh8GpjqrZiVo3oz1nC2K9FSy6BhqbWb3ek",
    "territory_nft": "ipYLo2aitVyNXGzCgpiaKKA2JLvtbBvMHiV7qKZTPVZ",
}
MAINNET_MINTS: dict[str, str] = {
    "mcc": "MCCpDtigJLYnfGe1fW5xrSA8AXo6AeAj8ECE7wVqP5e",
    "mcd": "MCDXTiLK6idQSycdb8QkwKYVP8HEbfe4JbJZjC7Fkty",
    "usdc": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    # The facts page (section 9.2) has two USDT mints; the pool's usdt_mint field decides on
    # chain. This is the widely known Solana USDT mint (reincarnation constants.rs).
    "usdt": "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
}
MCD_CONFIG_SEED = b"mcd_config"
REINCARNATION_POOL_SEED = b"reincarnation_pool_v2"


def anchor_discriminator(namespace: str, name: str) -> bytes:
    """Anchor's 8-byte discriminator: sha256("<namespace>:<name>")[:8] (global/account/event)."""
    return hashlib.sha256(f"{namespace}:{name}".encode()).digest()[:8]


def program_id(settings: Settings, program: str) -> Pubkey:
    """The configured id of one of the ecosystem's programs (``mcd_token``, ``reincarnation``,
    ...), from the ``<program>_program_id`` setting."""
    value = getattr(settings, f"{program}_program_id") or MAINNET_PROGRAM_IDS[program]
    return Pubkey.from_string(value)


def mint(settings: Settings, currency: str, keys: ChainKeys | None = None) -> Pubkey | None:
    """The mint of ``currency`` (mcc, mcd, usdc, usdt): the setting; else mainnet in
    production; else the local chain's (MCC/MCD from the keys dir; None for the stablecoins,
    which the local chain does not have unless configured)."""
    name = currency.lower()
    configured: str = getattr(settings, f"{name}_mint")
    if configured:
        return Pubkey.from_string(configured)
    if not settings.is_dev:
        return Pubkey.from_string(MAINNET_MINTS[name])
    if keys is not None and name in ("mcc", "mcd"):
        return keys.mint_for(name)
    return None


def configured_mcd_config(settings: Settings) -> Pubkey:
    if settings.mcd_config_address:
        return Pubkey.from_string(settings.mcd_config_address)
    return Pubkey.find_program_address([MCD_CONFIG_SEED], program_id(settings, "mcd_token"))[0]


def configured_reincarnation_pool(settings: Settings) -> Pubkey:
    if settings.reincarnation_pool_address:
        return Pubkey.from_string(settings.reincarnation_pool_address)
    program = program_id(settings, "reincarnation")
    return Pubkey.find_program_address([REINCARNATION_POOL_SEED], program)[0]


@dataclass(frozen=True)
class ClusterAddresses:
    """Everything the gateway addresses on a cluster, resolved once (for logs and docs)."""

    programs: dict[str, Pubkey]
    mints: dict[str, Pubkey | None]
    mcd_config: Pubkey
    reincarnation_pool: Pubkey


def resolve(settings: Settings, keys: ChainKeys | None = None) -> ClusterAddresses:
    return ClusterAddresses(
        programs={name: program_id(settings, name) for name in MAINNET_PROGRAM_IDS},
        mints={name: mint(settings, name, keys) for name in MAINNET_MINTS},
        mcd_config=configured_mcd_config(settings),
        reincarnation_pool=configured_reincarnation_pool(settings),
    )
