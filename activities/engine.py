"""Activities of the transaction engine: short DB steps (run as local activities) and the
chain legs. Each activity has one commit point; business rejections are non-retryable."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from chain.custody import CustodyTransfer
from chain.errors import ChainWriteConflict
from db.models.engine import Transfer
from engine import locks, reconcile, recovery, transfers
from engine.receipts import ReceiptMismatch, ReceiptUnavailable, verify_receipt
from engine.recovery import Orphan

if TYPE_CHECKING:
    from worker import WorkerDeps


@dataclass
class TransferRef:
    transfer_id: str


@dataclass
class TransferStep:
    """Where a transfer stands after a step (plain values: safe in workflow history)."""

    status: str
    signature: str | None = None
    slot: int | None = None
    block_height: int | None = None
    error: str | None = None


@dataclass
class TransferLanded:
    """A transfer's chain write finalized and its receipt checked out."""

    transfer_id: str
    signature: str
    slot: int | None
    block_height: int | None


@dataclass
class TransferFailure:
    transfer_id: str
    reason: str


@dataclass
class LockRef:
    lock_id: str


@dataclass
class LockOutcome:
    status: str


@dataclass
class ReconcileRequest:
    run_id: str


@dataclass
class ReconcileReport:
    run_id: str
    checked: int
    skipped: int
    drifts: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class OrphanQuery:
    stale_after_seconds: float = 30.0
    limit: int = 500


class EngineActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        self.deps = deps
        self.decimals = deps.settings.token_decimals

    # -- transfers -------------------------------------------------------------------

    @activity.defn(name="engine.transfer_begin")
    async def transfer_begin(self, ref: TransferRef) -> TransferStep:
        """pending -> pending_onchain (local activity); the row committed before the start."""
        async with self.deps.sessions() as session:
            row = await transfers.begin_onchain(session, ref.transfer_id)
            await session.commit()
        if row is None:
            raise ApplicationError(f"transfer {ref.transfer_id} not found", type="TransferNotFound")
        return TransferStep(status=row.status, error=row.failure_reason)

    @activity.defn(name="engine.transfer_send")
    async def transfer_send(self, ref: TransferRef) -> TransferStep:
        """Sign, persist and send the transfer's chain write (exactly once per op_key)."""
        async with self.deps.sessions() as session:
            row = await session.get(Transfer, ref.transfer_id)
        if row is None or row.status != "pending_onchain" or row.op_key is None:
            return TransferStep(status=row.status if row else "missing")
        gateway = self.deps.gateway
        await gateway.ensure_custody_account(row.from_uid, row.currency)
        await gateway.ensure_custody_account(row.to_uid, row.currency)
        leg = CustodyTransfer(row.currency, row.from_uid, row.to_uid, row.amount)
        try:
            write = await gateway.submit_transfers(row.op_key, [leg])
        except ChainWriteConflict as exc:
            raise ApplicationError(str(exc), type="ChainWriteConflict", non_retryable=True) from exc
        if write.status == "failed":
            return TransferStep(status="failed", signature=write.signature, error=str(write.err))
        return TransferStep(status="sent", signature=write.signature)

    @activity.defn(name="engine.transfer_await")
    async def transfer_await(self, ref: TransferRef) -> TransferStep:
        """Drive the chain write to finalized (re-send / re-sign as the gateway decides) and
        verify the receipt. Heartbeats; ChainUnavailable/ChainTimeout are retried."""
        async with self.deps.sessions() as session:
            row = await session.get(Transfer, ref.transfer_id)
        if row is None or row.op_key is None:
            raise ApplicationError("transfer without chain write", non_retryable=True)
        beat = asyncio.create_task(_heartbeat())
        try:
            write = await self.deps.gateway.await_final(row.op_key, timeout=20.0)
        finally:
            beat.cancel()
        if not write.succeeded:
            return TransferStep(status="failed", signature=write.signature, error=str(write.err))
        gateway = self.deps.gateway
        expected = {
            str(gateway.custody_address(row.from_uid, row.currency)): -row.amount,
            str(gateway.custody_address(row.to_uid, row.currency)): row.amount,
        }
        try:
            await verify_receipt(self.deps.solana, write.signature, expected)
        except ReceiptUnavailable as exc:
            raise ApplicationError(str(exc), type="ReceiptUnavailable") from exc
        except ReceiptMismatch as exc:
            # Money moved, but not as recorded: stop here for an operator (stays pending_onchain).
            raise ApplicationError(str(exc), type="ReceiptMismatch", non_retryable=True) from exc
        return TransferStep(
            status="succeeded",
            signature=write.signature,
            slot=write.slot,
            block_height=write.block_height,
        )

    @activity.defn(name="engine.transfer_complete")
    async def transfer_complete(self, step: TransferLanded) -> TransferStep:
        """pending_onchain -> completed: debit, credit, event, audit (local activity)."""
        async with self.deps.sessions() as session:
            await transfers.complete(
                session,
                step.transfer_id,
                signature=step.signature,
                slot=step.slot,
                block_height=step.block_height,
                decimals=self.decimals,
            )
            await session.commit()
            row = await session.get(Transfer, step.transfer_id, populate_existing=True)
        return TransferStep(status=row.status if row else "missing")

    @activity.defn(name="engine.transfer_fail")
    async def transfer_fail(self, failure: TransferFailure) -> TransferStep:
        """-> failed: funds available again, limit usage released, event (local activity)."""
        async with self.deps.sessions() as session:
            await transfers.fail(
                session, failure.transfer_id, failure.reason, decimals=self.decimals
            )
            await session.commit()
            row = await session.get(Transfer, failure.transfer_id, populate_existing=True)
        return TransferStep(status=row.status if row else "missing")

    # -- fund locks --------------------------------------------------------------------

    @activity.defn(name="engine.lock_expire")
    async def lock_expire(self, ref: LockRef) -> LockOutcome:
        """The lock's timer fired: release it if still locked (local activity)."""
        async with self.deps.sessions() as session:
            hold = await locks.expire(session, ref.lock_id, self.decimals)
            await session.commit()
        return LockOutcome(status="expired" if hold is not None else "already-resolved")

    # -- reconciliation ------------------------------------------------------------------

    @activity.defn(name="engine.reconcile")
    async def reconcile(self, request: ReconcileRequest) -> ReconcileReport:
        summary = await reconcile.reconcile(
            self.deps.sessions, self.deps.gateway, self.deps.solana, request.run_id
        )
        return ReconcileReport(summary.run_id, summary.checked, summary.skipped, summary.drifts)

    @activity.defn(name="engine.find_orphans")
    async def find_orphans(self, query: OrphanQuery) -> list[Orphan]:
        """Committed records whose workflow may never have started (see engine.recovery)."""
        async with self.deps.sessions() as session:
            return await recovery.find_orphans(
                session,
                stale_after=timedelta(seconds=query.stale_after_seconds),
                limit=query.limit,
            )

    def all(self) -> list[Any]:
        return [
            self.find_orphans,
            self.transfer_begin,
            self.transfer_send,
            self.transfer_await,
            self.transfer_complete,
            self.transfer_fail,
            self.lock_expire,
            self.reconcile,
        ]


async def _heartbeat() -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(1.0)
