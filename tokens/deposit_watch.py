"""The deposit follower: finds the transactions that touch a watched custody account by walking
the chain's finalized blocks in slot order, not by asking the node about each account: the cost
of a pass depends on the blocks, never on how many users exist (docs/tokens.md, "How a deposit
is found"). What each transaction is booked as is the rule's (tokens/deposits.py).

A pass (``scan``):

1. The watched addresses are kept in a set (address -> user, currency), loaded once and then
   reloaded only when rows were added (``_prepare``).
2. A row it holds for the first time gets ``watched_from`` = the cursor: every block after it
   is matched against the account from now on. What landed before is the catch-up's
   (tokens/deposit_catch_up.py), which runs beside the block walk, never in front of it: it
   creates the account on chain if missing (so a deposit address shown to a user can always
   receive) and walks its history back to the account's creation, in pages, then marks the
   row ``ready``. A deposit that landed before the row existed is credited too.
3. ``getBlocksWithLimit`` lists the finalized slots after the cursor (a node without it:
   ``getSlot`` then ``getBlocks``, chain/blocks.py); each block is read whole and
   every token balance change is looked up in the set (``_walk``). Accounts named by the
   message's static keys and those loaded from address lookup tables count alike. The
   transactions this process broadcast itself (``gateway.sent_here``: the settler's transfers,
   the minter's mints) are left unread: the gateway's own, booked by their settlement, and no
   sign that a deposit is coming (the poll slows down while only they move). One it does not
   know is read, and ``book`` looks its signature up among every write's.
4. The bookings and the cursor (a slot) are committed in ONE transaction per run of blocks
   (``_commit``): the cursor moves only past slots fully examined, so a restart resumes
   exactly there and never skips a block. Passes are serialised by a PostgreSQL advisory lock.

``follow`` runs passes back to back and hears of newly watched rows by NOTIFY on
``WATCH_CHANNEL``, subscribed on the process's one listener (db/notify.py); while that is down
it looks for them once a second. ``rescan`` (the ``mccgw deposits-rescan`` command) is the
per-account repair tool: it walks one account's signatures over a slot range and books
whatever is missing, idempotently. The chain is read only through ``chain.blocks.BlockReader``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.blocks import BlockReader, BlockTx
from chain.gateway import ChainGateway
from db.last import autocommit
from db.models.tokens import CustodyWatch, DepositCursor
from db.notify import NotifyListener, Subscription
from tokens.deposit_catch_up import CatchUp, examine
from tokens.deposits import ScanSummary, Watched, book, classify, watch_ledger_accounts

_CHUNK = 64  # blocks read in one batch request and committed together with the cursor
_PASS_SECONDS = 60.0  # a pass after a long stop ends then; the next resumes at the cursor
# What one pass (``scan``) gives the catch-up beside its walk: reconciliation waits no longer.
_SCAN_CATCH_UP_SECONDS = 20.0
# Following (issue 33): newly watched rows arrive by NOTIFY on WATCH_CHANNEL (migration 0023),
# looked for anyway every _PREPARE_EVERY seconds; the slower ``idle_poll`` applies once no
# block has touched a watched account for _IDLE_AFTER seconds.
WATCH_CHANNEL = "mccgw_deposits"
_PREPARE_EVERY = 30.0
_IDLE_AFTER = 10.0
# Following, quiet blocks commit the cursor this often (a restart re-reads at most that much,
# booking nothing twice; issue 43: was 1 s, a transaction per quiet poll).
_LAZY_SAVE_SECONDS = 30.0
# ``_follow``'s periodic look: one autocommitted statement saying whether ``_prepare`` (three
# transactions and the rows' Python side) has anything to do.
_NEEDS_PREPARE = text(
    """
SELECT EXISTS (
        SELECT 1 FROM ledger_accounts a WHERE NOT EXISTS (
            SELECT 1 FROM custody_watch w
            WHERE w.user_uid = a.user_uid AND w.currency = a.currency))
    OR EXISTS (SELECT 1 FROM custody_watch WHERE watched_from IS NULL)
    OR (SELECT count(*) FROM custody_watch) <> :seen
"""
)
_LOCK = int.from_bytes(hashlib.sha256(b"mccgw-deposit-watch").digest()[:8], "big", signed=True)


class DepositScanner:
    """One per worker (``WorkerDeps.deposits``): the scheduled watcher follows with it and
    reconciliation scans with it. ``notify``: the process's listener (none: never listens)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        *,
        notify: NotifyListener | None = None,
        blocks: BlockReader | None = None,
        chunk: int = _CHUNK,
    ) -> None:
        self.sessions = sessions
        self.gateway = gateway
        self.keys = gateway.keys
        self.blocks = blocks or BlockReader(gateway.rpc)
        self.chunk = chunk
        self._notify = notify
        self._chain: str | None = None
        # address -> the watched account: the set every block is matched against.
        self._watched: dict[str, Watched] = {}
        self._seen_rows = 0
        # While following: blocks without a match move the committed cursor every
        # _LAZY_SAVE_SECONDS; blocks with a match always commit with it.
        self._lazy = False
        self._saved = 0.0
        # While following: a watched row added (NOTIFY, or the LISTEN (back) up), the
        # subscription, and when a block last touched a watched account (the poll slows down
        # after _IDLE_AFTER).
        self._watch_added = asyncio.Event()
        # Set while this scanner is not following: a pass waits on it for this process's own
        # follower, which holds the pass lock for its whole run (87 s of every 90), instead of
        # in the lock's statement, where psycopg's wait wakes the loop ten times a second
        # (issue 43: most of a custody reconciliation's CPU in an idle worker).
        self._not_following = asyncio.Event()
        self._not_following.set()
        self._subscription: Subscription | None = None
        self._matched_at = 0.0
        # Newly watched accounts' history, walked beside the block walk (set: rows to do).
        self.catch_up = CatchUp(sessions, gateway, self.blocks)
        self._catch_up_wake = asyncio.Event()

    async def aclose(self) -> None:
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None

    @property
    def listening(self) -> bool:
        """Hears of newly watched rows by NOTIFY (else it looks for them once a second)."""
        return self._subscription is not None and self._subscription.listening

    # -- the pass ------------------------------------------------------------------------

    async def scan(
        self, *, prepare: bool = True, catch_up_seconds: float = _SCAN_CATCH_UP_SECONDS
    ) -> ScanSummary:
        """One pass: newly watched accounts added to the set (``prepare``: when there are any),
        then every
        finalized block after the cursor examined (for at most _PASS_SECONDS), while the
        accounts not caught up yet are, beside the walk, for at most ``catch_up_seconds``."""
        summary = ScanSummary()
        await self._not_following.wait()  # this process's follower first (see __init__)
        async with self.sessions() as lock:
            # Held until this session ends: one pass at a time over all workers.
            await lock.execute(select(func.pg_advisory_xact_lock(_LOCK)))
            cursor = await self._cursor()
            # With the set loaded, one statement says whether ``_prepare`` (three transactions)
            # has anything to do, as while following: reconciliation scans every 5 minutes
            # and almost never finds a row added since the follower's last look (issue 43).
            if not self._seen_rows or (prepare and await self._needs_prepare()):
                await self._prepare(cursor, summary)
            summary.accounts = len(self._watched)
            deadline = time.monotonic() + catch_up_seconds
            catching = asyncio.create_task(self.catch_up.run(summary, deadline))
            try:
                summary.cursor = await self._walk(cursor, summary)
                await catching
            finally:
                await _stopped(catching)
            await lock.rollback()
        return summary

    async def follow(
        self,
        seconds: float,
        poll: float = 0.2,
        stop: asyncio.Event | None = None,
        idle_poll: float | None = None,
    ) -> ScanSummary:
        """Passes back to back for ``seconds`` (or until ``stop`` is set), one every ``poll``
        seconds when caught up, holding the pass lock throughout and the cursor in memory: a
        deposit is credited a few slots after it finalizes. ``idle_poll`` (default ``poll``):
        the interval once no watched account has moved for _IDLE_AFTER seconds (the first
        deposit after a quiet spell waits up to that long; the next ones ``poll``)."""
        total = ScanSummary()
        deadline = time.monotonic() + seconds
        self._not_following.clear()
        try:
            return await self._follow_locked(total, deadline, poll, stop, idle_poll)
        finally:
            self._not_following.set()

    async def _follow_locked(
        self,
        total: ScanSummary,
        deadline: float,
        poll: float,
        stop: asyncio.Event | None,
        idle_poll: float | None,
    ) -> ScanSummary:
        async with self.sessions() as lock:
            await lock.execute(select(func.pg_advisory_xact_lock(_LOCK)))
            cursor = await self._cursor()
            self._lazy = True
            if self._subscription is None and self._notify is not None:
                # Kept from one follow to the next (a LISTEN set up anew for every run would
                # have to look for rows added in between each time).
                added = self._watch_added.set
                self._subscription = self._notify.subscribe(
                    WATCH_CHANNEL, lambda _: added(), on_up=added
                )
            # The catch-up of newly watched accounts runs beside the walk for the whole run.
            wake = self._catch_up_wake
            catching = asyncio.create_task(self.catch_up.run(total, deadline, wake))
            try:
                await self._follow(cursor, total, deadline, poll, stop, idle_poll or poll)
            finally:
                await _stopped(catching)
                self._lazy = False
                if total.cursor:  # walked but not saved yet (blocks without a match)
                    await self._commit([], total, cursor=total.cursor)
                await lock.rollback()
        return total

    async def _follow(
        self,
        cursor: int,
        total: ScanSummary,
        deadline: float,
        poll: float,
        stop: asyncio.Event | None,
        idle_poll: float,
    ) -> None:
        prepared = 0.0
        while True:
            # New watched accounts: at once when PostgreSQL says a row was added (NOTIFY,
            # migrations 0023, 0025), else once a second; every _PREPARE_EVERY seconds
            # regardless. Each is matched from the cursor on, and its history before that is
            # the catch-up's (beside this loop), so nothing is missed in between.
            since = time.monotonic() - prepared
            every = _PREPARE_EVERY if self.listening else 1.0
            if due := since >= every:
                prepared = time.monotonic()
            if self._watch_added.is_set() or (due and await self._needs_prepare()):
                self._watch_added.clear()
                prepared = time.monotonic()
                await self._prepare(cursor, total)
            cursor = total.cursor = await self._walk(cursor, total)
            total.accounts = len(self._watched)
            if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                return
            wait = min(idle_poll if self._quiet() else poll, max(0.0, deadline - time.monotonic()))
            await self._nap(wait, stop)

    async def _nap(self, seconds: float, stop: asyncio.Event | None) -> None:
        """Until the next poll, a watched row added, or ``stop`` (a worker's shutdown does not
        wait out the idle poll)."""
        if stop is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._watch_added.wait(), seconds)
            return
        waits = {
            asyncio.ensure_future(self._watch_added.wait()),
            asyncio.ensure_future(stop.wait()),
        }
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()

    def _quiet(self) -> bool:
        """No block has touched a watched account for _IDLE_AFTER seconds."""
        return time.monotonic() - self._matched_at >= _IDLE_AFTER

    async def chain_id(self) -> str:
        if self._chain is None:
            self._chain = await self.blocks.genesis_hash()
        return self._chain

    async def _cursor(self) -> int:
        """The last slot fully examined; on a chain seen for the first time, its finalized
        slot now, and every watched account is caught up to it by signature (step 2)."""
        chain = await self.chain_id()
        async with self.sessions() as session:
            slot = await session.scalar(
                select(DepositCursor.slot).where(DepositCursor.chain == chain)
            )
            if slot is not None:
                return int(slot)
            start = await self.blocks.finalized_slot()
            await session.execute(
                insert(DepositCursor).values(chain=chain, slot=start).on_conflict_do_nothing()
            )
            await session.execute(
                update(CustodyWatch).values(ready=False, watched_from=None, last_signature=None)
            )
            await session.commit()
            found = await session.scalar(
                select(DepositCursor.slot).where(DepositCursor.chain == chain)
            )
        self._watched.clear()
        self._seen_rows = 0
        return int(found if found is not None else start)

    async def _prepare(self, cursor: int, summary: ScanSummary) -> None:
        """The set brought up to date with the rows added since it was loaded; those rows are
        matched from ``cursor`` on (``watched_from``), and the catch-up hears of them."""
        async with self.sessions() as session:
            await watch_ledger_accounts(session, self.gateway)
            await session.commit()
            added = (
                await session.execute(
                    update(CustodyWatch)
                    .where(CustodyWatch.watched_from.is_(None))
                    .values(watched_from=cursor)
                    .returning(CustodyWatch.address)
                )
            ).all()
            await session.commit()
            count = await session.scalar(select(func.count()).select_from(CustodyWatch)) or 0
            if count != self._seen_rows or added:
                # Rows are added (or re-derived, tokens/deposits.register): reload the set.
                rows = (
                    await session.execute(
                        select(CustodyWatch.address, CustodyWatch.user_uid, CustodyWatch.currency)
                    )
                ).all()
                self._watched = {a: Watched(a, u, c) for a, u, c in rows}
                self._seen_rows = len(rows)
        if added:
            self._catch_up_wake.set()

    async def _needs_prepare(self) -> bool:
        async with autocommit(self.sessions) as s:
            return bool(await s.scalar(_NEEDS_PREPARE, {"seen": self._seen_rows}))

    async def _walk(self, cursor: int, summary: ScanSummary, until: int | None = None) -> int:
        """Blocks after ``cursor`` up to the finalized slot (or ``until``, for benchmarks)."""
        deadline = time.monotonic() + _PASS_SECONDS
        mints = {c: str(self.keys.mint_for(c)) for c in ("MCC", "MCD")}
        while time.monotonic() < deadline:
            # One request (getBlocksWithLimit): which finalized slots after the cursor have a
            # block, and so how far the finalized chain reaches.
            slots, end, more = await self.blocks.blocks_after(cursor)
            if until is not None and end > until:
                slots, end, more = [s for s in slots if s <= until], until, False
            if end <= cursor:
                return cursor
            chunks = [slots[i : i + self.chunk] for i in range(0, len(slots), self.chunk)] or [[]]
            # The next run of blocks is read while this one is matched and committed.
            # The transactions this process sent itself are left unread: the gateway's own,
            # booked by their settlement (chain/sent_here.py; unknown ones go to ``book``).
            own = self.gateway.sent_here
            ahead = asyncio.ensure_future(self.blocks.blocks(chunks[0], own))
            try:
                for number, chunk in enumerate(chunks):
                    blocks = await ahead
                    if number + 1 < len(chunks):
                        ahead = asyncio.ensure_future(self.blocks.blocks(chunks[number + 1], own))
                    records: list[dict[str, Any]] = []
                    for block in blocks:
                        if block is None:
                            continue  # a skipped slot: no block, nothing to examine
                        summary.blocks += 1
                        summary.own += block.skipped
                        when = block.block_time
                        at = datetime.fromtimestamp(when, UTC) if when is not None else None
                        for tx in block.transactions:
                            records += self._match(tx, block.slot, at, mints)
                    # Up to the range's end once its last block is in: skipped slots are done.
                    last = chunk[-1] if number + 1 < len(chunks) else end
                    lazy = self._lazy and time.monotonic() - self._saved < _LAZY_SAVE_SECONDS
                    if records or not lazy:
                        await self._commit(records, summary, cursor=last)
                        self._saved = time.monotonic()
                    cursor = last
                    if time.monotonic() >= deadline:
                        return cursor
            finally:
                ahead.cancel()
            if not more and (not slots or self._quiet()):
                # The node listed every finalized block there was. While watched accounts move,
                # look again at once (blocks finalized while these were read); while they do
                # not, the next poll looks: asking now would (almost always) find nothing, a
                # request per poll for nothing.
                return cursor
        return cursor

    def _match(
        self, tx: BlockTx, slot: int, at: datetime | None, mints: dict[str, str]
    ) -> list[dict[str, Any]]:
        """The records of one transaction: a dictionary lookup per token balance change."""
        out = []
        watched = self._watched
        for change in tx.token_changes:
            account = watched.get(change.account)
            if account is None:
                continue
            self._matched_at = time.monotonic()
            record = classify(tx, slot, at, account, mints[account.currency])
            if record is not None:
                out.append(record)
        return out

    # -- the repair tool -----------------------------------------------------------------

    async def rescan(self, address: str, from_slot: int, to_slot: int) -> ScanSummary:
        """Walk one watched account's signatures in [from_slot, to_slot] and book whatever is
        missing (idempotent: what is booked already stays as it is). The block cursor is
        left alone."""
        async with self.sessions() as session:
            row = await session.get(CustodyWatch, address)
        if row is None:
            raise LookupError(f"{address} is not a watched custody account")
        summary = ScanSummary(accounts=1)
        await self._signature_walk(
            Watched(row.address, row.user_uid, row.currency), from_slot, to_slot, summary
        )
        return summary

    async def _signature_walk(
        self, account: Watched, from_slot: int, to_slot: int, summary: ScanSummary
    ) -> None:
        mint = str(self.keys.mint_for(account.currency))
        entries = await self.blocks.signatures_of(account.address, from_slot, to_slot)
        records = await examine(self.blocks, account, mint, entries)
        for start in range(0, len(records), 100):
            await self._commit(records[start : start + 100], summary, cursor=None)

    async def _commit(
        self, records: list[dict[str, Any]], summary: ScanSummary, *, cursor: int | None
    ) -> None:
        """The records' bookings and the cursor: one transaction."""
        async with self.sessions() as session:
            if records:
                # What a credit is announced in (the mints' decimals, read once per process).
                decimals = await self.gateway.load_token_decimals()
                await book(session, records, summary, decimals)
            if cursor is not None:
                chain = await self.chain_id()
                await session.execute(
                    insert(DepositCursor)
                    .values(chain=chain, slot=cursor)
                    .on_conflict_do_update(
                        index_elements=["chain"],
                        set_={
                            "slot": func.greatest(DepositCursor.slot, cursor),
                            "updated_at": func.now(),
                        },
                    )
                )
            await session.commit()


async def _stopped(task: asyncio.Task[None]) -> None:
    """The catch-up beside a pass, ended with it (its committed steps stay)."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
