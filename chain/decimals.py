"""Token decimals, read from the mints on the chain (decisions.md, Chain: never assumed; the
ecosystem's own sources say 6 or 9 for MCD)."""

from __future__ import annotations

from dataclasses import dataclass

from chain.errors import ChainError


class DecimalsMismatch(ChainError):
    """MCC and MCD have different decimals where one value for both is needed."""


@dataclass(frozen=True)
class TokenDecimals:
    mcc: int
    mcd: int

    def of(self, currency: str) -> int:
        match currency.upper():
            case "MCC":
                return self.mcc
            case "MCD":
                return self.mcd
        raise ValueError(f"unknown currency {currency!r}")

    def common(self) -> int:
        """The one value the ledger formats both tokens' amounts with (docs/chain.md)."""
        if self.mcc != self.mcd:
            raise DecimalsMismatch(
                f"the MCC mint has {self.mcc} decimals and the MCD mint {self.mcd}: "
                "amounts of both are formatted with one value, refusing to guess"
            )
        return self.mcc
