"""The stored record of one chain write, as callers see it (``ChainWrite``), and the small
pure helpers of the write protocol (``chain/writes.py``) that read or stamp that record."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from solders.instruction import Instruction
from solders.system_program import ID as SYSTEM_PROGRAM_ID
from solders.transaction import VersionedTransaction

from chain import tx_store
from chain.answers import TOKEN_PROGRAMS
from chain.errors import (
    ChainRejected,
    InsufficientChainFunds,
)
from db.models.chain import ChainTransaction, ChainTxAttempt

FINAL_STATUSES = ("succeeded", "failed")


@dataclass(frozen=True)
class ChainWrite:
    """A snapshot of one write record, safe to hand across activities (plain values)."""

    op_key: str
    kind: str
    status: str  # signed | sent | landed | succeeded | failed
    signature: str
    attempt: int
    previous_signatures: tuple[str, ...]
    blockhash: str
    last_valid_block_height: int
    commitment: str
    confirmation_status: str | None
    slot: int | None
    block_height: int | None
    err: Any
    send_count: int
    insufficient_funds: bool = False

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"

    def raise_for_failure(self) -> ChainWrite:
        if self.status == "failed":
            cls = InsufficientChainFunds if self.insufficient_funds else ChainRejected
            raise cls(self.op_key, self.err, self.signature)
        return self


# The snapshot fields that are the record's columns of the same name, copied as they are.
_ROW_FIELDS = tuple(
    f.name
    for f in fields(ChainWrite)
    if f.name not in ("previous_signatures", "send_count", "insufficient_funds")
)


@dataclass(frozen=True)
class Send:
    """Bytes to (re-)broadcast, decided under the record's lock and sent after commit."""

    signature: str
    tx_bytes: bytes


def payload_digest(instructions: Sequence[Instruction]) -> str:
    digest = hashlib.sha256()
    for ix in instructions:
        blob = bytes(ix)
        digest.update(len(blob).to_bytes(4, "little") + blob)
    return digest.hexdigest()


def resend_due(last_sent_at: datetime | None, interval: float) -> bool:
    if last_sent_at is None:
        return True
    return (datetime.now(UTC) - last_sent_at).total_seconds() >= interval


def finish(row: ChainTransaction, status: str, err: Any = None) -> None:
    row.status = status
    row.err = err
    row.completed_at = datetime.now(UTC)


def make_current(row: ChainTransaction, attempt: ChainTxAttempt) -> None:
    tx_store.stamp(row, tx_store.attempt_values(attempt))


def insufficient(err: Any, tx_bytes: bytes) -> bool:
    if isinstance(err, str):
        return err.startswith("InsufficientFunds")
    if not (isinstance(err, dict) and "InstructionError" in err):
        return False
    index, detail = err["InstructionError"]
    if detail != {"Custom": 1}:
        return False
    # Custom(1) is InsufficientFunds in SPL Token and ResultWithNegativeLamports in System.
    message = VersionedTransaction.from_bytes(tx_bytes).message
    ix = message.instructions[index]
    program = message.account_keys[ix.program_id_index]
    return program in TOKEN_PROGRAMS or program == SYSTEM_PROGRAM_ID


def snapshot(row: ChainTransaction, attempts: Sequence[ChainTxAttempt]) -> ChainWrite:
    return ChainWrite(
        **{name: getattr(row, name) for name in _ROW_FIELDS},
        previous_signatures=tuple(a.signature for a in attempts if a.attempt != row.attempt),
        send_count=row.send_count or 0,
        insufficient_funds=row.status == "failed" and insufficient(row.err, row.tx_bytes),
    )
