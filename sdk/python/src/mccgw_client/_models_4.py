"""Models, part 4 of 12 (re-exported by models.py)."""

# ruff: noqa: E501, RUF100
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel

from ._models_1 import BaseModel


class EstimateBorrowBody(BaseModel):
    duration: Annotated[Literal["three_days", "seven_days", "thirty_days"], Field(title="Duration")]
    loan_amount: Annotated[
        str,
        Field(
            description="Decimal string in the pool asset",
            examples=["500"],
            title="Loan Amount",
        ),
    ]
    nft_mint: Annotated[
        str | None, Field(description="Instead of territory_type", title="Nft Mint")
    ] = None
    territory_type: Annotated[
        Literal["station", "matrix", "sector", "system"] | None,
        Field(title="Territory Type"),
    ] = None


class Reason1(RootModel[str]):
    root: Annotated[str, Field(examples=["in_game_trade"], max_length=100, title="Reason")]


class FundsTransferIn(BaseModel):
    amount: Annotated[str, Field(examples=["1.5"], title="Amount")]
    currency: Annotated[Literal["MCC", "MCD"], Field(title="Currency")]
    from_uid: Annotated[str, Field(max_length=100, min_length=1, title="From Uid")]
    idempotency_key: Annotated[str | None, Field(title="Idempotency Key")] = None
    reason: Annotated[Reason1 | None, Field(examples=["in_game_trade"], title="Reason")] = None
    reference: Annotated[dict[str, Any] | None, Field(title="Reference")] = None
    to_uid: Annotated[str, Field(max_length=100, min_length=1, title="To Uid")]


class GlobalDay(BaseModel):
    activities: Annotated[int, Field(title="Activities")]
    date: Annotated[str, Field(title="Date")]
    mcd_amount: Annotated[str, Field(title="Mcd Amount")]
    miners: Annotated[int, Field(title="Miners")]
    trade_volume_usdc: Annotated[str, Field(title="Trade Volume Usdc")]


class HistoryItem(BaseModel):
    at: Annotated[str | None, Field(title="At")]
    reason: Annotated[str | None, Field(title="Reason")]
    status: Annotated[str, Field(title="Status")]


class HolderAttributes(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    is_buyout_escrow: Annotated[bool, Field(title="Is Buyout Escrow")]
    owner: Annotated[str, Field(title="Owner")]
    share: Annotated[str, Field(title="Share")]
    token_account: Annotated[str, Field(title="Token Account")]


class HoldingAttributes(BaseModel):
    amount: Annotated[str, Field(title="Amount")]
    fragment_mint: Annotated[str, Field(title="Fragment Mint")]
    fragment_symbol: Annotated[str, Field(title="Fragment Symbol")]
    nft_mint: Annotated[str, Field(title="Nft Mint")]
    share: Annotated[str, Field(title="Share")]
    token_account: Annotated[str, Field(title="Token Account")]
    vault: Annotated[str, Field(title="Vault")]
    vault_status: Annotated[str, Field(title="Vault Status")]


class InterestAttributes(BaseModel):
    decimals: Annotated[int, Field(title="Decimals")]
    duration_seconds: Annotated[int, Field(title="Duration Seconds")]
    interest: Annotated[
        str,
        Field(
            description="floor(floor(principal*rate*dt/10000)/31536000)",
            title="Interest",
        ),
    ]
    max_seconds_before_overflow: Annotated[int | None, Field(title="Max Seconds Before Overflow")]
    onchain_overflow: Annotated[
        bool,
        Field(
            description="principal*rate*dt exceeds 2^64-1: the program would fail (6031)",
            title="Onchain Overflow",
        ),
    ]
    principal: Annotated[str, Field(title="Principal")]
    prior_accrued_interest: Annotated[str, Field(title="Prior Accrued Interest")]
    rate_bps: Annotated[
        int,
        Field(
            description="The rate applied: min(rate, 10000) as loans cap it",
            title="Rate Bps",
        ),
    ]
    rate_source: Annotated[Literal["request", "pool"], Field(title="Rate Source")]
    total_debt: Annotated[str, Field(title="Total Debt")]


class Introspection(BaseModel):
    """
    RFC 7662: ``active`` always; the rest only for an active token.
    """

    model_config = ConfigDict(
        extra="allow",
    )
    active: Annotated[bool, Field(title="Active")]
    aud: Annotated[str | list[str] | None, Field(title="Aud")] = None
    client_id: Annotated[str | None, Field(title="Client Id")] = None
    exp: Annotated[int | None, Field(title="Exp")] = None
    iat: Annotated[int | None, Field(title="Iat")] = None
    iss: Annotated[str | None, Field(title="Iss")] = None
    scope: Annotated[str | None, Field(title="Scope")] = None
    sub: Annotated[str | None, Field(title="Sub")] = None
    token_type: Annotated[str | None, Field(title="Token Type")] = None
    username: Annotated[str | None, Field(title="Username")] = None


class Jwks(BaseModel):
    keys: Annotated[list[dict[str, Any]], Field(title="Keys")]


class LegacyError(BaseModel):
    """
    The legacy error body (not a problem document): ``{error, message, code}``.
    """

    code: Annotated[int, Field(title="Code")]
    error: Annotated[str, Field(title="Error")]
    message: Annotated[str, Field(title="Message")]


class LegacyManager(BaseModel):
    name: Annotated[str | None, Field(title="Name")]
    uid: Annotated[str, Field(title="Uid")]


class LegacyMccBalance(BaseModel):
    """
    The legacy plain form: JSON numbers (whole tokens with a fraction), no envelope.
    """

    available_balance: Annotated[float, Field(title="Available Balance")]
    locked_balance: Annotated[float, Field(title="Locked Balance")]
    pending_rewards: Annotated[
        float,
        Field(
            description="MCD of mining submissions not yet confirmed",
            title="Pending Rewards",
        ),
    ]
    total_balance: Annotated[float, Field(title="Total Balance")]


class LegacyMiningRecord(BaseModel):
    amount: Annotated[float, Field(title="Amount")]
    date: Annotated[str, Field(title="Date")]
    project: Annotated[str, Field(title="Project")]
    status: Annotated[str, Field(title="Status")]


class LegacyProfile(BaseModel):
    created_at: Annotated[str, Field(title="Created At")]
    email: Annotated[str | None, Field(title="Email")]
    role: Annotated[str, Field(title="Role")]
    station_id: Annotated[int | None, Field(title="Station Id")]
    uid: Annotated[str, Field(title="Uid")]
    unit_id: Annotated[int | None, Field(title="Unit Id")]


class LegacyTeamUnit(BaseModel):
    id: Annotated[int, Field(title="Id")]
    member_count: Annotated[int, Field(title="Member Count")]
    name: Annotated[str, Field(title="Name")]


class Level(BaseModel):
    bonus_percent: Annotated[int, Field(title="Bonus Percent")]
    cumulative_percent: Annotated[int, Field(title="Cumulative Percent")]
    lighting_condition: Annotated[str, Field(title="Lighting Condition")]
    unit_type: Annotated[str, Field(title="Unit Type")]


class LightIn(BaseModel):
    idempotency_key: Annotated[
        str | None,
        Field(
            description="Required unless the Idempotency-Key header is sent",
            title="Idempotency Key",
        ),
    ] = None


class ViewMeta(BaseModel):
    address: Annotated[
        str | None,
        Field(description="The account the resource was decoded from", title="Address"),
    ] = None
    api_version: Annotated[str | None, Field(title="Api Version")] = "v1"
    max_age_seconds: Annotated[
        float,
        Field(
            description="Snapshots are re-read at most this often",
            title="Max Age Seconds",
        ),
    ]
    program: Annotated[
        str | None,
        Field(description="The program whose accounts a list scans", title="Program"),
    ] = None
    request_id: Annotated[str | None, Field(title="Request Id")] = None
    slot: Annotated[
        int,
        Field(
            description="The slot the data was read at (confirmed commitment)",
            title="Slot",
        ),
    ]


class ListMeta(ViewMeta):
    page: Annotated[int, Field(title="Page")]
    per_page: Annotated[int, Field(title="Per Page")]
    total: Annotated[int, Field(title="Total")]
