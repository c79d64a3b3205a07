"""Operations, part 5 of 5 (re-exported by operations.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Any

from ._operation import Operation

wallet_bids: Operation[Any] = Operation(
    "wallet_bids",
    "GET",
    "/v1/auction-solana/bids/{wallet}",
    None,
    None,
    "A wallet's bids, newest first, with the state of each auction.",
)
