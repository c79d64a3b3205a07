"""Durable records of the gateway's chain writes (exactly-once submission).

One ``chain_transactions`` row per caller op_key holds the current signed attempt; every signed
attempt (the first and each re-sign after blockhash expiry) is also kept in ``chain_tx_attempts``
so the history of signatures that could ever have landed stays auditable.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from db.base import Base, IdentityPk, TimestampMixin

# signed: persisted, maybe never sent; sent: broadcast at least once; landed: seen on chain
# below the target commitment; succeeded: at the target commitment without error;
# failed: landed with an error (or rejected by simulation before any send) - terminal.
CHAIN_TX_STATUSES = ("signed", "sent", "landed", "succeeded", "failed")
# An attempt is "expired" once its blockhash is past lastValidBlockHeight and it never landed.
CHAIN_ATTEMPT_STATUSES = ("signed", "sent", "landed", "expired", "succeeded", "failed")
COMMITMENTS = ("processed", "confirmed", "finalized")


class ChainTransaction(TimestampMixin, Base):
    __tablename__ = "chain_transactions"
    __table_args__ = (
        CheckConstraint(f"status IN {CHAIN_TX_STATUSES!r}", name="status"),
        CheckConstraint(f"commitment IN {COMMITMENTS!r}", name="commitment"),
        CheckConstraint("attempt >= 1", name="attempt"),
    )

    id: Mapped[IdentityPk]
    op_key: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(32), default="generic")
    status: Mapped[str] = mapped_column(String(16), index=True)
    # Target commitment recorded at submit, so a later process waits for the same one.
    commitment: Mapped[str] = mapped_column(String(16))
    # sha256 of the instruction list: the same op_key with other instructions is a conflict.
    payload_hash: Mapped[str] = mapped_column(String(64))
    fee_payer: Mapped[str] = mapped_column(String(44))
    # The current attempt (mirrors the newest chain_tx_attempts row).
    attempt: Mapped[int] = mapped_column(Integer, default=1)
    signature: Mapped[str] = mapped_column(String(88), unique=True)
    blockhash: Mapped[str] = mapped_column(String(44))
    last_valid_block_height: Mapped[int]
    tx_bytes: Mapped[bytes] = mapped_column(LargeBinary)
    send_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_sent_at: Mapped[datetime | None]
    last_send_error: Mapped[str | None] = mapped_column(String(1000))
    # Where and how far it landed.
    slot: Mapped[int | None]
    block_height: Mapped[int | None]
    confirmation_status: Mapped[str | None] = mapped_column(String(16))
    # The on-chain (or simulation) error, as the RPC's JSON; set only with status failed.
    err: Mapped[Any | None] = mapped_column(JSONB)
    completed_at: Mapped[datetime | None]
    # What the landed attempt paid (chain/fees.py fee_of) and its compute-unit price.
    fee_lamports: Mapped[int | None] = mapped_column(BigInteger)
    cu_price: Mapped[int | None] = mapped_column(BigInteger)
    # Caller context (e.g. the transfers of a batch, amounts as strings); never read back here.
    meta: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)


class ChainTxAttempt(TimestampMixin, Base):
    __tablename__ = "chain_tx_attempts"
    __table_args__ = (
        UniqueConstraint("chain_tx_id", "attempt"),
        CheckConstraint(f"status IN {CHAIN_ATTEMPT_STATUSES!r}", name="status"),
    )

    id: Mapped[IdentityPk]
    chain_tx_id: Mapped[int] = mapped_column(
        ForeignKey("chain_transactions.id", ondelete="CASCADE")
    )
    attempt: Mapped[int] = mapped_column(Integer)
    signature: Mapped[str] = mapped_column(String(88), unique=True)
    blockhash: Mapped[str] = mapped_column(String(44))
    last_valid_block_height: Mapped[int]
    tx_bytes: Mapped[bytes] = mapped_column(LargeBinary)
    status: Mapped[str] = mapped_column(String(16))


class MintDecimals(Base):
    """Decimals and owner program of an SPL mint as read from the chain. Both are fixed when the
    mint is initialised, so a value read once holds for that address: a process that starts
    while its chain is down uses it (chain/gateway.py load_token_decimals)."""

    __tablename__ = "mint_decimals"

    mint: Mapped[str] = mapped_column(String(44), primary_key=True)
    decimals: Mapped[int] = mapped_column(Integer)
    # The token program owning the mint (SPL Token or Token-2022); NULL: read before 0021.
    program: Mapped[str | None] = mapped_column(String(44))
    read_at: Mapped[datetime] = mapped_column(server_default=func.now(), nullable=False)
