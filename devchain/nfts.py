"""The dev chain's territory NFTs and auctions (``devchain/fixtures.py``)."""

from __future__ import annotations

from chain.ecosystem import (
    AUCTION_PROGRAM_ID,
    MCC_MINT,
    TERRITORY_COLLECTION_MINT,
    TERRITORY_PROGRAM_ID,
)
from chain.ecosystem import auction as au
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import ZERO_KEY
from devchain.world import ACTIVE_UNTIL, DAY, EPOCH, MCC, World, wallet

# -- the dev chain's ecosystem ---------------------------------------------------------------

UNITS: list[tuple[int, int, int, str]] = [
    # (type, id, parent_id, holder label); parent: matrix -> sector, sector -> system
    (3, 1, 0, "authority"),
    (2, 1, 1, "alice"),
    (2, 2, 1, "bob"),
    (1, 1, 1, "alice"),
    (1, 2, 1, "carol"),
    (1, 3, 2, "bob"),
    (0, 1, 0, "alice"),
    (0, 2, 0, "bob"),
    (0, 3, 0, "carol"),
    (0, 4, 0, "dave"),
    (0, 5, 0, "alice"),
    (0, 6, 0, "bob"),
    (0, 12, 0, "dave"),
]


def nft_mint_of(territory_type: int, territory_id: int) -> str:
    return wallet(f"nft:{territory_type}:{territory_id}")


def add_territory(w: World) -> None:
    authority = wallet("authority")
    coll, coll_bump = te.collection_pda()
    w.mint(TERRITORY_COLLECTION_MINT, 0, coll)
    w.token(authority, TERRITORY_COLLECTION_MINT, 1)
    counts = [0, 0, 0, 0]
    for t, i, parent, holder in UNITS:
        mint = nft_mint_of(t, i)
        addr, bump = te.nft_pda(t, i)
        counts[t] += 1
        # station 2 moved from alice to bob outside the program: `owner` is stale on purpose
        recorded = wallet("alice") if (t, i) == (0, 2) else wallet(holder)
        w.anchor(
            addr,
            TERRITORY_PROGRAM_ID,
            te.TerritoryNft(
                t,
                i,
                mint,
                recorded,
                parent,
                0,
                False,
                False,
                EPOCH - 90 * DAY + i,
                EPOCH - 30 * DAY,
                bump,
            ),
        )
        w.mint(mint, 0, coll)
        if (t, i) not in ESCROWED:
            w.token(wallet(holder), mint, 1)
    # station 7: PDA reserved (init_pda done), no token yet
    addr, bump = te.nft_pda(0, 7)
    w.anchor(
        addr,
        TERRITORY_PROGRAM_ID,
        te.TerritoryNft(
            0,
            7,
            ZERO_KEY,
            wallet("carol"),
            0,
            0,
            False,
            False,
            EPOCH - DAY,
            EPOCH - DAY,
            bump,
        ),
    )
    w.anchor(
        coll,
        TERRITORY_PROGRAM_ID,
        te.TerritoryCollection(
            authority,
            TERRITORY_COLLECTION_MINT,
            wallet("collection-metadata"),
            wallet("collection-edition"),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            EPOCH - 120 * DAY,
            EPOCH - 30 * DAY,
            True,
            coll_bump,
        ),
    )


# NFTs whose single token sits in a program escrow, not with the holder (see below)
ESCROWED = {(1, 1), (0, 4), (0, 5), (0, 12)}


def add_auction(w: World) -> None:
    authority = wallet("authority")
    cfg, _ = au.config_pda()
    w.anchor(
        cfg,
        AUCTION_PROGRAM_ID,
        au.AuctionConfig(
            authority,
            wallet("team"),
            MCC_MINT,
            TERRITORY_PROGRAM_ID,
            10,
            7 * DAY,
            600,
            300,
            6,
            5,
            1,
            1,
            30 * MCC,
            False,
            True,
            EPOCH - 100 * DAY,
            EPOCH - DAY,
        ),
    )
    # (id, type, status, territory, creator, start, buy_now, end, bids[(who, amount, status)],
    #  nft_mint, completed_at)
    specs = [
        (
            1,
            0,
            1,
            (2, 3),
            "authority",
            10 * MCC,
            None,
            ACTIVE_UNTIL,
            [("carol", 10 * MCC, 0), ("bob", 12 * MCC, 0), ("dave", 5 * MCC, 1)],
            None,
            None,
        ),
        (2, 1, 1, (0, 6), "bob", 50 * MCC, 500 * MCC, ACTIVE_UNTIL, [], nft_mint_of(0, 6), None),
        (
            3,
            0,
            1,
            (0, 8),
            "authority",
            15 * MCC,
            None,
            EPOCH - 2 * DAY,
            [("carol", 20 * MCC, 0)],
            None,
            None,
        ),
        (
            4,
            0,
            2,
            (0, 9),
            "authority",
            25 * MCC,
            None,
            EPOCH - 20 * DAY,
            [("bob", 30 * MCC, 2)],
            None,
            EPOCH - 19 * DAY,
        ),
        (5, 0, 3, (0, 10), "authority", 25 * MCC, None, EPOCH - 10 * DAY, [], None, None),
    ]
    for aid, atype, status, (tt, tid), creator, start, buy_now, end, bids, nft, done in specs:
        addr, bump = au.auction_pda(aid)
        escrow, _ = au.escrow_pda(aid)
        top = max(bids, key=lambda b: b[1], default=None)
        price = top[1] if top else 0
        w.anchor(
            addr,
            AUCTION_PROGRAM_ID,
            au.Auction(
                aid,
                atype,
                status,
                tt,
                tid,
                wallet(creator),
                start,
                buy_now,
                price,
                wallet(top[0]) if top else None,
                len(bids),
                EPOCH - 7 * DAY - aid,
                end,
                0,
                wallet("team") if atype == 0 else wallet(creator),
                price if status == 2 else 0,
                nft,
                EPOCH - 7 * DAY - aid,
                done,
                bump,
            ),
        )
        held = 0
        for n, (who, amount, bstatus) in enumerate(bids):
            baddr, bbump = au.bid_pda(aid, wallet(who))
            withdrawn = EPOCH - DAY if bstatus == 1 else None
            w.anchor(
                baddr,
                AUCTION_PROGRAM_ID,
                au.Bid(
                    aid,
                    wallet(who),
                    amount,
                    bstatus,
                    EPOCH - 6 * DAY + n * 3600,
                    withdrawn,
                    bstatus == 1,
                    bbump,
                ),
            )
            held += amount if bstatus == 0 else 0
        w.token(escrow, MCC_MINT, held, address=escrow)
