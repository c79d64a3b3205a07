"""Level-verifier program (ecosystem-programs.md sections 2.4 and 7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from chain.ecosystem import LEVEL_VERIFIER_PROGRAM_ID, key_bytes, pda
from chain.ecosystem.borsh import (
    BOOL,
    ENUM,
    FIXED,
    I64,
    OPTION,
    PUBKEY,
    STRING,
    U8,
    U16,
    U32,
    U64,
    AnchorAccount,
)

# Stored byte 0..6 (borsh 0.10.3 ignores the Rust `= 1..7`); the logical level is byte + 1.
LEVELS = ("recruit", "prospect", "miner", "commander", "pioneer", "warden", "admiral")


@dataclass
class VerifierConfig(AnchorAccount):
    NAME = "VerifierConfig"
    SPACE = 250
    authority: PUBKEY
    territory_nft_program: PUBKEY
    mcc_token_program: PUBKEY
    total_users: U64
    level_1_count: U64
    level_2_count: U64
    level_3_count: U64
    level_4_count: U64
    level_5_count: U64
    level_6_count: U64
    level_7_count: U64
    is_paused: BOOL
    is_initialized: BOOL
    created_at: I64
    updated_at: I64
    reserved: Annotated[bytes, FIXED(64)] = bytes(64)


@dataclass
class UserProfile(AnchorAccount):
    NAME = "UserProfile"
    SPACE = 279
    wallet: PUBKEY
    firebase_uid: Annotated[str, STRING(128)]
    level: ENUM
    wallet_bound_at: OPTION[I64]
    first_mining_at: OPTION[I64]
    last_mining_at: OPTION[I64]
    mining_days_in_period: U8
    mining_bitmap: U32
    mining_bitmap_start_day: I64
    station_nft_count: U16
    matrix_nft_count: U16
    sector_nft_count: U16
    system_nft_count: U16
    level_upgraded_at: OPTION[I64]
    created_at: I64
    updated_at: I64
    bump: U8
    reserved: Annotated[bytes, FIXED(32)] = bytes(32)


def config_pda(program: str = LEVEL_VERIFIER_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"verifier_config")


def profile_pda(wallet: str, program: str = LEVEL_VERIFIER_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"user_profile", key_bytes(wallet))
