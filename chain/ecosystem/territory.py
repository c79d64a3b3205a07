"""Territory-nft program (ecosystem-programs.md sections 2.8 and 6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from chain.ecosystem import TERRITORY_PROGRAM_ID, pda, u64le
from chain.ecosystem.borsh import BOOL, ENUM, FIXED, I64, PUBKEY, U8, U32, U64, AnchorAccount


@dataclass
class TerritoryCollection(AnchorAccount):
    NAME = "TerritoryCollection"
    SPACE = 250
    authority: PUBKEY
    collection_mint: PUBKEY
    collection_metadata: PUBKEY
    collection_master_edition: PUBKEY
    total_stations: U64
    total_matrices: U64
    total_sectors: U64
    total_systems: U64
    created_at: I64
    updated_at: I64
    is_initialized: BOOL
    bump: U8
    reserved: Annotated[bytes, FIXED(64)] = bytes(64)


@dataclass
class TerritoryNft(AnchorAccount):
    NAME = "TerritoryNft"
    SPACE = 176
    territory_type: ENUM
    territory_id: U64
    mint: PUBKEY
    owner: PUBKEY
    parent_id: U64
    current_members: U32
    is_auctioning: BOOL
    is_frozen: BOOL
    created_at: I64
    updated_at: I64
    bump: U8
    reserved: Annotated[bytes, FIXED(64)] = bytes(64)


def collection_pda(program: str = TERRITORY_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"territory_collection")


def nft_pda(
    territory_type: int, territory_id: int, program: str = TERRITORY_PROGRAM_ID
) -> tuple[str, int]:
    return pda(program, b"territory_nft", bytes([territory_type]), u64le(territory_id))
