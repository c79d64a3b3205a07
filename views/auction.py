"""Auction views (ecosystem-programs.md 2.1, 5.1, 8)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from chain.ecosystem import TERRITORY_TYPES
from chain.ecosystem import auction as au
from views.base import Attrs, View, ViewPage, Views, address, amount, iso, now, paged, present
from views.cache import Snapshot


def _config(v: Views, s: Snapshot) -> au.AuctionConfig | None:
    return s.get(au.AuctionConfig, au.config_pda(v.ids.auction)[0])


async def _mcc_decimals(v: Views, s: Snapshot) -> int:
    cfg = present(_config(v, s), f"Auction config {au.config_pda(v.ids.auction)[0]}")
    return await v.decimals(cfg.mcc_mint)


async def config(v: Views) -> View:
    s = await v.auction.get()
    addr = au.config_pda(v.ids.auction)[0]
    c = present(_config(v, s), f"Auction config {addr}")
    d = await v.decimals(c.mcc_mint)
    attrs = {
        "authority": c.authority,
        "team_wallet": c.team_wallet,
        "mcc_mint": c.mcc_mint,
        "territory_nft_program": c.territory_nft_program,
        "min_bid_increment_percent": c.min_bid_increment_percent,
        "auction_duration_seconds": c.auction_duration,
        "extension_duration_seconds": c.extension_duration,
        "extension_threshold_seconds": c.extension_threshold,
        "next_auction_id": c.next_auction_id,
        "total_auctions": c.total_auctions,
        "total_completed": c.total_completed,
        "total_cancelled": c.total_cancelled,
        "total_volume": amount(c.total_volume, d),
        "is_paused": c.is_paused,
        "is_initialized": c.is_initialized,
        "created_at": iso(c.created_at),
        "updated_at": iso(c.updated_at),
    }
    return View("auction_config", addr, attrs, s.slot, addr)


def auction_attrs(addr: str, a: au.Auction, pct: int, d: int, t: int) -> Attrs:
    ended = t >= a.end_time
    biddable = a.status == 1 and not ended
    return {
        "account": addr,
        "auction_id": a.auction_id,
        "auction_type": au.AUCTION_TYPES[a.auction_type] if a.auction_type < 2 else "unknown",
        "status": au.AUCTION_STATUSES[a.status] if a.status < 4 else "unknown",
        "territory_type": TERRITORY_TYPES[a.territory_type] if a.territory_type < 4 else "unknown",
        "territory_id": a.territory_id,
        "creator": a.creator,
        "starting_price": amount(a.starting_price, d),
        "buy_now_price": None if a.buy_now_price is None else amount(a.buy_now_price, d),
        "current_price": amount(a.current_price, d),
        "highest_bidder": a.highest_bidder,
        "bid_count": a.bid_count,
        "start_time": iso(a.start_time),
        "end_time": iso(a.end_time),
        "extension_count": a.extension_count,
        "proceeds_recipient": a.proceeds_recipient,
        "settled_amount": amount(a.settled_amount, d),
        "nft_mint": a.nft_mint,
        "created_at": iso(a.created_at),
        "completed_at": iso(a.completed_at),
        "is_ended": ended,
        "is_biddable": biddable,
        "ended_unsettled": a.status == 1 and ended,
        "seconds_left": max(0, a.end_time - t) if a.status == 1 else 0,
        "min_next_bid": amount(au.min_next_bid(a, pct), d) if biddable else None,
    }


async def _auction_list(
    v: Views,
    keep: Callable[[au.Auction, int], bool],
    page: int,
    per_page: int,
    sort_key: Callable[[tuple[str, au.Auction]], Any],
) -> ViewPage:
    s = await v.auction.get()
    d = await _mcc_decimals(v, s)
    cfg = _config(v, s)
    pct = cfg.min_bid_increment_percent if cfg else 5
    t = now()
    rows = [(addr, a) for addr, a in s.all(au.Auction).items() if keep(a, t)]
    rows.sort(key=sort_key)
    items = [
        (str(a.auction_id), auction_attrs(addr, a, pct, d, t))
        for addr, a in paged(rows, page, per_page)
    ]
    return ViewPage("auction", items, len(rows), s.slot, v.ids.auction)


def _open_by_end(s: Snapshot) -> tuple[list[int], list[tuple[str, au.Auction]]]:
    """Status-active auctions sorted by (end_time, id), with their end times for bisecting."""
    rows = sorted(
        ((a, x) for a, x in s.all(au.Auction).items() if x.status == 1),
        key=lambda r: (r[1].end_time, r[1].auction_id),
    )
    return [x.end_time for _, x in rows], rows


async def active(v: Views, page: int, per_page: int, include_unsettled: bool) -> ViewPage:
    s = await v.auction.get()
    d = await _mcc_decimals(v, s)
    cfg = _config(v, s)
    pct = cfg.min_bid_increment_percent if cfg else 5
    t = now()
    ends, rows = s.index("open_by_end", _open_by_end)
    if not include_unsettled:
        rows = rows[bisect.bisect_right(ends, t) :]  # still biddable: t < end_time
    items = [
        (str(a.auction_id), auction_attrs(addr, a, pct, d, t))
        for addr, a in paged(rows, page, per_page)
    ]
    return ViewPage("auction", items, len(rows), s.slot, v.ids.auction)


async def created_by(v: Views, wallet: str, page: int, per_page: int) -> ViewPage:
    wallet = address(wallet, "wallet")

    def keep(a: au.Auction, t: int) -> bool:
        return a.creator == wallet

    return await _auction_list(v, keep, page, per_page, lambda r: -r[1].auction_id)


async def _auction_at(v: Views, auction_id: int) -> tuple[Snapshot, str, au.Auction, int]:
    """The snapshot, address, account and MCC decimals of one auction (404 when missing)."""
    s = await v.auction.get()
    addr = au.auction_pda(auction_id, v.ids.auction)[0]
    a = present(s.get(au.Auction, addr), f"Auction {auction_id} ({addr})")
    return s, addr, a, await _mcc_decimals(v, s)


async def auction(v: Views, auction_id: int) -> View:
    s, addr, a, d = await _auction_at(v, auction_id)
    cfg = _config(v, s)
    attrs = auction_attrs(addr, a, cfg.min_bid_increment_percent if cfg else 5, d, now())
    escrow = au.escrow_pda(auction_id, v.ids.auction)[0]
    held = await v.token_amount(escrow)
    attrs |= {
        "escrow_account": escrow,
        "escrow_balance": None if held is None else amount(held[0], d),
    }
    return View("auction", str(auction_id), attrs, max(s.slot, held[1] if held else 0), addr)


def _bids_by_auction(s: Snapshot) -> dict[int, list[tuple[str, au.Bid]]]:
    out: dict[int, list[tuple[str, au.Bid]]] = {}
    for addr, b in s.all(au.Bid).items():
        out.setdefault(b.auction_id, []).append((addr, b))
    for bids in out.values():
        bids.sort(key=lambda r: (-r[1].amount, r[1].placed_at, r[0]))
    return out


def bid_attrs(addr: str, b: au.Bid, a: au.Auction | None, d: int, t: int) -> Attrs:
    return {
        "account": addr,
        "auction_id": b.auction_id,
        "bidder": b.bidder,
        "amount": amount(b.amount, d),
        "status": au.BID_STATUSES[b.status] if b.status < 3 else "unknown",
        "placed_at": iso(b.placed_at),
        "withdrawn_at": iso(b.withdrawn_at),
        "is_refunded": b.is_refunded,
        "is_highest": a is not None and a.highest_bidder == b.bidder,
        "auction_status": None if a is None else au.AUCTION_STATUSES[a.status],
        "auction_ended": None if a is None else t >= a.end_time,
    }


async def bids(v: Views, auction_id: int, page: int, per_page: int) -> ViewPage:
    s, addr, a, d = await _auction_at(v, auction_id)
    rows = s.index("bids_by_auction", _bids_by_auction).get(auction_id, [])
    t = now()
    items = [(ba, bid_attrs(ba, b, a, d, t)) for ba, b in paged(rows, page, per_page)]
    return ViewPage("auction_bid", items, len(rows), s.slot, v.ids.auction, {"address": addr})


async def bids_of(v: Views, wallet: str, page: int, per_page: int) -> ViewPage:
    wallet = address(wallet, "wallet")
    s = await v.auction.get()
    d = await _mcc_decimals(v, s)
    rows = [(addr, b) for addr, b in s.all(au.Bid).items() if b.bidder == wallet]
    rows.sort(key=lambda r: (-r[1].placed_at, r[0]))
    t = now()
    items = []
    for ba, b in paged(rows, page, per_page):
        a = s.get(au.Auction, au.auction_pda(b.auction_id, v.ids.auction)[0])
        items.append((ba, bid_attrs(ba, b, a, d, t)))
    return ViewPage("auction_bid", items, len(rows), s.slot, v.ids.auction)
