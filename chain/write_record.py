"""One chain write's stored record: ``WriteRecord``, the one owner of every change to a
``chain_transactions`` row and its ``chain_tx_attempts``, and ``ChainWrite``, the snapshot of it
that callers see.

``chain/writes.py`` decides what happens to a write (send, re-check, re-sign: the protocol in
its docstring) and asks the record to move; ``chain/tx_store.py`` only finds records. The
moves, each under the row's lock in the caller's session (the caller commits), or made on a
record read without it and written by ``store``: one statement, applied only if nobody moved
the record meanwhile (the finality watcher's tick, ``ChainWrites.check_many``):

- ``create``: signed as attempt 1 and recorded, never sent (one statement, no lock needed);
- ``sent``: one broadcast of the current attempt counted (``signed`` -> ``sent``; one
  statement, no lock needed);
- ``landed``: a signature seen on chain (``landed`` below the awaited commitment), then
  ``settle``: the chain's verdict at it (``succeeded``, or ``failed`` with its error);
- ``dropped``: a landed signature's fork gone, so the same bytes may land again (``sent``);
- ``expired``: the current attempt provably expired unlanded; a freshly signed one is current;
- ``abandoned`` (an operator's cancel), and ``create``'s ``refused`` (the simulation before any
  send): final ``failed`` without the chain's verdict.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from typing import Any

from solders.instruction import Instruction
from solders.system_program import ID as SYSTEM_PROGRAM_ID
from solders.transaction import VersionedTransaction
from sqlalchemy import bindparam, case, inspect, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from chain import tx_store
from chain.answers import RANK, TOKEN_PROGRAMS, SignatureStatus
from chain.errors import ChainRejected, InsufficientChainFunds
from chain.fees import budget_of, fee_of
from core.metrics import CHAIN_FINALITY, CHAIN_WRITE_FEES, CHAIN_WRITES
from db.base import table_of
from db.models.chain import ChainTransaction, ChainTxAttempt

FINAL_STATUSES = ("succeeded", "failed")

# The columns a write record shares with its current attempt row: a re-sign replaces them all.
ATTEMPT_COLUMNS = ("attempt", "signature", "blockhash", "last_valid_block_height", "tx_bytes")

_RECORDS, _ATTEMPTS = table_of(ChainTransaction), table_of(ChainTxAttempt)


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
    # How many slots above its landing slot the chain was when ``check_many`` read this write's
    # status (None: not read there, not landed, or finalized): the watcher's finality estimate.
    confirmations: int | None = None

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
    if f.name not in ("previous_signatures", "send_count", "insufficient_funds", "confirmations")
)


@dataclass(frozen=True)
class Signed:
    """One signed attempt of a write: what a record stores before it is ever sent."""

    signature: str
    blockhash: str
    last_valid_block_height: int
    tx_bytes: bytes


class WriteRecord:
    """One write's row and its attempts, as loaded (and locked) in ``session``."""

    def __init__(
        self, session: AsyncSession, row: ChainTransaction, attempts: list[ChainTxAttempt]
    ) -> None:
        self._session = session
        self._row = row
        self._attempts = attempts
        # What ``store`` expects to find still (an unlocked record's moves are written only if
        # nobody moved it meanwhile), and whether a verdict is left to count (``count``).
        self._as_stored = _columns(row), {a.attempt: a.status for a in attempts}
        self._settled = False

    # -- finding and creating ----------------------------------------------------------

    @classmethod
    async def load(
        cls, session: AsyncSession, op_keys: Sequence[str], *, lock: bool = True
    ) -> list[WriteRecord]:
        """The records of ``op_keys`` that exist, in one lock order (``lock``: held until the
        session ends, so no other process decides on them meanwhile)."""
        found = await tx_store.records(session, op_keys, for_update=lock)
        return [cls(session, row, attempts) for row, attempts in found]

    @classmethod
    async def create(
        cls,
        session: AsyncSession,
        signed: Signed,
        *,
        op_key: str,
        kind: str,
        commitment: str,
        payload_hash: str,
        fee_payer: str,
        meta: dict[str, Any],
        refused: Any = None,
    ) -> WriteRecord | None:
        """Record a new write as attempt 1, signed and never sent, with its attempt row, in
        one statement (atomic by itself: the caller may run it in autocommit). With a
        ``refused`` error (its simulation failed as it would on chain) it is recorded final,
        ``failed``, never to be sent. None if ``op_key`` is recorded already (by a concurrent
        caller: load that one)."""
        status = "signed" if refused is None else "failed"
        completed_at = None if refused is None else datetime.now(UTC)
        values: dict[str, Any] = {
            "op_key": op_key,
            "kind": kind,
            "commitment": commitment,
            "payload_hash": payload_hash,
            "fee_payer": fee_payer,
            "meta": meta,
            "status": status,
            "attempt": 1,
            "send_count": 0,
            "err": refused,
            "completed_at": completed_at,
            **asdict(signed),
        }
        params = {f"p_{name}": value for name, value in values.items()}
        found = (await session.execute(_CREATE, {**params, "p_attempt_status": status})).first()
        if found is None:
            return None
        attempt_id, row_id, created_at = found
        # One transaction, one now(): the row's timestamps are its attempt's.
        row = ChainTransaction(id=row_id, created_at=created_at, updated_at=created_at, **values)
        attempt = ChainTxAttempt(
            id=attempt_id,
            chain_tx_id=row_id,
            status=status,
            created_at=created_at,
            updated_at=created_at,
            **{name: values[name] for name in ATTEMPT_COLUMNS},
        )
        return cls(session, row, [attempt])

    @staticmethod
    async def sent(session: AsyncSession, op_key: str, signature: str, error: str | None) -> None:
        """Count one broadcast of ``signature`` (``signed`` -> ``sent``), by op_key and
        signature without the row lock, in one statement (the caller may run it in
        autocommit): it never downgrades a write that landed or ended meanwhile, nor touches
        a newer attempt."""
        await session.execute(
            _SENT,
            {
                "p_op_key": op_key,
                "p_signature": signature,
                "p_sent_at": datetime.now(UTC),
                "p_error": error[:1000] if error else None,
            },
        )

    async def store(self, session: AsyncSession) -> bool:
        """Write the moves made on a record loaded WITHOUT its lock (``load(lock=False)``, its
        session closed since) in one statement, only if the record is still as loaded (the
        same current attempt and status: nobody moved it meanwhile). False when it was moved:
        nothing is written, and this record's view is stale."""
        stored_row, stored_attempts = self._as_stored
        now_row = _columns(self._row)
        changes = {k: v for k, v in now_row.items() if v != stored_row[k]}
        moved_attempts = {
            a.attempt: a.status
            for a in self._attempts
            if stored_attempts.get(a.attempt) != a.status
        }
        if not changes and not moved_attempts:
            return True
        changes = changes or {"status": stored_row["status"]}  # an UPDATE needs a SET
        stmt = _stored(tuple(changes), tuple(moved_attempts))
        params = {f"p_{name}": value for name, value in changes.items()}
        params.update(
            {f"p_a{n}": status for n, status in moved_attempts.items()},
            was_id=self._row.id,
            was_attempt=stored_row["attempt"],
            was_status=stored_row["status"],
        )
        if (await session.execute(stmt, params)).first() is None:
            return False
        self._as_stored = now_row, {a.attempt: a.status for a in self._attempts}
        return True

    # -- what it holds -----------------------------------------------------------------

    @property
    def op_key(self) -> str:
        return self._row.op_key

    @property
    def status(self) -> str:
        return self._row.status

    @property
    def final(self) -> bool:
        return self._row.status in FINAL_STATUSES

    @property
    def payload_hash(self) -> str:
        return self._row.payload_hash

    @property
    def signature(self) -> str:
        return self._row.signature

    @property
    def last_valid_block_height(self) -> int:
        return self._row.last_valid_block_height

    @property
    def tx_bytes(self) -> bytes:
        return self._row.tx_bytes

    @property
    def last_sent_at(self) -> datetime | None:
        return self._row.last_sent_at

    @property
    def attempts(self) -> tuple[ChainTxAttempt, ...]:
        """Every attempt, the first one first."""
        return tuple(self._attempts)

    @property
    def current(self) -> ChainTxAttempt:
        return next(a for a in self._attempts if a.attempt == self._row.attempt)

    def live_attempts(self) -> list[ChainTxAttempt]:
        """The attempts whose signature may be on chain: every one not expired (all of them
        when all are: a record abandoned or re-signed past all of them)."""
        return [a for a in self._attempts if a.status != "expired"] or list(self._attempts)

    def snapshot(self) -> ChainWrite:
        row = self._row
        return ChainWrite(
            **{name: getattr(row, name) for name in _ROW_FIELDS},
            previous_signatures=tuple(
                a.signature for a in self._attempts if a.attempt != row.attempt
            ),
            send_count=row.send_count or 0,
            insufficient_funds=row.status == "failed" and insufficient(row.err, row.tx_bytes),
        )

    # -- the moves ---------------------------------------------------------------------

    def landed(self, attempt: ChainTxAttempt, status: SignatureStatus) -> bool:
        """``attempt``'s signature is on chain as ``status`` says (that attempt is made current
        if an older one landed). True once at the commitment the write awaits: then ``settle``
        it; below, the write is ``landed`` (an error seen there may be on a fork)."""
        row = self._row
        if attempt.attempt != row.attempt:
            for name in ATTEMPT_COLUMNS:
                setattr(row, name, getattr(attempt, name))
        row.slot, row.confirmation_status = status.slot, status.level
        if RANK[status.level] >= RANK[row.commitment]:
            return True
        row.status = attempt.status = "landed"
        return False

    def settle(self, err: Any, block_height: int | None) -> None:
        """The chain's verdict at the awaited commitment: ``succeeded``, or ``failed`` with
        the error it landed with (terminal: never re-signed). Counted (core.metrics)."""
        row = self._row
        self._end("failed" if err is not None else "succeeded", err)
        row.block_height = block_height
        try:  # what it paid (a failed landing pays its fee too)
            row.fee_lamports = fee_of(row.tx_bytes)
            row.cu_price = budget_of(VersionedTransaction.from_bytes(row.tx_bytes).message)[1]
        except ValueError:  # bytes that are no transaction: nothing to say about a fee
            row.fee_lamports = row.cu_price = None
        self._settled = True

    def count(self) -> None:
        """Count the verdict ``settle`` gave (core.metrics), once it is stored."""
        if not self._settled:
            return
        self._settled = False
        row = self._row
        if row.fee_lamports is not None:
            CHAIN_WRITE_FEES.labels(row.kind).observe(row.fee_lamports)
        CHAIN_WRITES.labels(row.kind, row.status).inc()
        if row.created_at is not None:
            seconds = (datetime.now(UTC) - row.created_at).total_seconds()
            CHAIN_FINALITY.labels(row.kind).observe(seconds)

    def dropped(self) -> None:
        """The fork a landed signature was on is gone: the same bytes may still land."""
        row = self._row
        row.status, row.slot, row.confirmation_status = "sent", None, None

    async def expired(self, signed: Signed) -> None:
        """The current attempt can no longer land and never did: ``signed`` (new blockhash,
        same instructions) becomes the current attempt, recorded before it is ever sent."""
        row = self._row
        self.current.status = "expired"
        row.attempt += 1
        for name, value in asdict(signed).items():
            setattr(row, name, value)
        row.status, row.last_send_error = "signed", None
        await self._add_current_attempt()

    def abandoned(self, reason: str) -> None:
        """Closed by an operator once no signature of it can land any more."""
        self._end("failed", {"operator_cancelled": reason[:200]}, attempts="expired")

    def _end(self, status: str, err: Any, *, attempts: str | None = None) -> None:
        row = self._row
        row.status, row.err, row.completed_at = status, err, datetime.now(UTC)
        for attempt in self._attempts if attempts else [self.current]:
            attempt.status = attempts or status

    async def _add_current_attempt(self) -> None:
        row = self._row
        attempt = ChainTxAttempt(
            chain_tx_id=row.id,
            status="signed",
            **{name: getattr(row, name) for name in ATTEMPT_COLUMNS},
        )
        self._session.add(attempt)
        await self._session.flush()
        self._attempts.append(attempt)


# The record's own columns (what ``store`` compares with what it read).
_STORED = tuple(
    attr.key
    for attr in inspect(ChainTransaction).column_attrs
    if attr.key not in ("id", "created_at", "updated_at")
)


# The statements of the hot moves, built once (an expression's construction and cache key cost
# more CPU than its execution's share in the worker): values come as bind parameters, named
# apart from the columns (an UPDATE's parameter named as a column would be SET).


def _sent_statement() -> Any:
    rows = _RECORDS.c
    counted = (
        update(_RECORDS)
        .where(rows.op_key == bindparam("p_op_key"), rows.signature == bindparam("p_signature"))
        .values(
            send_count=rows.send_count + 1,
            last_sent_at=bindparam("p_sent_at", type_=rows.last_sent_at.type),
            last_send_error=bindparam("p_error", type_=rows.last_send_error.type),
            status=case((rows.status == "signed", "sent"), else_=rows.status),
        )
        .returning(rows.id)
        .cte("counted")
    )
    # The attempt through the row's update, so the row is locked first, as everywhere (an
    # unreferenced WITH runs after the main statement: the other order could deadlock with
    # a decider that holds the row's lock and moves the attempt).
    return (
        update(_ATTEMPTS)
        .where(
            _ATTEMPTS.c.chain_tx_id.in_(select(counted.c.id)),
            _ATTEMPTS.c.signature == bindparam("p_signature"),
            _ATTEMPTS.c.status == "signed",
        )
        .values(status="sent")
    )


_SENT = _sent_statement()

# ``create``'s values: the record's columns it sets, each bound as ``p_<column>``.
_CREATED = (
    "op_key", "kind", "commitment", "payload_hash", "fee_payer", "meta", "status", "attempt",
    "send_count", "err", "completed_at", *(f.name for f in fields(Signed)),
)  # fmt: skip


def _create_statement() -> Any:
    """The record and its attempt row in one statement: the INSERT of the record (nothing if
    its ``op_key`` is recorded already) and, through its RETURNING, its attempt's. Each value
    is bound with its column's type, as ``values(**values)`` bound it (a JSON column's None a
    JSON null); the attempt's status as ``p_attempt_status``."""
    rows = _RECORDS.c
    copied = [rows[name] for name in ("id", *ATTEMPT_COLUMNS)]
    recorded = (
        insert(_RECORDS)
        .values({name: bindparam(f"p_{name}", type_=rows[name].type) for name in _CREATED})
        .on_conflict_do_nothing(index_elements=[rows.op_key])
        .returning(*copied)
        .cte("recorded")
    )
    status = bindparam("p_attempt_status", type_=_ATTEMPTS.c.status.type)
    return (
        insert(_ATTEMPTS)
        .from_select(
            ["chain_tx_id", *ATTEMPT_COLUMNS, "status"],
            select(*(recorded.c[c.name] for c in copied), status),
        )
        .returning(_ATTEMPTS.c.id, _ATTEMPTS.c.chain_tx_id, _ATTEMPTS.c.created_at)
    )


_CREATE = _create_statement()


@functools.cache
def _stored(changed: tuple[str, ...], attempts: tuple[int, ...]) -> Any:
    """``store``'s statement for one shape of move (the columns changed, the attempts moved;
    a handful of shapes in all): the row's UPDATE only if it is still as loaded (``was_id``,
    ``was_attempt``, ``was_status``), the attempts' through it. Each value is bound with its
    column's type, as ``values(**changes)`` bound it (a JSON column's None a JSON null)."""
    rows = _RECORDS.c
    moved = (
        update(_RECORDS)
        .where(
            rows.id == bindparam("was_id"),
            rows.attempt == bindparam("was_attempt"),
            rows.status == bindparam("was_status"),
        )
        .values({name: bindparam(f"p_{name}", type_=rows[name].type) for name in changed})
        .returning(rows.id)
        .cte("moved")
    )
    if not attempts:
        return select(moved.c.id)
    status = _ATTEMPTS.c.status
    return (
        update(_ATTEMPTS)
        .where(
            _ATTEMPTS.c.chain_tx_id.in_(select(moved.c.id)),
            _ATTEMPTS.c.attempt.in_(list(attempts)),
        )
        .values(
            status=case(
                {n: bindparam(f"p_a{n}", type_=status.type) for n in attempts},
                value=_ATTEMPTS.c.attempt,
            )
        )
        .returning(_ATTEMPTS.c.id)
    )


def _columns(row: ChainTransaction) -> dict[str, Any]:
    return {name: getattr(row, name) for name in _STORED}


def payload_digest(instructions: Sequence[Instruction]) -> str:
    digest = hashlib.sha256()
    for ix in instructions:
        blob = bytes(ix)
        digest.update(len(blob).to_bytes(4, "little") + blob)
    return digest.hexdigest()


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
