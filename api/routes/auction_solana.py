"""Auction views: config, active auctions, one auction, its bids, a wallet's bids and auctions.

Public reads: bids and auctions are public chain data."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query

from api.callers import PUBLIC
from api.typed import Shape
from api.views_common import READ_ERRORS, Many, One, PagingDep, ViewsDep, many, one
from views import auction as svc

router = APIRouter(
    prefix="/v1/auction-solana", tags=["chain views: auction"], dependencies=[Depends(PUBLIC)]
)
AuctionId = Annotated[int, Path(ge=1, le=2**64 - 1, description="Auction id (from 1)")]


class AuctionConfigAttributes(Shape):
    authority: str
    team_wallet: str
    mcc_mint: str
    territory_nft_program: str
    min_bid_increment_percent: int
    auction_duration_seconds: int
    extension_duration_seconds: int
    extension_threshold_seconds: int
    next_auction_id: int
    total_auctions: int
    total_completed: int
    total_cancelled: int
    total_volume: str
    is_paused: bool
    is_initialized: bool
    created_at: str | None
    updated_at: str | None


class AuctionAttributes(Shape):
    account: str
    auction_id: int
    auction_type: str
    status: str
    territory_type: str
    territory_id: int
    creator: str
    starting_price: str
    buy_now_price: str | None
    current_price: str
    highest_bidder: str | None
    bid_count: int
    start_time: str | None
    end_time: str | None
    extension_count: int
    proceeds_recipient: str
    settled_amount: str
    nft_mint: str | None
    created_at: str | None
    completed_at: str | None
    is_ended: bool
    is_biddable: bool
    ended_unsettled: bool
    seconds_left: int
    min_next_bid: str | None


class AuctionDetailAttributes(AuctionAttributes):
    escrow_account: str
    escrow_balance: str | None


class BidAttributes(Shape):
    account: str
    auction_id: int
    bidder: str
    amount: str
    status: str
    placed_at: str | None
    withdrawn_at: str | None
    is_refunded: bool
    is_highest: bool
    auction_status: str | None
    auction_ended: bool | None


@router.get("/config", response_model=One[AuctionConfigAttributes], responses=READ_ERRORS)
async def config(views: ViewsDep) -> dict[str, Any]:
    """The auction program's config: increments, durations, totals."""
    return one(await svc.config(views), views)


@router.get("/active", response_model=Many[AuctionAttributes], responses=READ_ERRORS)
async def active(
    views: ViewsDep,
    paging: PagingDep,
    include_unsettled: Annotated[
        bool, Query(description="Also list ended auctions still awaiting complete_auction")
    ] = False,
) -> dict[str, Any]:
    """Biddable auctions (status active and not ended), ending soonest first."""
    page = await svc.active(views, paging.page, paging.per_page, include_unsettled)
    return many(page, paging, views)


@router.get("/auction/{id}", response_model=One[AuctionDetailAttributes], responses=READ_ERRORS)
async def auction(id: AuctionId, views: ViewsDep) -> dict[str, Any]:
    """One auction with seconds left, minimum next bid and its escrow balance."""
    return one(await svc.auction(views, id), views)


@router.get("/auction/{id}/bids", response_model=Many[BidAttributes], responses=READ_ERRORS)
async def auction_bids(id: AuctionId, views: ViewsDep, paging: PagingDep) -> dict[str, Any]:
    """An auction's bids, highest first (ties: earliest first)."""
    return many(await svc.bids(views, id, paging.page, paging.per_page), paging, views)


@router.get("/bids/{wallet}", response_model=Many[BidAttributes], responses=READ_ERRORS)
async def wallet_bids(wallet: str, views: ViewsDep, paging: PagingDep) -> dict[str, Any]:
    """A wallet's bids, newest first, with the state of each auction."""
    return many(await svc.bids_of(views, wallet, paging.page, paging.per_page), paging, views)


@router.get("/auctions/{wallet}", response_model=Many[AuctionAttributes], responses=READ_ERRORS)
async def wallet_auctions(wallet: str, views: ViewsDep, paging: PagingDep) -> dict[str, Any]:
    """The auctions a wallet created, newest first."""
    page = await svc.created_by(views, wallet, paging.page, paging.per_page)
    return many(page, paging, views)
