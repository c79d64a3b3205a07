"""Level-verifier program (ecosystem-programs.md sections 2.4 and 7)."""

from __future__ import annotations

from dataclasses import dataclass

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
    LAYOUT = (
        ("authority", PUBKEY),
        ("territory_nft_program", PUBKEY),
        ("mcc_token_program", PUBKEY),
        ("total_users", U64),
        ("level_1_count", U64),
        ("level_2_count", U64),
        ("level_3_count", U64),
        ("level_4_count", U64),
        ("level_5_count", U64),
        ("level_6_count", U64),
        ("level_7_count", U64),
        ("is_paused", BOOL),
        ("is_initialized", BOOL),
        ("created_at", I64),
        ("updated_at", I64),
        ("reserved", FIXED(64)),
    )
    authority: str
    territory_nft_program: str
    mcc_token_program: str
    total_users: int
    level_1_count: int
    level_2_count: int
    level_3_count: int
    level_4_count: int
    level_5_count: int
    level_6_count: int
    level_7_count: int
    is_paused: bool
    is_initialized: bool
    created_at: int
    updated_at: int
    reserved: bytes = bytes(64)


@dataclass
class UserProfile(AnchorAccount):
    NAME = "UserProfile"
    SPACE = 279
    LAYOUT = (
        ("wallet", PUBKEY),
        ("firebase_uid", STRING(128)),
        ("level", ENUM),
        ("wallet_bound_at", OPTION(I64)),
        ("first_mining_at", OPTION(I64)),
        ("last_mining_at", OPTION(I64)),
        ("mining_days_in_period", U8),
        ("mining_bitmap", U32),
        ("mining_bitmap_start_day", I64),
        ("station_nft_count", U16),
        ("matrix_nft_count", U16),
        ("sector_nft_count", U16),
        ("system_nft_count", U16),
        ("level_upgraded_at", OPTION(I64)),
        ("created_at", I64),
        ("updated_at", I64),
        ("bump", U8),
        ("reserved", FIXED(32)),
    )
    wallet: str
    firebase_uid: str
    level: int
    wallet_bound_at: int | None
    first_mining_at: int | None
    last_mining_at: int | None
    mining_days_in_period: int
    mining_bitmap: int
    mining_bitmap_start_day: int
    station_nft_count: int
    matrix_nft_count: int
    sector_nft_count: int
    system_nft_count: int
    level_upgraded_at: int | None
    created_at: int
    updated_at: int
    bump: int
    reserved: bytes = bytes(32)


def config_pda(program: str = LEVEL_VERIFIER_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"verifier_config")


def profile_pda(wallet: str, program: str = LEVEL_VERIFIER_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"user_profile", key_bytes(wallet))
