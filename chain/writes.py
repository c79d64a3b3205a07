"""The chain gateway: the only writer on chain, exactly once per caller-chosen op_key.

A write is a list of instructions signed by gateway keys, identified by ``op_key``. Its life:

1. ``prepare``/``submit``: sign with a fresh blockhash and COMMIT the record (signature,
   lastValidBlockHeight, the exact transaction bytes) *before* the first send. A crash after
   that point leaves a record whose signature can be looked up on chain.
2. Every later step (``submit`` again, ``advance``, ``await_final``) locks the record and asks the
   chain first: landed -> never send again; not landed and the blockhash still valid -> re-send
   the SAME bytes (same signature, so it can land at most once); not landed and the blockhash
   provably expired -> re-sign with a new blockhash as a new attempt, persisted before sending.
3. Landed with an error is terminal (``failed``, error kept) and is never re-signed.

Everything needed to finish a write is in the database, so any process can resume it.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from solders.instruction import Instruction
from solders.keypair import Keypair
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import tx_store
from chain.answers import SignatureStatus
from chain.errors import (
    AlreadyProcessed,
    BlockhashNotFound,
    ChainError,
    ChainRpcError,
    ChainWriteConflict,
    StillLandable,
    UnknownChainWrite,
    WriteLanded,
)
from chain.fees import FeeOracle
from chain.keys import ChainKeys
from chain.pricing import PricedSigner
from chain.reads import ChainReads
from chain.rpc import ChainRpc
from chain.sent_here import SentHere
from chain.signing import Signer
from chain.watcher import FinalityWatcher
from chain.write_record import ChainWrite, Signed, WriteRecord, payload_digest
from db.last import autocommit
from db.models.chain import ChainTxAttempt

# The two arguments every write takes besides its op_key.
Ixs = Sequence[Instruction]
Meta = dict[str, Any] | None

MAX_STATUS_BATCH = 256  # getSignatureStatuses accepts at most 256 signatures per call

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verdict:
    """The chain's answer on one write: the finalized height it was read at, the attempts
    whose signature landed, and whether none can land any more (``expired``)."""

    height: int
    landed: list[tuple[ChainTxAttempt, SignatureStatus]]
    expired: bool


@dataclass(frozen=True)
class Send:
    """Bytes to (re-)broadcast, decided under the record's lock and sent after commit."""

    signature: str
    tx_bytes: bytes

    @classmethod
    def current(cls, record: WriteRecord) -> Send:
        """The record's current attempt."""
        return cls(record.signature, record.tx_bytes)


class ChainWrites:
    """The exactly-once write protocol (one record per op_key, see above), asking the chain
    through ``reads`` and sending through ``rpc``. It decides; the record
    (``chain/write_record.py``) moves."""

    def __init__(
        self,
        reads: ChainReads,
        rpc: ChainRpc,
        keys: ChainKeys,
        sessions: async_sessionmaker[AsyncSession],
        *,
        poll_interval: float,
        resend_interval: float,
        simulate: bool,
        signers: Sequence[Keypair],
        fees: FeeOracle | None = None,
    ) -> None:
        self._reads = reads
        self._rpc = rpc
        self._keys = keys
        self._sessions = sessions
        self._commitment = reads.commitment
        self._poll_interval = poll_interval
        self._resend_interval = resend_interval
        # Simulating before the first persist rejects doomed writes without paying a fee.
        self._simulate = simulate
        # Every write carries its compute budget (chain/fees.py; none without an oracle).
        self._signer = PricedSigner(Signer(keys.fee_payer.pubkey(), signers), reads, fees)
        self._watcher: FinalityWatcher | None = None
        # What this process broadcast lately: its deposit follower leaves those unread.
        self.sent_here = SentHere()

    async def prepare(
        self, op_key: str, instructions: Ixs, *, kind: str = "generic", meta: Meta = None
    ) -> ChainWrite:
        """Sign and durably record a write without sending it (idempotent per op_key).

        ``submit`` is ``prepare`` + send; a caller that crashes between the two leaves exactly
        this state behind, which any later ``submit``/``advance``/``await_final`` completes.
        """
        write, _ = await self._prepare(op_key, instructions, kind, meta)
        return write

    async def submit(
        self,
        op_key: str,
        instructions: Ixs,
        *,
        kind: str = "generic",
        meta: Meta = None,
        new: bool = False,
    ) -> ChainWrite:
        """Persist (first call) then send; on later calls check the chain before anything else.

        Idempotent: the same op_key never produces a second landed transaction. Raises
        ``ChainWriteConflict`` if op_key was used for different instructions. ``new``: the
        caller named this write a moment ago (its claim), so it is most likely unrecorded: it
        is signed and recorded without reading first (a record there already, of a process
        that resumed it meanwhile, wins the INSERT and is read then; only the signature made
        for nothing is lost).
        """
        write, send = await self._prepare(op_key, instructions, kind, meta, new=new)
        if send is not None:
            write = await self._send(write, send)
        return write

    async def advance(self, op_key: str) -> ChainWrite:
        """One step towards a final state, from the DB record alone (status check first)."""
        async with self._sessions() as session:
            write, send = await self._advance_locked(session, await _locked(session, op_key))
        if send is not None:
            write = await self._send(write, send)
        return write

    # A deadline parameter rather than asyncio.timeout: expiry must not cancel a step halfway
    # through its DB transaction, and must surface as the retryable ChainTimeout.
    async def await_final(
        self,
        op_key: str,
        timeout: float = 60.0,  # noqa: ASYNC109
        *,
        just_sent: bool = False,
    ) -> ChainWrite:
        """Drive the write to ``succeeded`` or ``failed`` (returned, not raised).

        Re-broadcasts while the blockhash is valid and re-signs after it expired, so a fresh
        process can finish a write another one started. Raises ``ChainTimeout`` (retryable).
        After a first step of its own (skipped when the caller ``just_sent`` it: nothing can have
        changed), the write joins this process's finality watcher, which checks every awaited
        write with one batched status call per tick.
        """
        if not just_sent:
            write = await self.advance(op_key)
            if write.final:
                return write
        if self._watcher is None:
            self._watcher = FinalityWatcher(
                self, self._poll_interval, patience=self._resend_interval
            )
        return await self._watcher.wait(op_key, timeout, just_sent=just_sent)

    async def get_write(self, op_key: str) -> ChainWrite:
        """The stored record as it is, without asking the chain."""
        async with autocommit(self._sessions) as session:
            return (await _locked(session, op_key, lock=False)).snapshot()

    async def check_many(
        self, op_keys: Sequence[str], *, drive: bool = True
    ) -> dict[str, ChainWrite]:
        """Status of many writes with one getSignatureStatuses call per 256 signatures.

        Landed/final states are persisted. With ``drive`` the writes that have not landed get
        one ``advance`` each when one may be needed (a re-send due, so also the look at
        whether its blockhash expired; never sent; its landing gone). Unknown op_keys are
        omitted.

        The records are read without their lock and no transaction stays open while the chain
        answers: a move is written by ``WriteRecord.store``, one statement applied only if the
        record is still as read (a concurrent decider's move wins; this tick then reports the
        record as read, and the next one sees the move).
        """
        async with autocommit(self._sessions) as session:
            records = await WriteRecord.load(session, op_keys, lock=False)
        result = {record.op_key: record.snapshot() for record in records}
        unfinished = [r for r in records if not r.final]
        moved: list[WriteRecord] = []
        depth: dict[str, int | None] = {}
        not_landed: list[str] = []
        for start in range(0, len(unfinished), MAX_STATUS_BATCH):
            chunk = unfinished[start : start + MAX_STATUS_BATCH]
            statuses = await self._reads.statuses([r.signature for r in chunk])
            for record, status in zip(chunk, statuses, strict=True):
                if status is not None:
                    await self._landed(record, record.current, status)
                    moved.append(record)
                    depth[record.op_key] = status.confirmations
                elif self._may_move(record):
                    not_landed.append(record.op_key)
        if moved:
            async with autocommit(self._sessions) as session:
                for record in moved:
                    if await record.store(session):
                        record.count()
                        result[record.op_key] = record.snapshot()
            for op_key, confirmations in depth.items():
                if confirmations is not None and not result[op_key].final:
                    result[op_key] = replace(result[op_key], confirmations=confirmations)
        if drive:
            for op_key in not_landed:
                result[op_key] = await self.advance(op_key)
        return result

    def _may_move(self, record: WriteRecord) -> bool:
        """Whether a write not seen on chain needs ``advance`` now: never sent, seen landed
        before (its fork may be gone), or its re-send due, which is also when ``advance``
        looks whether its blockhash expired (at most ``resend_interval`` late)."""
        return record.status in ("signed", "landed") or _due(
            record.last_sent_at, self._resend_interval
        )

    async def open_writes(self, limit: int = 256) -> list[str]:
        """op_keys not yet final, oldest first (for a sweeper after crashes)."""
        async with autocommit(self._sessions) as session:
            return await tx_store.list_open(session, limit)

    async def _prepare(
        self,
        op_key: str,
        instructions: Sequence[Instruction],
        kind: str,
        meta: dict[str, Any] | None,
        *,
        new: bool = False,
    ) -> tuple[ChainWrite, Send | None]:
        if not instructions:
            raise ValueError("a chain write needs at least one instruction")
        payload_hash = payload_digest(instructions)
        past: str | None = None  # a blockhash another write's same bytes were signed on
        for tried in range(4):
            # No transaction stays open while the chain answers (the blockhash, the
            # simulation): the record is read, then written in one statement, each autocommitted.
            found: list[WriteRecord] = []
            if not (new and tried == 0):
                async with autocommit(self._sessions) as session:
                    found = await WriteRecord.load(session, [op_key], lock=False)
            if found:
                if found[0].payload_hash != payload_hash:
                    raise ChainWriteConflict(f"{op_key!r} was used for other instructions")
                if found[0].final:
                    return found[0].snapshot(), None
                async with self._sessions() as session:  # its next step, under its lock
                    return await self._advance_locked(session, await _locked(session, op_key))
            signed, sim_err = await self._signer.sign(instructions, self._simulate, past=past)
            # Recorded (refused: final, never sent, so it can never land) and committed before
            # the first send, or a crash could lead to a second signature.
            try:
                async with autocommit(self._sessions) as session:
                    record = await WriteRecord.create(
                        session,
                        signed,
                        op_key=op_key,
                        kind=kind,
                        commitment=self._commitment,
                        payload_hash=payload_hash,
                        fee_payer=str(self._keys.fee_payer.pubkey()),
                        meta=meta or {},
                        refused=sim_err,
                    )
            except IntegrityError as exc:
                if not _signature_taken(exc):
                    raise
                # Another write of the same instructions was signed on this blockhash: the same
                # transaction, which lands once for both. Signed again on a newer blockhash (or,
                # if it was this op_key's concurrent submit, its record is read next).
                log.info(
                    "%r: the same transaction as another write's (identical instructions on "
                    "blockhash %s); signing it on a newer blockhash",
                    op_key,
                    signed.blockhash,
                    extra={"op_key": op_key},
                )
                past = signed.blockhash
                continue
            if record is None:
                continue  # a concurrent submit of the same op_key recorded it; use its record
            if record.final:
                return record.snapshot(), None
            return record.snapshot(), Send.current(record)
        raise ChainError(f"could not record chain write {op_key!r}")

    async def abandon(self, session: AsyncSession, op_key: str, reason: str) -> ChainWrite:
        """Close a write that can provably no longer land as ``failed`` (an operator's cancel),
        under its row lock in the CALLER's transaction (flush only: the caller commits it with
        whatever the write belonged to), so no process can re-sign it afterwards.

        The rule is ``_advance_locked``'s own (``_verdict``): refused with ``WriteLanded`` when a
        signature landed, with ``StillLandable`` while the finalized block height has not passed
        the current attempt's lastValidBlockHeight; ``UnknownChainWrite`` when no record exists
        (yet: it may be being signed right now). A write already ``failed`` is returned as is.
        """
        record = await _locked(session, op_key)
        if record.status in ("succeeded", "landed"):
            raise WriteLanded(op_key, record.status)
        if record.status == "failed":
            return record.snapshot()
        verdict = await self._verdict(record)
        if verdict.landed:
            raise WriteLanded(op_key, "landed")
        if not verdict.expired:
            raise StillLandable(op_key, verdict.height, record.last_valid_block_height)
        record.abandoned(reason)
        await session.flush()
        return record.snapshot()

    async def _verdict(self, record: WriteRecord) -> Verdict:
        """What the chain says of a locked write's signatures: the one rule of "can it still
        land?". Height BEFORE statuses, from a node that has seen it (reads.chain_view): once
        the finalized height is past lastValidBlockHeight, "not found" is final."""
        live = record.live_attempts()
        height, statuses = await self._reads.chain_view([a.signature for a in live])
        landed = [(a, s) for a, s in zip(live, statuses, strict=True) if s is not None]
        return Verdict(height, landed, not landed and height > record.last_valid_block_height)

    async def _advance_locked(
        self, session: AsyncSession, record: WriteRecord
    ) -> tuple[ChainWrite, Send | None]:
        """Decide the next step for a locked record; commits (releasing the lock) before return."""
        if record.final:
            return record.snapshot(), None
        verdict = await self._verdict(record)
        send: Send | None = None
        if verdict.landed:
            attempt, status = verdict.landed[-1]
            if attempt.attempt != record.current.attempt:
                # Should be impossible (we re-sign only after expiry); trust the chain anyway.
                log.error(
                    "older attempt %s of %r landed",
                    attempt.attempt,
                    record.op_key,
                    extra={"op_key": record.op_key},
                )
            await self._landed(record, attempt, status)
        elif verdict.expired:
            if record.status == "landed":
                log.warning(
                    "%r: landed attempt vanished (fork); re-signing",
                    record.op_key,
                    extra={"op_key": record.op_key},
                )
            await record.expired(await self._resign(session, record))
            send = Send.current(record)
        else:
            if record.status == "landed":  # its fork was dropped; the same bytes may still land
                record.dropped()
            if record.status == "signed" or _due(record.last_sent_at, self._resend_interval):
                send = Send.current(record)
        await session.commit()
        record.count()
        return record.snapshot(), send

    async def _landed(
        self, record: WriteRecord, attempt: ChainTxAttempt, status: SignatureStatus
    ) -> None:
        """A signature of the write seen on chain; at the awaited commitment, its verdict."""
        if not record.landed(attempt, status):
            return  # below the target commitment an error may be on a fork: not yet terminal
        record.settle(status.err, await self._reads.slot_block_height(status.slot))
        if status.err is not None:
            log.warning(
                "chain write %r failed on chain: %s",
                record.op_key,
                status.err,
                extra={"op_key": record.op_key},
            )

    async def _resign(self, session: AsyncSession, record: WriteRecord) -> Signed:
        """The same instructions as the current attempt, signed with a fresh blockhash: one no
        write of the same instructions was signed on (rare: one read per re-sign)."""
        signed = await self._signer.resign(record.tx_bytes)
        for _ in range(3):
            if not await tx_store.known_signatures(session, [signed.signature]):
                break
            signed = await self._signer.resign(record.tx_bytes, past=signed.blockhash)
        log.info(
            "%r: blockhash expired unlanded, re-signing attempt %d",
            record.op_key,
            record.current.attempt + 1,
            extra={"op_key": record.op_key},
        )
        return signed

    async def _send(self, write: ChainWrite, send: Send) -> ChainWrite:
        error: str | None = None
        self.sent_here.add(send.signature)  # recorded already; from now on it may land
        try:
            # No preflight: we simulated before persisting, and a re-sent transaction that already
            # landed would fail preflight spuriously. Confirmation is ours, not the client's.
            await self._rpc.call(
                "sendTransaction",
                [_b64(send.tx_bytes), {"encoding": "base64", "skipPreflight": True}],
            )
        except AlreadyProcessed:
            # The same bytes landed before (a real node's preflight says so): not an error; the
            # signature's status, read next, applies it.
            log.info("send of %r (%s): already processed", write.op_key, send.signature)
        except BlockhashNotFound as exc:
            # Expired, or the answering node is behind: the protocol re-sends while the finalized
            # height allows and re-signs only past lastValidBlockHeight (_verdict).
            error = str(exc)
            log.info("send of %r (%s): %s", write.op_key, send.signature, error)
        except ChainRpcError as exc:
            # Not terminal: only the signature's status on chain decides the outcome.
            error = str(exc)
            log.warning(
                "send of %r (%s) answered: %s",
                write.op_key,
                send.signature,
                error,
                extra={"op_key": write.op_key},
            )
        async with autocommit(self._sessions) as session:  # one statement
            await WriteRecord.sent(session, write.op_key, send.signature, error)
        status = "sent" if write.status == "signed" else write.status
        return replace(write, status=status, send_count=write.send_count + 1)


# The unique signatures (db/models/chain.py): a write's current one and every attempt's.
_SIGNATURE_KEYS = frozenset(("uq_chain_transactions_signature", "uq_chain_tx_attempts_signature"))


def _signature_taken(exc: IntegrityError) -> bool:
    """Whether ``exc`` is the refusal of a signature recorded already (by another write)."""
    diag = getattr(exc.orig, "diag", None)
    return getattr(diag, "constraint_name", None) in _SIGNATURE_KEYS


def _due(last_sent_at: datetime | None, interval: float) -> bool:
    """Whether a re-broadcast is due: never sent, or last sent ``interval`` seconds ago."""
    if last_sent_at is None:
        return True
    return (datetime.now(UTC) - last_sent_at).total_seconds() >= interval


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


async def _locked(session: AsyncSession, op_key: str, *, lock: bool = True) -> WriteRecord:
    found = await WriteRecord.load(session, [op_key], lock=lock)
    if not found:
        raise UnknownChainWrite(op_key)
    return found[0]
