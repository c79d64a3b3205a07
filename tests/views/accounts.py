"""The wallets, mints and amounts the view tests' chain is built from (tests/views/world.py)."""

from __future__ import annotations

from devchain.fixtures import wallet

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
