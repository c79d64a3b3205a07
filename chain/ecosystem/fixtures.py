"""Deterministic genesis fixtures: the ecosystem's read-only programs as they would look on a
cluster, in their real layouts and owned by their real program ids.

    python -m chain.ecosystem.fixtures --out chain/node/fixtures

writes one `solana account --output json` file per account (the form the node's genesis reads;
see ``chain/node/genesis.py``). Same code, same bytes: every key is derived from a label
(``wallet("alice")``), every time from the fixed ``EPOCH``. Times are absolute, not shifted at
load: things meant to be "active" end at ``ACTIVE_UNTIL`` (2033-05-18), things "ended" ended
before ``EPOCH`` (2026-11-01), so the dev chain looks the same on every start.

``World`` is also the builder tests and the benchmark use to write their own accounts.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from solders.keypair import Keypair

from chain.ecosystem import (
    AUCTION_PROGRAM_ID,
    FRAGMENT_PROGRAM_ID,
    LENDING_PROGRAM_ID,
    LEVEL_VERIFIER_PROGRAM_ID,
    MCC_MINT,
    TERRITORY_COLLECTION_MINT,
    TERRITORY_PROGRAM_ID,
    TOKEN_PROGRAM_ID,
    ata,
    key_bytes,
)
from chain.ecosystem import auction as au
from chain.ecosystem import fragment as fr
from chain.ecosystem import lending as ln
from chain.ecosystem import level_verifier as lv
from chain.ecosystem import territory as te
from chain.ecosystem.borsh import ZERO_KEY, AnchorAccount

EPOCH = 1_793_491_200  # 2026-11-01T00:00:00Z
ACTIVE_UNTIL = 2_000_000_000  # 2033-05-18T03:33:20Z: "active" stays active
DAY = 86_400
MCC = 10**9
SYSTEM_PROGRAM_ID = "11111111111111111111111111111111"
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "node" / "fixtures"


def wallet(label: str) -> str:
    """A deterministic public key for a label (nobody needs its secret key)."""
    seed = hashlib.sha256(f"mccgw-fixture:{label}".encode()).digest()
    return str(Keypair.from_seed(seed).pubkey())


def rent(size: int) -> int:
    return (128 + size) * 3480 * 2


def mint_bytes(authority: str | None, supply: int, decimals: int) -> bytes:
    auth = (1).to_bytes(4, "little") + key_bytes(authority) if authority else bytes(36)
    return auth + supply.to_bytes(8, "little") + bytes([decimals, 1]) + bytes(36)


def token_bytes(mint: str, owner: str, amount: int) -> bytes:
    return (
        key_bytes(mint)
        + key_bytes(owner)
        + amount.to_bytes(8, "little")
        + bytes(36)  # no delegate
        + b"\x01"  # initialized
        + bytes(12)  # not native
        + bytes(8)  # delegated amount
        + bytes(36)  # no close authority
    )


@dataclass
class World:
    accounts: dict[str, tuple[str, bytes, int]] = field(default_factory=dict)
    supply: dict[str, int] = field(default_factory=dict)
    mints: dict[str, tuple[str | None, int]] = field(default_factory=dict)

    def put(self, address: str, owner: str, data: bytes, lamports: int | None = None) -> str:
        self.accounts[address] = (owner, data, rent(len(data)) if lamports is None else lamports)
        return address

    def anchor(self, address: str, program: str, acc: AnchorAccount) -> str:
        return self.put(address, program, acc.encode())

    def mint(self, address: str, decimals: int, authority: str | None = None) -> str:
        self.mints[address] = (authority, decimals)
        self.supply.setdefault(address, 0)
        return address

    def token(self, owner: str, mint: str, amount: int, address: str | None = None) -> str:
        """A token account (the owner's ATA unless an address is given); supply follows."""
        address = address or ata(owner, mint)
        self.supply[mint] = self.supply.get(mint, 0) + amount
        return self.put(address, TOKEN_PROGRAM_ID, token_bytes(mint, owner, amount))

    def finish(self) -> None:
        """Write the mints last, with the supply their token accounts add up to."""
        for address, (authority, decimals) in self.mints.items():
            data = mint_bytes(authority, self.supply.get(address, 0), decimals)
            self.put(address, TOKEN_PROGRAM_ID, data)

    def write(self, out: Path) -> int:
        self.finish()
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.json"):
            old.unlink()
        for address, (owner, data, lamports) in sorted(self.accounts.items()):
            doc = {
                "pubkey": address,
                "account": {
                    "lamports": lamports,
                    "data": [base64.b64encode(data).decode(), "base64"],
                    "owner": owner,
                    "executable": False,
                    "rentEpoch": 18446744073709551615,
                    "space": len(data),
                },
            }
            (out / f"{address}.json").write_text(json.dumps(doc, indent=1) + "\n")
        return len(self.accounts)


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
        ln.LendingPool(
            POOL_NAME,
            wallet("authority"),
            MCC_MINT,
            lp_mint,
            vault,
            deposits,
            borrowed,
            sum(lp.values()),
            120 * MCC,
            12 * MCC,
            1000,
            8000,
            1000,
            8000,
            True,
            False,
            False,
            EPOCH - DAY,
            EPOCH - 200 * DAY,
            EPOCH - DAY,
            pbump,
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


def dev_world() -> World:
    w = World()
    w.mint(MCC_MINT, 9, wallet("authority"))
    for who in ("alice", "bob", "carol", "dave"):
        w.token(wallet(who), MCC_MINT, 1_000 * MCC)
        w.put(wallet(who), SYSTEM_PROGRAM_ID, b"", 10 * MCC)
    add_territory(w)
    add_auction(w)
    add_fragment(w)
    add_lending(w)
    add_level_verifier(w)
    return w


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m chain.ecosystem.fixtures",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, default=DEFAULT_DIR)
    args = p.parse_args(argv)
    n = dev_world().write(args.out)
    print(f"wrote {n} account files to {args.out}")


if __name__ == "__main__":
    main()
