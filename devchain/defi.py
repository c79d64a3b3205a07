"""The dev chain's fragment vaults, lending pool and level verifier
(``devchain/fixtures.py``)."""

from __future__ import annotations

from chain.ecosystem import (
    FRAGMENT_PROGRAM_ID,
    LENDING_PROGRAM_ID,
    LEVEL_VERIFIER_PROGRAM_ID,
    MCC_MINT,
    TERRITORY_PROGRAM_ID,
    ata,
)
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from chain.ecosystem import level_verifier as lv
from chain.ecosystem import territory as te
from devchain.nfts import nft_mint_of
from devchain.world import ACTIVE_UNTIL, DAY, EPOCH, MCC, World, wallet


def add_fragment(w: World) -> None:
    cfg, bump = fr.config_pda()
    w.anchor(
        cfg,
        FRAGMENT_PROGRAM_ID,
        fr.FragmentConfig(
            wallet("authority"),
            100,
            10_000,
            7 * DAY,
            3,
            1,
            False,
            EPOCH - 100 * DAY,
            EPOCH - DAY,
            bump,
        ),
    )
    # (nft, owner, name, symbol, total, status, holders, redeemed_at)
    specs = [
        (
            (0, 4),
            "dave",
            "Station 4 Shards",
            "ST4",
            1000,
            1,
            [("dave", 600), ("alice", 300), ("carol", 100)],
            None,
        ),
        ((0, 5), "alice", "Station Five", "ST5F", 500, 4, [("bob", 180), ("carol", 120)], None),
        ((0, 11), "carol", "Old Station 11", "ST11", 100, 3, [], EPOCH - 15 * DAY),
    ]
    for (tt, tid), owner, name, symbol, total, status, holders, redeemed in specs:
        nft = nft_mint_of(tt, tid)
        vault, vbump = fr.vault_pda(nft)
        fmint, _ = fr.fragment_mint_pda(nft)
        w.anchor(
            vault,
            FRAGMENT_PROGRAM_ID,
            fr.FragmentVault(
                wallet(owner),
                nft,
                fmint,
                name,
                symbol,
                total,
                total,
                status,
                EPOCH - 40 * DAY,
                redeemed,
                vbump,
            ),
        )
        w.mint(fmint, 0, vault)
        for who, amount in holders:
            w.token(wallet(who), fmint, amount)
        if status != 3:
            w.token(vault, nft, 1)  # the NFT in escrow: ATA(vault, nft)
        if status == 4:  # buyout by alice of the 300 fragments she does not hold
            buyout, bbump = fr.buyout_pda(vault)
            w.token(buyout, fmint, 200)  # alice's 200 escrowed; sellers' 0 so far
            w.token(buyout, MCC_MINT, 300 * 2 * MCC)
            w.anchor(
                buyout,
                FRAGMENT_PROGRAM_ID,
                fr.Buyout(
                    vault,
                    wallet("alice"),
                    2 * MCC,
                    300 * 2 * MCC,
                    300,
                    0,
                    0,
                    MCC_MINT,
                    1,
                    EPOCH - DAY,
                    ACTIVE_UNTIL,
                    None,
                    bbump,
                ),
            )
    # redeemed vault 3: the NFT went back to carol
    w.mint(nft_mint_of(0, 11), 0, te.collection_pda()[0])
    w.token(wallet("carol"), nft_mint_of(0, 11), 1)


POOL_NAME = "MCC Main Pool"


def lending_pool(
    name: str,
    authority: str,
    asset_mint: str,
    lp_mint: str,
    vault: str,
    *,
    deposits: int,
    borrowed: int,
    lp_supply: int,
    accrued_interest: int = 0,
    protocol_fees: int = 0,
    last_update: int,
    created: int,
    updated: int,
    bump: int,
) -> ln.LendingPool:
    """A lending pool account on the ecosystem's default rate curve (in basis points), active,
    neither side paused."""
    return ln.LendingPool(
        name=name, authority=authority, asset_mint=asset_mint, lp_mint=lp_mint, vault=vault,
        total_deposits=deposits, total_borrowed=borrowed, total_lp_supply=lp_supply,
        accrued_interest=accrued_interest, protocol_fees=protocol_fees,
        base_rate=1000, optimal_utilization=8000, slope1=1000, slope2=8000,
        is_active=True, deposits_paused=False, borrows_paused=False,
        last_update_timestamp=last_update, created_at=created, updated_at=updated, bump=bump,
    )  # fmt: skip


def add_lending(w: World) -> None:
    pool, pbump = ln.pool_pda(POOL_NAME)
    lp_mint, _ = ln.lp_mint_pda(pool)
    oracle, obump = ln.oracle_pda(pool)
    vault = ata(pool, MCC_MINT)
    deposits, borrowed = 100_000 * MCC, 9_500 * MCC
    lp = {"alice": 60_000 * MCC, "bob": 40_000 * MCC}
    w.mint(lp_mint, 9, pool)
    for who, amount in lp.items():
        w.token(wallet(who), lp_mint, amount)
    w.anchor(
        pool,
        LENDING_PROGRAM_ID,
        lending_pool(
            POOL_NAME,
            wallet("authority"),
            MCC_MINT,
            lp_mint,
            vault,
            deposits=deposits,
            borrowed=borrowed,
            lp_supply=sum(lp.values()),
            accrued_interest=120 * MCC,
            protocol_fees=12 * MCC,
            last_update=EPOCH - DAY,
            created=EPOCH - 200 * DAY,
            updated=EPOCH - DAY,
            bump=pbump,
        ),
    )
    w.token(pool, MCC_MINT, deposits - borrowed + 108 * MCC, address=vault)
    w.anchor(
        oracle,
        LENDING_PROGRAM_ID,
        ln.NftPriceOracle(
            wallet("authority"),
            1_000 * MCC,
            15_000 * MCC,
            200_000 * MCC,
            2_500_000 * MCC,
            EPOCH - 10 * DAY,
            EPOCH - 200 * DAY,
            obump,
        ),
    )
    # (borrower, collateral nft, principal, accrued, status, duration, created, due, repaid, liq)
    specs = [
        ("alice", (1, 1), 7_000 * MCC, 0, 1, 2, EPOCH - 5 * DAY, ACTIVE_UNTIL, None, None),
        ("dave", (0, 12), 500 * MCC, 0, 1, 0, EPOCH - 10 * DAY, EPOCH - 7 * DAY, None, None),
        (
            "bob",
            (1, 3),
            2_000 * MCC,
            15 * MCC,
            2,
            1,
            EPOCH - 40 * DAY,
            EPOCH - 33 * DAY,
            EPOCH - 35 * DAY,
            None,
        ),
        (
            "carol",
            (0, 3),
            400 * MCC,
            0,
            3,
            0,
            EPOCH - 60 * DAY,
            EPOCH - 57 * DAY,
            None,
            EPOCH - 56 * DAY,
        ),
        ("bob", (0, 6), 300 * MCC, 0, 0, 0, EPOCH - DAY, EPOCH + 2 * DAY, None, None),
    ]
    for who, (tt, tid), principal, accrued, status, dur, created, due, repaid, liq in specs:
        nft = nft_mint_of(tt, tid)
        loan, lbump = ln.loan_pda(wallet(who), nft)
        value = (1_000, 15_000, 200_000, 2_500_000)[tt] * MCC
        w.anchor(
            loan,
            LENDING_PROGRAM_ID,
            ln.Loan(
                wallet(who),
                pool,
                nft,
                tt,
                value,
                principal,
                accrued,
                1162,
                status,
                dur,
                created,
                due,
                created,
                repaid,
                liq,
                lbump,
            ),
        )
        if status == 1:
            w.token(loan, nft, 1)  # escrowed: ATA(loan, nft)


def add_level_verifier(w: World) -> None:
    cfg, _ = lv.config_pda()
    w.anchor(
        cfg,
        LEVEL_VERIFIER_PROGRAM_ID,
        lv.VerifierConfig(
            wallet("authority"),
            TERRITORY_PROGRAM_ID,
            "mCCUkDxoDfnVjTQjQHWkVi1PWBU2jxfQGJUhhDbeq5x",
            3,
            1,
            1,
            1,
            0,
            0,
            0,
            0,
            False,
            True,
            EPOCH - 100 * DAY,
            EPOCH - DAY,
        ),
    )
    day = EPOCH // DAY
    specs = [
        (
            "alice",
            "uid-alice",
            2,
            EPOCH - 50 * DAY,
            EPOCH - 29 * DAY,
            EPOCH - DAY,
            22,
            (1 << 22) - 1,
            EPOCH - 2 * DAY,
        ),
        ("bob", "uid-bob", 1, EPOCH - 10 * DAY, None, None, 0, 0, None),
        ("carol", "uid-carol-with-a-longer-firebase-identifier", 0, None, None, None, 0, 0, None),
    ]
    for who, uid, level, bound, first, last, days, bitmap, upgraded in specs:
        addr, bump = lv.profile_pda(wallet(who))
        w.anchor(
            addr,
            LEVEL_VERIFIER_PROGRAM_ID,
            lv.UserProfile(
                wallet(who),
                uid,
                level,
                bound,
                first,
                last,
                days,
                bitmap,
                day - 29,
                0,
                0,
                0,
                0,
                upgraded,
                EPOCH - 60 * DAY,
                EPOCH - DAY,
                bump,
            ),
        )
