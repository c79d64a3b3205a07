"""The attributes of the token routes' resources (api.routes.tokens, api.routes.token_price)."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, Field

from api.idempotency import OptionalIdempotencyKey
from api.typed import Attributes, Shape
from core.money import to_decimal_string
from core.time import iso
from tokens.balances import CustodyBalance

# Typed as in the 1.0.0 document (a narrower type would break 1.x clients' code: Optic).
_UPDATED_AT = (
    "When the booked balance last changed; for a user with no movement yet, the time of this "
    "reading. Always a timestamp since 1.1.0 (null in 1.0.0 before a first movement)"
)


def _balance(
    b: CustodyBalance, decimals: int, held: str, deposit: tuple[str, str]
) -> dict[str, Any]:
    return {
        "total_balance": to_decimal_string(b.total, decimals),
        "available_balance": to_decimal_string(b.available, decimals),
        held: to_decimal_string(b.held, decimals),
        "pending_out": to_decimal_string(b.pending_out, decimals),
        "deposit_address": deposit[0],
        "deposit_owner": deposit[1],
        "updated_at": iso(b.updated_at),
    }


class McdBalanceAttributes(Attributes):
    total_balance: str = Field(description="finalized custody balance as booked (decimal)")
    available_balance: str
    frozen_balance: str = Field(description="sum of active fund locks")
    pending_out: str = Field(description="outgoing transfers not yet final")
    deposit_address: str = Field(description="the user's custody token account: send here")
    deposit_owner: str = Field(description="owner of the deposit address (the custody authority)")
    updated_at: str | None = Field(description=_UPDATED_AT)

    @classmethod
    def of(cls, b: CustodyBalance, decimals: int, deposit: tuple[str, str]) -> Self:
        """``deposit``: the user's deposit address and its owner."""
        return cls(**_balance(b, decimals, "frozen_balance", deposit))


class MccBalanceAttributes(Attributes):
    total_balance: str
    available_balance: str
    locked_balance: str = Field(description="sum of active fund locks")
    pending_out: str
    deposit_address: str
    deposit_owner: str
    updated_at: str | None = Field(description=_UPDATED_AT)

    @classmethod
    def of(cls, b: CustodyBalance, decimals: int, deposit: tuple[str, str]) -> Self:
        """``deposit``: the user's deposit address and its owner."""
        return cls(**_balance(b, decimals, "locked_balance", deposit))


class LegacyMccBalanceBody(Shape):
    """The legacy plain form: JSON numbers (whole tokens with a fraction), no envelope."""

    total_balance: float
    locked_balance: float
    available_balance: float
    pending_rewards: float = Field(description="MCD of mining submissions not yet confirmed")


class AddressBalanceAttributes(Attributes):
    address: str
    total_balance: str = Field(description="sum of the wallet's MCC token accounts (finalized)")
    token_accounts: int
    updated_at: str


class TokenTransactionAttributes(Attributes):
    type: str = Field(
        description="deposit, transfer_in, transfer_out, settlement_in, settlement_out, "
        "mining_reward, credit, debit"
    )
    direction: Literal["in", "out"]
    currency: str
    amount: str
    counterparty: str | None = Field(description="user uid, sending wallet, or project")
    status: str
    signature: str | None
    reference: str | None
    created_at: str


class TokenStatsAttributes(Attributes):
    mint: str
    supply: str
    decimals: int
    custody_total: str
    holders: int
    volume_24h: str
    transactions_24h: int
    volume_30d: str
    transactions_30d: int
    price_usdc: str | None = None
    price_source: str | None = None
    updated_at: str


class MccPriceAttributes(Attributes):
    price_usdc: str = Field(description="the price the rule gives now")
    source: Literal["market", "admin", "default"]
    updated_at: str = Field(description="when the source value was observed or set")
    base_price_usdc: str | None = Field(
        description="mean of the middle half of the last closes (up to 180)"
    )
    buyback_price_usdc: str | None = Field(description="base + floor(base * premium / 10000)")
    premium_bps: int
    points: int = Field(description="closes the base is taken from (180 once that many exist)")
    close_at: str | None = Field(description="the newest close")
    tx_signature: str | None = Field(description="the last on-chain update_price")
    onchain_updated_at: str | None


class MccPriceIn(BaseModel):
    price_usdc: str = Field(examples=["10.5"], description="6 decimals at most, 0.01 to 1000")
    idempotency_key: OptionalIdempotencyKey = None
