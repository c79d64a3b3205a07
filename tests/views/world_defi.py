"""The fragment vaults and the lending pool of the view tests' chain (tests/views/world.py),
with every value the tests check chosen here."""

from __future__ import annotations

from chain.ecosystem import FRAGMENT_PROGRAM_ID, LENDING_PROGRAM_ID, ata
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from devchain.defi import lending_pool
from devchain.fixtures import World, wallet
from tests.views import accounts as acc


def add_fragments_and_lending(w: World, now: int) -> None:
    fcfg, fbump = fr.config_pda()
    w.anchor(
        fcfg,
        FRAGMENT_PROGRAM_ID,
        fr.FragmentConfig(
            acc.AUTH,
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
            acc.ALICE,
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
    for who, amount in ((acc.ALICE, 600), (acc.BOB, 300), (acc.CAROL, 100)):
        w.token(who, m1, amount)
    v2, b2 = fr.vault_pda(v2_nft)
    m2 = fr.fragment_mint_pda(v2_nft)[0]
    w.anchor(
        v2,
        FRAGMENT_PROGRAM_ID,
        fr.FragmentVault(
            acc.BOB,
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
    w.token(acc.CAROL, m2, 50)
    w.anchor(
        buyout,
        FRAGMENT_PROGRAM_ID,
        fr.Buyout(
            v2,
            acc.BOB,
            2_000_000,
            100_000_000,
            50,
            0,
            0,
            acc.AUCTION_MINT,
            1,
            now - acc.HOUR,
            now + acc.HOUR,
            None,
            bb,
        ),
    )

    pool, pbump = ln.pool_pda(acc.POOL_NAME)
    lp_mint = ln.lp_mint_pda(pool)[0]
    w.mint(lp_mint, 9, pool)
    w.token(acc.ALICE, lp_mint, 60_000 * acc.MCC)
    w.token(acc.BOB, lp_mint, 40_000 * acc.MCC)
    w.anchor(
        pool,
        LENDING_PROGRAM_ID,
        lending_pool(
            acc.POOL_NAME,
            acc.AUTH,
            acc.ASSET_MINT,
            lp_mint,
            ata(pool, acc.ASSET_MINT),
            deposits=100_000 * acc.MCC,
            borrowed=20_000 * acc.MCC,
            lp_supply=100_000 * acc.MCC,
            last_update=now - acc.HOUR,
            created=1_690_000_000,
            updated=now - acc.HOUR,
            bump=pbump,
        ),
    )
    w.token(pool, acc.ASSET_MINT, 80_000 * acc.MCC)
    oracle, obump = ln.oracle_pda(pool)
    w.anchor(
        oracle,
        LENDING_PROGRAM_ID,
        ln.NftPriceOracle(
            acc.AUTH,
            1_000 * acc.MCC,
            15_000 * acc.MCC,
            200_000 * acc.MCC,
            2_500_000 * acc.MCC,
            1_699_000_000,
            1_690_000_000,
            obump,
        ),
    )
    loans = [  # (borrower, nft, type, principal, accrued, status, duration, created, due)
        (
            acc.BOB,
            acc.nft_mint(1, 3),
            1,
            7_000 * acc.MCC,
            0,
            1,
            2,
            now - 2 * acc.HOUR,
            now + 10 * acc.HOUR,
            None,
        ),
        (
            acc.ALICE,
            wallet("t:old-nft"),
            0,
            400 * acc.MCC,
            3 * acc.MCC,
            2,
            0,
            1_690_000_000,
            1_690_259_200,
            1_690_100_000,
        ),
        (
            acc.ALICE,
            wallet("t:late-nft"),
            0,
            100 * acc.MCC,
            0,
            1,
            0,
            now - 4 * 86_400,
            now - 86_400,
            None,
        ),
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
                (1_000, 15_000)[t] * acc.MCC,
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
