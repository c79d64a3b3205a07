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
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any

from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain import tx_store
from chain.answers import RANK, SignatureStatus
from chain.errors import (
    ChainError,
    ChainRpcError,
    ChainWriteConflict,
    MissingSigner,
    StillLandable,
    UnknownChainWrite,
    WriteLanded,
)
from chain.keys import ChainKeys
from chain.reads import ChainReads
from chain.rpc import ChainRpc
from chain.watcher import FinalityWatcher
from chain.write_record import (
    FINAL_STATUSES,
    ChainWrite,
    Send,
    finish,
    make_current,
    payload_digest,
    resend_due,
    snapshot,
)
from core.metrics import CHAIN_FINALITY, CHAIN_WRITES
from db.models.chain import ChainTransaction, ChainTxAttempt

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


class ChainWrites:
    """The exactly-once write protocol (one record per op_key, see above), asking the chain
    through ``reads`` and sending through ``rpc``."""

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
        self._signers: dict[Pubkey, Keypair] = {kp.pubkey(): kp for kp in signers}
        self._watcher: FinalityWatcher | None = None

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
        self, op_key: str, instructions: Ixs, *, kind: str = "generic", meta: Meta = None
    ) -> ChainWrite:
        """Persist (first call) then send; on later calls check the chain before anything else.

        Idempotent: the same op_key never produces a second landed transaction. Raises
        ``ChainWriteConflict`` if op_key was used for different instructions.
        """
        write, send = await self._prepare(op_key, instructions, kind, meta)
        if send is not None:
            write = await self._send(write, send)
        return write

    async def advance(self, op_key: str) -> ChainWrite:
        """One step towards a final state, from the DB record alone (status check first)."""
        async with self._sessions() as session:
            row = await tx_store.get(session, op_key, for_update=True)
            if row is None:
                raise UnknownChainWrite(op_key)
            write, send = await self._advance_locked(session, row)
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
            self._watcher = FinalityWatcher(self, self._poll_interval)
        return await self._watcher.wait(op_key, timeout)

    async def get_write(self, op_key: str) -> ChainWrite:
        """The stored record as it is, without asking the chain."""
        async with self._sessions() as session:
            row = await tx_store.get(session, op_key)
            if row is None:
                raise UnknownChainWrite(op_key)
            return snapshot(row, await tx_store.attempts(session, row.id))

    async def check_many(
        self, op_keys: Sequence[str], *, drive: bool = True
    ) -> dict[str, ChainWrite]:
        """Status of many writes with one getSignatureStatuses call per 256 signatures.

        Landed/final states are persisted. With ``drive`` the writes that have not landed get
        one ``advance`` each (re-send if due, re-sign if expired). Unknown op_keys are omitted.
        """
        result: dict[str, ChainWrite] = {}
        not_landed: list[str] = []
        async with self._sessions() as session:
            rows = await tx_store.get_many(session, op_keys, for_update=True)
            open_rows = [r for r in rows if r.status not in FINAL_STATUSES]
            for start in range(0, len(open_rows), MAX_STATUS_BATCH):
                chunk = open_rows[start : start + MAX_STATUS_BATCH]
                statuses = await self._reads.statuses([r.signature for r in chunk])
                for row, status in zip(chunk, statuses, strict=True):
                    if status is not None:
                        await self._apply_status(session, row, row.attempt, status)
                    else:
                        not_landed.append(row.op_key)
            attempts = await tx_store.attempts_for(session, [r.id for r in rows])
            for row in rows:
                result[row.op_key] = snapshot(row, attempts.get(row.id, []))
            await session.commit()
        if drive:
            for op_key in not_landed:
                result[op_key] = await self.advance(op_key)
        return result

    async def open_writes(self, limit: int = 256) -> list[str]:
        """op_keys not yet final, oldest first (for a sweeper after crashes)."""
        async with self._sessions() as session:
            return await tx_store.list_open(session, limit)

    async def _prepare(
        self,
        op_key: str,
        instructions: Sequence[Instruction],
        kind: str,
        meta: dict[str, Any] | None,
    ) -> tuple[ChainWrite, Send | None]:
        if not instructions:
            raise ValueError("a chain write needs at least one instruction")
        payload_hash = payload_digest(instructions)
        for _ in range(3):
            async with self._sessions() as session:
                row = await tx_store.get(session, op_key, for_update=True)
                if row is not None:
                    if row.payload_hash != payload_hash:
                        raise ChainWriteConflict(f"{op_key!r} was used for other instructions")
                    return await self._advance_locked(session, row)
                blockhash, last_valid = await self._reads.latest_blockhash()
                message = Message.new_with_blockhash(
                    list(instructions), self._keys.fee_payer.pubkey(), blockhash
                )
                tx = self._sign(message)
                sim_err = await self._simulation_error(tx) if self._simulate else None
                try:
                    row = await tx_store.insert(
                        session,
                        ChainTransaction(
                            op_key=op_key,
                            kind=kind,
                            commitment=self._commitment,
                            payload_hash=payload_hash,
                            fee_payer=str(self._keys.fee_payer.pubkey()),
                            meta=meta or {},
                            **asdict(_signed(tx, blockhash, last_valid)),
                        ),
                    )
                except IntegrityError:
                    # A concurrent submit of the same op_key won the insert; use its record.
                    await session.rollback()
                    continue
                if sim_err is not None:
                    # Never sent, so it can never land: terminal without touching the chain.
                    finish(row, "failed", err=sim_err)
                    await tx_store.set_attempt_status(session, row.id, 1, "failed")
                    await session.commit()
                    return snapshot(row, []), None
                # The one commit a repository caller does mid-operation: the signed bytes MUST
                # be durable before the first send, or a crash could lead to a second signature.
                await session.commit()
                return snapshot(row, []), Send(row.signature, row.tx_bytes)
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
        row = await tx_store.get(session, op_key, for_update=True)
        if row is None:
            raise UnknownChainWrite(op_key)
        if row.status in ("succeeded", "landed"):
            raise WriteLanded(op_key, row.status)
        attempts = await tx_store.attempts(session, row.id)
        if row.status == "failed":
            return snapshot(row, attempts)
        verdict = await self._verdict(row, attempts)
        if verdict.landed:
            raise WriteLanded(op_key, "landed")
        if not verdict.expired:
            raise StillLandable(op_key, verdict.height, row.last_valid_block_height)
        finish(row, "failed", err={"operator_cancelled": reason[:200]})
        for attempt in attempts:
            await tx_store.set_attempt_status(session, row.id, attempt.attempt, "expired")
        await session.flush()
        return snapshot(row, attempts)

    async def _verdict(self, row: ChainTransaction, attempts: list[ChainTxAttempt]) -> Verdict:
        """What the chain says of a locked write's signatures: the one rule of "can it still
        land?". Height BEFORE statuses, from a node that has seen it (reads.chain_view): once
        the finalized height is past lastValidBlockHeight, "not found" is final."""
        live = [a for a in attempts if a.status != "expired"] or attempts
        height, statuses = await self._reads.chain_view([a.signature for a in live])
        landed = [(a, s) for a, s in zip(live, statuses, strict=True) if s is not None]
        return Verdict(height, landed, not landed and height > row.last_valid_block_height)

    async def _advance_locked(
        self, session: AsyncSession, row: ChainTransaction
    ) -> tuple[ChainWrite, Send | None]:
        """Decide the next step for a locked record; commits (releasing the lock) before return."""
        attempts = await tx_store.attempts(session, row.id)
        if row.status in FINAL_STATUSES:
            return snapshot(row, attempts), None
        verdict = await self._verdict(row, attempts)
        landed = verdict.landed
        send: Send | None = None
        if landed:
            attempt, status = landed[-1]
            if attempt.attempt != row.attempt:
                # Should be impossible (we re-sign only after expiry); trust the chain anyway.
                log.error(
                    "older attempt %s of %r landed",
                    attempt.attempt,
                    row.op_key,
                    extra={"op_key": row.op_key},
                )
                make_current(row, attempt)
            await self._apply_status(session, row, attempt.attempt, status)
        elif verdict.expired:
            if row.status == "landed":
                log.warning(
                    "%r: landed attempt vanished (fork); re-signing",
                    row.op_key,
                    extra={"op_key": row.op_key},
                )
            blockhash, last_valid = await self._reads.latest_blockhash()
            old = VersionedTransaction.from_bytes(row.tx_bytes).message
            header = old.header
            tx = self._sign(
                Message.new_with_compiled_instructions(
                    header.num_required_signatures,
                    header.num_readonly_signed_accounts,
                    header.num_readonly_unsigned_accounts,
                    old.account_keys,
                    blockhash,
                    old.instructions,
                )
            )
            log.info(
                "%r: blockhash expired unlanded, re-signing attempt %d",
                row.op_key,
                row.attempt + 1,
                extra={"op_key": row.op_key},
            )
            await tx_store.add_attempt(session, row, _signed(tx, blockhash, last_valid))
            attempts = await tx_store.attempts(session, row.id)
            send = Send(row.signature, row.tx_bytes)
        else:
            if row.status == "landed":  # its fork was dropped; the same bytes may still land
                row.status = "sent"
                row.slot = None
                row.confirmation_status = None
            if row.status == "signed" or resend_due(row.last_sent_at, self._resend_interval):
                send = Send(row.signature, row.tx_bytes)
        await session.commit()
        return snapshot(row, attempts), send

    async def _apply_status(
        self, session: AsyncSession, row: ChainTransaction, attempt: int, status: SignatureStatus
    ) -> None:
        level = status.level
        row.slot = int(status.slot)
        row.confirmation_status = level
        reached = RANK[level] >= RANK[row.commitment]
        if not reached:
            # An error seen below the target commitment may be on a fork: not yet terminal.
            row.status = "landed"
            await tx_store.set_attempt_status(session, row.id, attempt, "landed")
            return
        if status.err is not None:
            finish(row, "failed", err=status.err)
            _count_final(row)
            await tx_store.set_attempt_status(session, row.id, attempt, "failed")
            log.warning(
                "chain write %r failed on chain: %s",
                row.op_key,
                row.err,
                extra={"op_key": row.op_key},
            )
        else:
            finish(row, "succeeded")
            _count_final(row)
            await tx_store.set_attempt_status(session, row.id, attempt, "succeeded")
        row.block_height = await self._reads.slot_block_height(row.slot)

    async def _send(self, write: ChainWrite, send: Send) -> ChainWrite:
        error: str | None = None
        try:
            # No preflight: we simulated before persisting, and a re-sent transaction that already
            # landed would fail preflight spuriously. Confirmation is ours, not the client's.
            await self._rpc.call(
                "sendTransaction",
                [_b64(send.tx_bytes), {"encoding": "base64", "skipPreflight": True}],
            )
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
        async with self._sessions() as session:
            await tx_store.record_send(
                session, write.op_key, send.signature, error, datetime.now(UTC)
            )
            await session.commit()
        status = "sent" if write.status == "signed" else write.status
        return replace(write, status=status, send_count=write.send_count + 1)

    def _sign(self, message: Message) -> VersionedTransaction:
        needed = message.account_keys[: message.header.num_required_signatures]
        missing = [str(k) for k in needed if k not in self._signers]
        if missing:
            raise MissingSigner(f"no keypair for required signer(s) {missing}")
        return VersionedTransaction(message, [self._signers[k] for k in needed])

    async def _simulation_error(self, tx: VersionedTransaction) -> Any:
        """The error a deterministic failure would land with, or None to go ahead and send."""
        config = {"encoding": "base64", "commitment": "processed"}
        try:
            got = await self._rpc.call("simulateTransaction", [_b64(bytes(tx)), config])
        except ChainRpcError as exc:
            log.info("simulation unavailable (%s); sending unsimulated", exc)
            return None
        value = got.get("value") if isinstance(got, dict) else None
        err = value.get("err") if isinstance(value, dict) else None
        if err is None:
            return None
        # Only program errors and missing funds are properties of the transaction; e.g.
        # BlockhashNotFound is about a lagging node and must not fail the write.
        if isinstance(err, dict) and "InstructionError" in err:
            return err
        if isinstance(err, str) and err.startswith("InsufficientFunds"):
            return err
        return None


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _signed(tx: VersionedTransaction, blockhash: Hash, last_valid: int) -> tx_store.Signed:
    return tx_store.Signed(str(tx.signatures[0]), str(blockhash), last_valid, bytes(tx))


def _count_final(row: ChainTransaction) -> None:
    """The write's outcome and its time from record to final state (core.metrics)."""
    CHAIN_WRITES.labels(row.kind, row.status).inc()
    if row.created_at is not None:
        CHAIN_FINALITY.labels(row.kind).observe(
            (datetime.now(UTC) - row.created_at).total_seconds()
        )
