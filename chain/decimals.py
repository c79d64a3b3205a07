"""Each mint's own decimals and token program, read from the chain (decisions.md, Chain: never
assumed; the ecosystem's MCD Token program creates its mint with 6 decimals, MCC has 9).

Every amount is an integer of its own mint's base units from the request to the chain and
back: an amount of MCC is written with MCC's decimals, one of MCD with MCD's. There is no
value "both share"."""

from __future__ import annotations

from dataclasses import dataclass

from core.money import to_base_units, to_decimal_string


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

    def format(self, amount: int, currency: str) -> str:
        """``amount`` base units of ``currency`` as the decimal string the API shows."""
        return to_decimal_string(amount, self.of(currency))

    def parse(self, text: str, currency: str) -> int:
        """A decimal string of ``currency`` as its mint's base units (raises InvalidAmount)."""
        return to_base_units(text, self.of(currency))
