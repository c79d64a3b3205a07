"""Operations, part 5 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from . import models
from ._operation import Operation

vaults: Operation[models.ManyVaultAttributes] = Operation(
    "vaults",
    "GET",
    "/v1/fragment/vaults",
    None,
    models.ManyVaultAttributes,
    "Fragment vaults, newest first, optionally of one status.",
)
wallet_auctions: Operation[models.ManyAuctionAttributes] = Operation(
    "wallet_auctions",
    "GET",
    "/v1/auction-solana/auctions/{wallet}",
    None,
    models.ManyAuctionAttributes,
    "The auctions a wallet created, newest first.",
)
wallet_bids: Operation[models.ManyBidAttributes] = Operation(
    "wallet_bids",
    "GET",
    "/v1/auction-solana/bids/{wallet}",
    None,
    models.ManyBidAttributes,
    "A wallet's bids, newest first, with the state of each auction.",
)
