"""Deterministic genesis fixtures: the ecosystem's read-only programs as they would look on a
cluster, in their real layouts and owned by their real program ids.

    python -m devchain.fixtures --out devchain/node/fixtures

writes one `solana account --output json` file per account (the form the node's genesis reads;
see ``devchain/node/genesis.py``). Same code, same bytes: every key is derived from a label
(``wallet("alice")``), every time from the fixed ``EPOCH``. Times are absolute, not shifted at
load: things meant to be "active" end at ``ACTIVE_UNTIL`` (2033-05-18), things "ended" ended
before ``EPOCH`` (2026-11-01), so the dev chain looks the same on every start.

``World`` (``devchain/world.py``) is also the builder tests and the benchmark use to write
their own accounts; the accounts themselves are in ``nfts.py`` and ``defi.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from chain.ecosystem import MCC_MINT
from devchain.defi import POOL_NAME, add_fragment, add_lending, add_level_verifier
from devchain.nfts import add_auction, add_territory, nft_mint_of
from devchain.world import (
    ACTIVE_UNTIL,
    DAY,
    DEFAULT_DIR,
    EPOCH,
    MCC,
    SYSTEM_PROGRAM_ID,
    World,
    wallet,
)

__all__ = [
    "ACTIVE_UNTIL",
    "DAY",
    "DEFAULT_DIR",
    "EPOCH",
    "MCC",
    "POOL_NAME",
    "World",
    "dev_world",
    "nft_mint_of",
    "wallet",
]


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
        prog="python -m devchain.fixtures",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", type=Path, default=DEFAULT_DIR)
    args = p.parse_args(argv)
    n = dev_world().write(args.out)
    print(f"wrote {n} account files to {args.out}")


if __name__ == "__main__":
    main()
