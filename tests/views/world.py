"""The accounts the view tests write into their own chain node (real layouts, real program
ids), with every value the tests check chosen here."""

from __future__ import annotations

import time

from chain.ecosystem import (
    AUCTION_PROGRAM_ID,
    FRAGMENT_PROGRAM_ID,
    LENDING_PROGRAM_ID,
    TERRITORY_PROGRAM_ID,
    ata,
)
from chain.ecosystem import auction as au
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import ZERO_KEY
from chain.ecosystem.fixtures import World, wallet

NOW = int(time.time())  # reset by build(): times are relative to when the node starts
HOUR = 3600
MCC = 10**9
# The auction's MCC mint here has 6 decimals: amounts must follow the mint, not assume 9.
AUCTION_MINT = wallet("t:auction-mint")
ASSET_MINT = wallet("t:asset-mint")  # lending asset, 9 decimals (the facts page's cases)
ALICE, BOB, CAROL = wallet("t:alice"), wallet("t:bob"), wallet("t:carol")
AUTH = wallet("t:authority")
POOL_NAME = "Views Test Pool"


def nft_mint(t: int, i: int) -> str:
    return wallet(f"t:nft:{t}:{i}")


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

    fcfg, fbump = fr.config_pda()
    w.anchor(
        fcfg,
        FRAGMENT_PROGRAM_ID,
        fr.FragmentConfig(
            AUTH,
            100,
            10_000,
            604_800,
            2,
            1,
            False,
            1_699_000_000,
            1_699_000_200,
            fbump,
        ),
    )
    v1_nft, v2_nft = wallet("t:frag-nft-1"), wallet("t:frag-nft-2")
    v1, b1 = fr.vault_pda(v1_nft)
    m1 = fr.fragment_mint_pda(v1_nft)[0]
    w.anchor(
        v1,
        FRAGMENT_PROGRAM_ID,
        fr.FragmentVault(
            ALICE,
            v1_nft,
            m1,
            "Shards of Station Nine",
            "SSN",
            1000,
            1000,
            1,
            1_700_000_900,
            None,
            b1,
        ),
    )
    w.mint(m1, 0, v1)
    for who, amount in ((ALICE, 600), (BOB, 300), (CAROL, 100)):
        w.token(who, m1, amount)
    v2, b2 = fr.vault_pda(v2_nft)
    m2 = fr.fragment_mint_pda(v2_nft)[0]
    w.anchor(
        v2,
        FRAGMENT_PROGRAM_ID,
        fr.FragmentVault(
            BOB,
            v2_nft,
            m2,
            "B",
            "BB",
            200,
            200,
            4,
            1_700_000_800,
            1_700_001_000,
            b2,
        ),
    )
    w.mint(m2, 0, v2)
    buyout, bb = fr.buyout_pda(v2)
    w.token(buyout, m2, 150)
    w.token(CAROL, m2, 50)
    w.anchor(
        buyout,
        FRAGMENT_PROGRAM_ID,
        fr.Buyout(
            v2,
            BOB,
            2_000_000,
            100_000_000,
            50,
            0,
            0,
            AUCTION_MINT,
            1,
            NOW - HOUR,
            NOW + HOUR,
            None,
            bb,
        ),
    )

    pool, pbump = ln.pool_pda(POOL_NAME)
    lp_mint = ln.lp_mint_pda(pool)[0]
    w.mint(lp_mint, 9, pool)
    w.token(ALICE, lp_mint, 60_000 * MCC)
    w.token(BOB, lp_mint, 40_000 * MCC)
    w.anchor(
        pool,
        LENDING_PROGRAM_ID,
        ln.LendingPool(
            POOL_NAME,
            AUTH,
            ASSET_MINT,
            lp_mint,
            ata(pool, ASSET_MINT),
            100_000 * MCC,
            20_000 * MCC,
            100_000 * MCC,
            0,
            0,
            1000,
            8000,
            1000,
            8000,
            True,
            False,
            False,
            NOW - HOUR,
            1_690_000_000,
            NOW - HOUR,
            pbump,
        ),
    )
    w.token(pool, ASSET_MINT, 80_000 * MCC)
    oracle, obump = ln.oracle_pda(pool)
    w.anchor(
        oracle,
        LENDING_PROGRAM_ID,
        ln.NftPriceOracle(
            AUTH,
            1_000 * MCC,
            15_000 * MCC,
            200_000 * MCC,
            2_500_000 * MCC,
            1_699_000_000,
            1_690_000_000,
            obump,
        ),
    )
    loans = [  # (borrower, nft, type, principal, accrued, status, duration, created, due)
        (BOB, nft_mint(1, 3), 1, 7_000 * MCC, 0, 1, 2, NOW - 2 * HOUR, NOW + 10 * HOUR, None),
        (
            ALICE,
            wallet("t:old-nft"),
            0,
            400 * MCC,
            3 * MCC,
            2,
            0,
            1_690_000_000,
            1_690_259_200,
            1_690_100_000,
        ),
        (ALICE, wallet("t:late-nft"), 0, 100 * MCC, 0, 1, 0, NOW - 4 * 86_400, NOW - 86_400, None),
    ]
    for who, mint, t, principal, accrued, status, dur, created, due, repaid in loans:
        addr, bump = ln.loan_pda(who, mint)
        w.anchor(
            addr,
            LENDING_PROGRAM_ID,
            ln.Loan(
                who,
                pool,
                mint,
                t,
                (1_000, 15_000)[t] * MCC,
                principal,
                accrued,
                1250,
                status,
                dur,
                created,
                due,
                created,
                repaid,
                None,
                bump,
            ),
        )
    return w
