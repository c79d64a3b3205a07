"""The committed genesis fixtures are exactly what the generator writes, and decode."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from chain.ecosystem import AUCTION_PROGRAM_ID, LENDING_PROGRAM_ID
from chain.ecosystem import auction as au
from chain.ecosystem import lending as ln
from devchain.fixtures import DEFAULT_DIR, dev_world


def test_committed_fixtures_match_the_generator(tmp_path: Path) -> None:
    dev_world().write(tmp_path)
    fresh = {p.name: p.read_bytes() for p in tmp_path.glob("*.json")}
    committed = {p.name: p.read_bytes() for p in DEFAULT_DIR.glob("*.json")}
    assert fresh == committed, "run: python -m devchain.fixtures"
    assert sum(len(b) for b in committed.values()) < 300_000


def test_fixture_accounts_decode() -> None:
    by_owner: dict[str, list[bytes]] = {}
    for p in DEFAULT_DIR.glob("*.json"):
        acc = json.loads(p.read_text())["account"]
        by_owner.setdefault(acc["owner"], []).append(base64.b64decode(acc["data"][0]))
    auctions = [
        au.Auction.decode(d)
        for d in by_owner[AUCTION_PROGRAM_ID]
        if d[:8] == au.Auction.discriminator()
    ]
    assert sorted(a.status for a in auctions) == [1, 1, 1, 2, 3]
    loans = [
        ln.Loan.decode(d) for d in by_owner[LENDING_PROGRAM_ID] if d[:8] == ln.Loan.discriminator()
    ]
    assert sorted(loan.status for loan in loans) == [0, 1, 1, 2, 3]
