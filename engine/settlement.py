"""Settling transfers on chain, several per transaction, each exactly once.

One ``Settler`` per worker process. Every TransferWorkflow's one activity calls
``settle(transfer_id)``; the settler gathers the transfers that arrive together, claims them in
one statement (``pending -> pending_onchain``, all naming one new chain write), packs as many as
fit into one transaction (one fee payer, many custody ``transfer_checked``), sends it through the
chain gateway, waits for finality in the process's one finality watcher, checks the receipt once
and books every member in one database transaction. Each member keeps its own status, history,
ledger entries and event.

Exactly once, across retries and crashes:

- a member's write is named in the database by its claim (``transfers.op_key``) before anything
  is signed; the write's instructions are rebuilt from its members (ordered by id), so any
  process resumes it with the same payload, and the gateway sends it at most once;
- a write that failed moved nothing (a transaction is atomic): its unfinished members are
  ``split`` into writes of their own, and a member alone in a failed write fails (funds
  available again);
- booking is a conditional update per member, so a second booking of a write books nothing.

The batcher lingers up to ``linger`` (25 ms, a few percent of the time to finality) or until a
transaction's worth has arrived; under load the arrivals also pile up while the previous batch
is being signed, so batches grow up to what fits in a transaction. Under light load a batch
holds one transfer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from solders.instruction import Instruction
from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.custody import CustodyTransfer
from chain.gateway import ChainGateway, ChainWrite
from core.batching import Gatherer, Handled, TaskPerKey
from db.last import autocommit, commit_last
from db.models.engine import FINAL_TRANSFER_STATUSES, Transfer
from engine import transfers

log = logging.getLogger(__name__)

# Signing phases in flight at once: while they run, new arrivals gather into the next batch.
_SIGNING_SLOTS = 1
# Arrivals that make a full batch: what one transaction holds of transfers between distinct
# users (10 with the compute budget every write carries: 1,156 bytes, 11 would be 1,237 of the
# 1,232; tests/engine/test_settlement.py holds this to the packer). A batch takes no more, so
# that a busy worker's arrivals make full writes, not a full one and a small rest (issue 43:
# with 16, a batch of 11-16 was sent as 10 and 1-6).
FULL_BATCH = 10
# The arrivals' rows as they are now (over any copy the session holds), in id order; built once
# (its construction and cache key cost more than its share of the execution, issue 43).
_ARRIVALS = (
    select(Transfer)
    .where(Transfer.id.in_(bindparam("ids", expanding=True)))
    .order_by(Transfer.id)
    .execution_options(populate_existing=True)
)


class TransferNotFound(Exception):
    pass


@dataclass(frozen=True)
class Settled:
    """Where a transfer ended; or, with ``settling``, its recorded status while its settlement
    goes on (a slow transfer's report, activities.engine)."""

    status: str
    signature: str | None = None
    slot: int | None = None
    block_height: int | None = None
    error: str | None = None
    settling: bool = False


# How a write's members ended (Settled), or the write a member moved on to (its op_key).
Outcomes = dict[str, "Settled | str"]


def _legs(rows: Sequence[Transfer]) -> list[CustodyTransfer]:
    return [CustodyTransfer(r.currency, r.from_uid, r.to_uid, r.amount) for r in rows]


def expected_deltas(gateway: ChainGateway, rows: Sequence[Transfer]) -> dict[str, int]:
    """Net token change of every custody account the write touches (a user may appear in
    several of its transfers)."""
    net: dict[str, int] = {}
    for r in rows:
        src = str(gateway.custody_address(r.from_uid, r.currency))
        dst = str(gateway.custody_address(r.to_uid, r.currency))
        net[src] = net.get(src, 0) - r.amount
        net[dst] = net.get(dst, 0) + r.amount
    return net


class Settler:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        *,
        linger: float = 0.025,
        await_timeout: float = 20.0,
    ) -> None:
        self._sessions = sessions
        self._gateway = gateway
        self._await_timeout = await_timeout
        # A transfer as the batcher found it (None: no such transfer): claimed by a write of
        # this process if it was pending, else as recorded.
        self._claims: Gatherer[str, Transfer] = Gatherer(
            self._claim_and_send,
            linger=linger,
            full=FULL_BATCH,
            slots=_SIGNING_SLOTS,
            name="transfer-batcher",
        )
        self._drives: TaskPerKey[str, Outcomes] = TaskPerKey(
            "settle", what="settling write", logger=log
        )

    # -- the one entry point ------------------------------------------------------------

    async def settle(self, transfer_id: str) -> Settled:
        """Drive one transfer to a final state; idempotent, safe to call again after any
        failure or crash. Raises TransferNotFound, or chain/database errors to retry."""
        # The batcher reads (and claims, if pending) every transfer that arrives together in
        # one statement each: no read per transfer.
        row = await self._claims.arrive(transfer_id)
        # pending -> claimed -> (batch write fails -> own write) -> final: a few rounds at most.
        for _ in range(6):
            if row is None:
                raise TransferNotFound(transfer_id)
            if row.status in FINAL_TRANSFER_STATUSES:
                return Settled(
                    row.status, row.signature, row.slot, row.block_height, row.failure_reason
                )
            if row.status == "pending_onchain" and row.op_key is not None:
                # The write's task reports how its members ended, or the write a member moved
                # on to; the row is read again only when it has nothing to say.
                outcome = (await asyncio.shield(self._drive(row.op_key))).get(transfer_id)
                if isinstance(outcome, Settled):
                    return outcome
                if outcome is not None:
                    outcome = (await asyncio.shield(self._drive(outcome))).get(transfer_id)
                    if isinstance(outcome, Settled):
                        return outcome
                row = await self._load(transfer_id)
            elif row.status == "pending_onchain":  # only a hand-edited row looks like this
                raise RuntimeError(f"transfer {transfer_id} is pending_onchain without a write")
            else:  # still pending: a cancel or another process's claim raced ours; again
                row = await self._claims.arrive(transfer_id)
        raise RuntimeError(f"transfer {transfer_id} did not settle; retrying")

    # -- gathering and claiming ---------------------------------------------------------

    async def _claim_and_send(self, transfer_ids: list[str]) -> Handled[str, Transfer]:
        """Read the arrivals in one statement, claim those still pending, pack them into writes
        that fit one transaction each and record them, then start the writes; the signing slot
        is released once they are sent. An exception here fails every arrival (their
        activities are retried)."""
        packs: dict[str, list[Transfer]] = {}
        await self._gateway.load_token_decimals()  # transfer_checked needs each mint's
        # One read, then one statement per pack, each committed by itself (a claim is its
        # UPDATE and the members' state rows, one statement): no BEGIN/COMMIT round trips.
        async with autocommit(self._sessions) as session:
            found = {r.id: r for r in await session.scalars(_ARRIVALS, {"ids": transfer_ids})}
            pending = [r for r in found.values() if r.status == "pending"]
            for pack in self._packs(pending):
                op_key = transfers.new_batch_op_key()
                if members := await transfers.claim(session, [r.id for r in pack], op_key):
                    packs[op_key] = members
                    found.update((m.id, m) for m in members)
        # The claims are committed: only now may their writes be signed.
        loop = asyncio.get_running_loop()
        sent = [loop.create_future() for _ in packs]
        for (op_key, members), signal in zip(packs.items(), sent, strict=True):
            self._drive(op_key, sent=signal, members=members)
        return Handled(found, sent)

    def _packs(self, rows: list[Transfer]) -> list[list[Transfer]]:
        """Greedy, in id order: each pack as many transfers as fit one transaction."""
        packs: list[list[Transfer]] = []
        instructions: list[Instruction] = []
        for row in rows:
            ix = self._gateway.transfer_instruction(_legs([row])[0])
            if packs and self._gateway.fits_one_transaction([*instructions, ix]):
                packs[-1].append(row)
                instructions.append(ix)
            else:
                packs.append([row])
                instructions = [ix]
        return packs

    # -- one write, from send to booked -------------------------------------------------

    def _drive(
        self,
        op_key: str,
        *,
        sent: asyncio.Future[None] | None = None,
        members: list[Transfer] | None = None,
    ) -> asyncio.Task[Outcomes]:
        """The one task per process driving ``op_key``; every member waits on it. ``sent``
        resolves once the write is sent (or the task ended without sending); ``members``: the
        rows just claimed for it (otherwise they are read)."""
        return self._drives.task(
            op_key, lambda mark_sent: self._run_write(op_key, mark_sent, members), sent=sent
        )

    async def _run_write(
        self, op_key: str, mark_sent: Callable[[], None], claimed: list[Transfer] | None
    ) -> Outcomes:
        """Send (or resume) the write, await it and settle its members. Returns how the members
        still open ended: Settled, or the op_key of the write a member moved on to."""
        if claimed is not None:
            rows = claimed
        else:
            async with self._sessions() as session:
                rows = await transfers.members(session, op_key)
        if not rows or all(r.status != "pending_onchain" for r in rows):
            return {}  # booked (or ended) already
        await asyncio.gather(
            *(
                self._gateway.ensure_custody_account(uid, r.currency)
                for r in rows
                for uid in (r.from_uid, r.to_uid)
            )
        )
        # Claimed just now by this process (``claimed``): signed and recorded without a read.
        write = await self._gateway.submit_transfers(op_key, _legs(rows), new=claimed is not None)
        just_sent = write.status == "sent" and write.send_count == 1
        mark_sent()  # the next batch may be signed now
        if not write.final:
            write = await self._gateway.await_final(
                op_key, self._await_timeout, just_sent=just_sent
            )
        if write.succeeded:
            return await self._book(op_key, write, rows)
        return await self._failed(op_key, write, rows)

    async def _book(self, op_key: str, write: ChainWrite, rows: list[Transfer]) -> Outcomes:
        assert write.signature is not None
        # The transaction's own balance changes must be exactly the members' transfers.
        await self._gateway.receipt(write.signature, expected_deltas(self._gateway, rows))
        async with self._sessions() as session:
            done = await transfers.complete_many(
                session,
                rows,
                signature=write.signature,
                slot=write.slot,
                block_height=write.block_height,
                decimals=self._gateway.token_decimals(),
            )
            await commit_last(session)  # the booking goes with the COMMIT (db.last)
        log.info("write %s finalized: %d transfer(s) booked", op_key, len(done))
        return {
            t.id: Settled("completed", write.signature, write.slot, write.block_height)
            for t in done
        }

    async def _failed(self, op_key: str, write: ChainWrite, rows: list[Transfer]) -> Outcomes:
        reason = f"chain rejected: {write.err}"
        async with self._sessions() as session:
            if len(rows) > 1:
                moved = await transfers.split(session, op_key)
                outcomes: Outcomes = {tid: transfers.op_key_for(tid) for tid in moved}
                log.warning(
                    "batch write %s failed (%s); %d transfer(s) go on alone",
                    op_key, write.err, len(moved),
                )  # fmt: skip
            else:
                ended = await transfers.fail(
                    session,
                    rows[0].id,
                    reason,
                    decimals=self._gateway.token_decimals(),
                    from_statuses=("pending_onchain",),
                )
                outcomes = {} if ended is None else {ended.id: Settled("failed", error=reason)}
            await session.commit()
        return outcomes

    # -- helpers --------------------------------------------------------------------------

    async def _load(self, transfer_id: str) -> Transfer | None:
        async with self._sessions() as session:
            return await session.get(Transfer, transfer_id)
