"""The accounts the view tests write into their own chain node (real layouts, real program
ids), with every value the tests check chosen here."""

from __future__ import annotations

import time

from chain.ecosystem import (
    AUCTION_PROGRAM_ID,
    TERRITORY_PROGRAM_ID,
)
from chain.ecosystem import auction as au
from chain.ecosystem import lending as ln
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import ZERO_KEY
from devchain.fixtures import World, wallet
from tests.views.accounts import (
    ALICE,
    ASSET_MINT,
    AUCTION_MINT,
    AUTH,
    BOB,
    CAROL,
    HOUR,
    POOL_NAME,
    nft_mint,
)
from tests.views.world_defi import add_fragments_and_lending

__all__ = ["ALICE", "AUTH", "BOB", "CAROL", "POOL_NAME", "build", "nft_mint"]

NOW = int(time.time())  # reset by build(): times are relative to when the node starts


def build() -> World:
    global NOW
    NOW = int(time.time())
    w = World()
    w.mint(AUCTION_MINT, 6, AUTH)
    w.mint(ASSET_MINT, 9, AUTH)
    coll, cbump = te.collection_pda()
    w.anchor(
        coll,
        TERRITORY_PROGRAM_ID,
        te.TerritoryCollection(
            AUTH,
            wallet("t:coll-mint"),
            wallet("t:coll-meta"),
            wallet("t:coll-ed"),
            3,
            1,
            0,
            0,
            1_700_000_000,
            1_700_000_100,
            True,
            cbump,
        ),
    )
    # station 1 held by alice; station 2 recorded alice, held by bob; matrix 3 in a loan escrow
    for t, i, recorded, parent in ((0, 1, ALICE, 0), (0, 2, ALICE, 0), (1, 3, BOB, 9)):
        addr, bump = te.nft_pda(t, i)
        w.anchor(
            addr,
            TERRITORY_PROGRAM_ID,
            te.TerritoryNft(
                t,
                i,
                nft_mint(t, i),
                recorded,
                parent,
                17,
                False,
                False,
                1_700_000_000 + i,
                1_700_000_500,
                bump,
            ),
        )
        w.mint(nft_mint(t, i), 0, coll)
    w.token(ALICE, nft_mint(0, 1), 1)
    w.token(BOB, nft_mint(0, 2), 1)
    loan_addr = ln.loan_pda(BOB, nft_mint(1, 3))[0]
    w.token(loan_addr, nft_mint(1, 3), 1)
    addr, bump = te.nft_pda(0, 4)  # reserved, not minted
    w.anchor(
        addr,
        TERRITORY_PROGRAM_ID,
        te.TerritoryNft(
            0,
            4,
            ZERO_KEY,
            CAROL,
            0,
            0,
            False,
            False,
            1_700_000_004,
            1_700_000_004,
            bump,
        ),
    )

    cfg, _ = au.config_pda()
    w.anchor(
        cfg,
        AUCTION_PROGRAM_ID,
        au.AuctionConfig(
            AUTH,
            wallet("t:team"),
            AUCTION_MINT,
            TERRITORY_PROGRAM_ID,
            10,
            86_400,
            600,
            300,
            5,
            4,
            1,
            0,
            30_000_000,
            False,
            True,
            1_699_000_000,
            1_699_000_100,
        ),
    )
    a1 = au.Auction(
        1,
        0,
        1,
        2,
        5,
        AUTH,
        10_000_000,
        None,
        12_500_000,
        BOB,
        3,
        NOW - HOUR,
        NOW + HOUR,
        0,
        wallet("t:team"),
        0,
        None,
        NOW - HOUR,
        None,
        0,
    )
    a2 = au.Auction(
        2,
        1,
        1,
        0,
        1,
        ALICE,
        50_000_000,
        90_000_000,
        0,
        None,
        0,
        NOW - HOUR,
        NOW + 2 * HOUR,
        0,
        ALICE,
        0,
        nft_mint(0, 1),
        NOW - HOUR,
        None,
        0,
    )
    a3 = au.Auction(
        3,
        0,
        1,
        0,
        6,
        AUTH,
        10_000_000,
        None,
        20_000_000,
        CAROL,
        1,
        NOW - 3 * HOUR,
        NOW - HOUR,
        0,
        wallet("t:team"),
        0,
        None,
        NOW - 3 * HOUR,
        None,
        0,
    )
    a4 = au.Auction(
        4,
        0,
        2,
        0,
        7,
        AUTH,
        10_000_000,
        40_000_000,
        30_000_000,
        ALICE,
        2,
        NOW - 9 * HOUR,
        NOW - 5 * HOUR,
        1,
        wallet("t:team"),
        30_000_000,
        None,
        NOW - 9 * HOUR,
        NOW - 4 * HOUR,
        0,
    )
    for a in (a1, a2, a3, a4):
        a.bump = au.auction_pda(a.auction_id)[1]
        w.anchor(au.auction_pda(a.auction_id)[0], AUCTION_PROGRAM_ID, a)
    bids = [
        (1, CAROL, 11_000_000, 0, NOW - 50 * 60, None),
        (1, BOB, 12_500_000, 0, NOW - 40 * 60, None),
        (1, ALICE, 10_000_000, 1, NOW - 55 * 60, NOW - 45 * 60),
        (3, CAROL, 20_000_000, 0, NOW - 2 * HOUR, None),
        (4, ALICE, 30_000_000, 2, NOW - 6 * HOUR, None),
    ]
    for aid, who, amount, status, placed, withdrawn in bids:
        addr, bump = au.bid_pda(aid, who)
        w.anchor(
            addr,
            AUCTION_PROGRAM_ID,
            au.Bid(aid, who, amount, status, placed, withdrawn, status == 1, bump),
        )
    w.token(au.escrow_pda(1)[0], AUCTION_MINT, 23_500_000, address=au.escrow_pda(1)[0])
    add_fragments_and_lending(w, NOW)
    return w
