"""Auction program (ecosystem-programs.md sections 2.1 and 5.1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from chain.ecosystem import AUCTION_PROGRAM_ID, key_bytes, pda, u64le
from chain.ecosystem.borsh import (
    BOOL,
    ENUM,
    FIXED,
    I64,
    OPTION,
    PUBKEY,
    U8,
    U16,
    U64,
    AnchorAccount,
)

AUCTION_TYPES = ("first", "secondary")
AUCTION_STATUSES = ("pending", "active", "completed", "cancelled")
BID_STATUSES = ("active", "withdrawn", "won")


@dataclass
class AuctionConfig(AnchorAccount):
    NAME = "AuctionConfig"
    SPACE = 283
    authority: PUBKEY
    team_wallet: PUBKEY
    mcc_mint: PUBKEY
    territory_nft_program: PUBKEY
    min_bid_increment_percent: U8
    auction_duration: I64
    extension_duration: I64
    extension_threshold: I64
    next_auction_id: U64
    total_auctions: U64
    total_completed: U64
    total_cancelled: U64
    total_volume: U64
    is_paused: BOOL
    is_initialized: BOOL
    created_at: I64
    updated_at: I64
    reserved: Annotated[bytes, FIXED(64)] = bytes(64)


@dataclass
class Auction(AnchorAccount):
    NAME = "Auction"
    SPACE = 260
    auction_id: U64
    auction_type: ENUM
    status: ENUM
    territory_type: ENUM
    territory_id: U64
    creator: PUBKEY
    starting_price: U64
    buy_now_price: OPTION[U64]
    current_price: U64
    highest_bidder: OPTION[PUBKEY]
    bid_count: U16
    start_time: I64
    end_time: I64
    extension_count: U16
    proceeds_recipient: PUBKEY
    settled_amount: U64
    nft_mint: OPTION[PUBKEY]
    created_at: I64
    completed_at: OPTION[I64]
    bump: U8
    reserved: Annotated[bytes, FIXED(32)] = bytes(32)


@dataclass
class Bid(AnchorAccount):
    NAME = "Bid"
    SPACE = 92
    auction_id: U64
    bidder: PUBKEY
    amount: U64
    status: ENUM
    placed_at: I64
    withdrawn_at: OPTION[I64]
    is_refunded: BOOL
    bump: U8
    reserved: Annotated[bytes, FIXED(16)] = bytes(16)


def min_next_bid(auction: Auction, increment_percent: int) -> int:
    """starting_price before any bid, else current + max(1, floor(current * pct / 100))."""
    if auction.current_price == 0:
        return auction.starting_price
    return auction.current_price + max(1, auction.current_price * increment_percent // 100)


def config_pda(program: str = AUCTION_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"auction_config")


def auction_pda(auction_id: int, program: str = AUCTION_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"auction", u64le(auction_id))


def escrow_pda(auction_id: int, program: str = AUCTION_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"mcc_escrow", u64le(auction_id))


def bid_pda(auction_id: int, bidder: str, program: str = AUCTION_PROGRAM_ID) -> tuple[str, int]:
    return pda(program, b"bid", u64le(auction_id), key_bytes(bidder))
