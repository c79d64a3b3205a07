"""The dev chain's MCC and MCD mints, one rule for every way a chain gets them: the local node's
genesis (``mccgw dev --mcd-decimals``, the node's ``--mcd-token-2022``) and a bare cluster's
``mccgw chain-init`` (the same two flags). MCC is an SPL Token mint of 9 decimals; MCD has
``mcd_decimals`` (the ecosystem's own MCD Token program creates it with 6, ecosystem-programs
§1.3) and is owned by Token-2022 when asked."""

from __future__ import annotations

from dataclasses import dataclass

from solders.pubkey import Pubkey
from spl.token.constants import TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID

MCC_DECIMALS = 9


@dataclass(frozen=True)
class MintSpec:
    currency: str
    decimals: int
    program: Pubkey


def dev_mints(mcd_decimals: int = MCC_DECIMALS, mcd_token_2022: bool = False) -> list[MintSpec]:
    """The MCC and MCD mints as the dev chain makes them (MCC first)."""
    mcd_program = TOKEN_2022_PROGRAM_ID if mcd_token_2022 else TOKEN_PROGRAM_ID
    return [
        MintSpec("MCC", MCC_DECIMALS, TOKEN_PROGRAM_ID),
        MintSpec("MCD", mcd_decimals, mcd_program),
    ]
