"""Token data: deposits seen on chain, the custody accounts the deposit watcher follows, and the
price oracle's closes and administrator prices (migration 0012)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, CreatedAt, CurrencyCode, IdentityPk, UserUid

# credited: an outside transfer into the account, credited to the ledger once;
# ignored_failed: the transaction failed on chain (it moved nothing);
# ignored_wrong_mint: a token balance of another mint changed (never credited);
# unexplained_outflow: tokens left the account in a transaction the gateway did not sign
# (nothing booked; reconciliation reports the account as drift).
DEPOSIT_OUTCOMES = ("credited", "ignored_failed", "ignored_wrong_mint", "unexplained_outflow")
PRICE_SOURCES = ("market", "admin", "default")


class CustodyWatch(Base):
    """A custody account the deposit watcher follows, with how far it has read its history."""

    __tablename__ = "custody_watch"
    __table_args__ = (
        UniqueConstraint("user_uid", "currency", name="uq_custody_watch_user_uid"),
        CheckConstraint("currency IN ('MCC', 'MCD')", name="currency"),
    )

    address: Mapped[str] = mapped_column(String(44), primary_key=True)
    user_uid: Mapped[UserUid]
    currency: Mapped[CurrencyCode]
    # The deposit watcher's follower had this account in its set from this slot on: every
    # block after it is matched against the account (NULL: no follower has had it yet).
    watched_from: Mapped[int | None] = mapped_column(BigInteger)
    # Caught up: the account exists on chain and its history up to ``watched_from`` was
    # examined (tokens/deposit_catch_up.py), so nothing before the block walk is missed.
    ready: Mapped[bool] = mapped_column(Boolean, default=False, server_default="f")
    # The catch-up's position: the oldest signature it has examined; its next page is read
    # before it (getSignaturesForAddress ``before``). NULL: from the newest.
    last_signature: Mapped[str | None] = mapped_column(String(88))
    scanned_at: Mapped[datetime | None]
    created_at: Mapped[CreatedAt]


class DepositCursor(Base):
    """How far the deposit watcher has walked a chain's finalized blocks (tokens/deposits.py):
    every block up to and including ``slot`` was examined and its credits committed in the same
    transaction as this row. One row per chain, keyed by its genesis hash."""

    __tablename__ = "deposit_cursor"

    chain: Mapped[str] = mapped_column(String(64), primary_key=True)
    slot: Mapped[int]
    updated_at: Mapped[CreatedAt]


class Deposit(Base):
    __tablename__ = "deposits"
    __table_args__ = (
        UniqueConstraint("signature", "address", name="uq_deposits_signature"),
        CheckConstraint(f"outcome IN {DEPOSIT_OUTCOMES!r}", name="outcome"),
        CheckConstraint("amount >= 0", name="amount_nonneg"),
        Index("ix_deposits_user", "user_uid", "currency", "id"),
    )

    id: Mapped[IdentityPk]
    signature: Mapped[str] = mapped_column(String(88))
    address: Mapped[str] = mapped_column(String(44))
    user_uid: Mapped[UserUid]
    currency: Mapped[CurrencyCode]
    outcome: Mapped[str] = mapped_column(String(24))
    amount: Mapped[int]
    # Owner of the token account the tokens came from (the sending wallet), when known.
    sender: Mapped[str | None] = mapped_column(String(44))
    mint: Mapped[str | None] = mapped_column(String(44))
    slot: Mapped[int]
    block_time: Mapped[datetime | None]
    err: Mapped[Any | None] = mapped_column(JSONB)
    created_at: Mapped[CreatedAt]


class PriceClose(Base):
    """One 4-hour close of the oracle: the price taken, its source, and the rule's result."""

    __tablename__ = "price_closes"
    __table_args__ = (
        CheckConstraint(f"source IN {PRICE_SOURCES!r}", name="source"),
        CheckConstraint("price_usdc > 0", name="price_positive"),
    )

    close_at: Mapped[datetime] = mapped_column(primary_key=True)
    # 6-decimal USDC units per whole MCC.
    price_usdc: Mapped[int]
    source: Mapped[str] = mapped_column(String(16))
    base_price_usdc: Mapped[int]
    buyback_price_usdc: Mapped[int]
    premium_bps: Mapped[int] = mapped_column(Integer)
    # How many closes the base price is the mean of (180 once there are that many).
    points: Mapped[int] = mapped_column(Integer)
    onchain_signature: Mapped[str | None] = mapped_column(String(88))
    onchain_at: Mapped[datetime | None]
    created_at: Mapped[CreatedAt]


class PriceSample(Base):
    """One reading of the market pool by the oracle's sampler (once a minute), kept for the
    close whose window it falls in: the vault balances, the price they give, and whether it
    counts (the pool held at least the liquidity floor of USDC). Migration 0020."""

    __tablename__ = "price_samples"

    sampled_at: Mapped[datetime] = mapped_column(primary_key=True)
    usdc_vault: Mapped[int] = mapped_column(BigInteger)
    mcc_vault: Mapped[int] = mapped_column(BigInteger)
    # 6-decimal USDC units per whole MCC; None for an empty pool.
    price_usdc: Mapped[int | None] = mapped_column(BigInteger)
    counted: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[CreatedAt]


class AdminPrice(Base):
    """Every administrator price ever set (the newest is current), with who and when."""

    __tablename__ = "admin_prices"
    __table_args__ = (CheckConstraint("price_usdc > 0", name="price_positive"),)

    id: Mapped[IdentityPk]
    price_usdc: Mapped[int]
    set_by: Mapped[str] = mapped_column(String(100))
    request_id: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[CreatedAt]


class LedgerMovementCount(Base):
    """Balance movements per ledger account, kept by the ``ledger_entries_number`` trigger."""

    __tablename__ = "ledger_movement_counts"

    user_uid: Mapped[UserUid] = mapped_column(primary_key=True)
    currency: Mapped[CurrencyCode] = mapped_column(primary_key=True)
    movements: Mapped[int] = mapped_column(default=0, server_default="0")


class LedgerMovement(Base):
    """The n-th balance movement of an account (dense from 1), kept by the same trigger: a
    transactions page is a primary-key range at any depth."""

    __tablename__ = "ledger_movements"

    user_uid: Mapped[UserUid] = mapped_column(primary_key=True)
    currency: Mapped[CurrencyCode] = mapped_column(primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True)
    entry_id: Mapped[int]
