"""Fragment program (ecosystem-programs.md sections 2.2 and 5.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from chain.ecosystem import FRAGMENT_PROGRAM_ID, key_bytes, pda
from chain.ecosystem.borsh import BOOL, ENUM, I64, OPTION, PUBKEY, STRING, U8, U64, AnchorAccount

VAULT_STATUSES = ("initializing", "active", "redeeming", "redeemed", "buyout_pending", "bought_out")
BUYOUT_STATUSES = ("initializing", "pending", "completed", "cancelled", "expired")


@dataclass
class FragmentConfig(AnchorAccount):
    NAME = "FragmentConfig"
    SPACE = 98
    authority: PUBKEY
    min_fragments: U64
    max_fragments: U64
    buyout_duration: I64
    total_fragmented_nfts: U64
    active_buyouts: U64
    is_paused: BOOL
    created_at: I64
    updated_at: I64
    bump: U8


@dataclass
class FragmentVault(AnchorAccount):
    NAME = "FragmentVault"
    SPACE = 189
    original_owner: PUBKEY
    nft_mint: PUBKEY
    fragment_mint: PUBKEY
    fragment_name: Annotated[str, STRING(32)]
    fragment_symbol: Annotated[str, STRING(10)]
    total_fragments: U64
    circulating_fragments: U64
    status: ENUM
    created_at: I64
    redeemed_at: OPTION[I64]
    bump: U8


@dataclass
class Buyout(AnchorAccount):
    NAME = "Buyout"
    SPACE = 171
    vault: PUBKEY
    initiator: PUBKEY
    price_per_fragment: U64
    total_buyout_amount: U64
    fragments_to_buy: U64
    fragments_accepted: U64
    payment_collected: U64
    payment_mint: PUBKEY
    status: ENUM
    initiated_at: I64
    expires_at: I64
    completed_at: OPTION[I64]
    bump: U8


def config_pda(program: str = FRAGMENT_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"fragment_config")


def vault_pda(nft_mint: str, program: str = FRAGMENT_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"fragment_vault", key_bytes(nft_mint))


def fragment_mint_pda(nft_mint: str, program: str = FRAGMENT_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"fragment_mint", key_bytes(nft_mint))


def buyout_pda(vault: str, program: str = FRAGMENT_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"buyout", key_bytes(vault))
