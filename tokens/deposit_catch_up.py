"""Catching up a newly watched custody account: the part of its history the block walk did not
cover, walked apart from that walk (issue 38, H2).

The follower (tokens/deposit_watch.py) matches every block after ``watched_from`` against an
account from the moment it holds the account's row; what landed before is this module's. What
history can a custody account have?

- Only the gateway can create the token account at a custody address (the address is derived
  from the custody authority, which must sign its allocation), and tokens can only be sent to
  a token account that exists. So nothing before its creation ever moved its tokens, however
  many transactions name the address (anyone can send it lamports, for the price of a fee).
  Its history starts at the slot where the gateway's creation landed
  (``ChainGateway.custody_origin``). An account created after the follower held its row (the
  usual case: its user read a balance, and the catch-up creates it now) has none to walk.
- Otherwise its signatures are read newest first, a page at a time, and at most ``_PAGE``
  transactions are read per step: each step's bookings commit together with the row's
  position (``last_signature``), so a pass that ends, or a worker that dies, anywhere resumes
  there, and a transaction examined twice books nothing twice (deposits are unique per
  signature and address). The row is ``ready`` once the page reaches its origin.
- Each account is caught up by a task of its own (at most ``_ROWS`` at once), beside the block
  walk: a long history delays that account's earlier deposits only, never another account's
  credit or the follower's next block.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.blocks import SIGNATURES_PAGE, BlockReader, SignatureRef
from chain.gateway import ChainGateway
from db.models.tokens import CustodyWatch
from tokens.deposits import ScanSummary, Watched, book, classify

log = logging.getLogger("mccgw.tokens.deposits")

_PAGE = 100  # transactions read per step, booked in one commit with the row's position
_ROWS = 16  # accounts caught up at once
_LOOK_EVERY = 1.0  # while following: how often pending rows are looked for without a wake-up
# ... when no row waits for a retry: the follower wakes the catch-up whenever it adds rows, so
# the timed look is only a safety net (issue 43: every second, an idle worker's transaction).
_QUIET_LOOK_EVERY = 30.0
_RETRY_AFTER = 5.0  # a row whose step failed (the chain down, say) waits this long


@dataclass(frozen=True)
class Pending:
    """A watched row not caught up yet, as the catch-up needs it."""

    account: Watched
    watched_from: int
    last_signature: str | None


async def examine(
    blocks: BlockReader, account: Watched, mint: str, entries: list[SignatureRef]
) -> list[dict[str, Any]]:
    """The deposits rows of these signatures of one account, their transactions read in
    batches (``BlockReader.transactions``)."""
    records = []
    transactions = await blocks.transactions([entry.signature for entry in entries])
    for entry, found in zip(entries, transactions, strict=True):
        if found is None:
            raise RuntimeError(f"finalized transaction {entry.signature} not returned by the node")
        when = found.block_time
        block_time = datetime.fromtimestamp(when, UTC) if when is not None else None
        record = classify(found.tx, entry.slot, block_time, account, mint)
        if record is not None:
            records.append(record)
    return records


class CatchUp:
    """The catch-up of one deposit scanner (``DepositScanner.catch_up``)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        blocks: BlockReader,
    ) -> None:
        self.sessions = sessions
        self.gateway = gateway
        self.blocks = blocks
        self._retry_at: dict[str, float] = {}  # address -> when, after a failed step

    async def run(
        self, summary: ScanSummary, deadline: float, wake: asyncio.Event | None = None
    ) -> None:
        """Catch up the pending rows until ``deadline`` (``time.monotonic``). With ``wake``
        (while following), keep looking for new ones, at once when it is set; without, return
        once none is left (or only ones that just failed)."""
        running: dict[str, asyncio.Task[None]] = {}
        try:
            while True:
                try:
                    pending = await self._pending(set(running))
                except Exception:  # the database away: the follower's walk fails by itself
                    log.warning("catch-up: pending rows unreadable; retried", exc_info=True)
                    pending = []
                for row in pending:
                    if len(running) < _ROWS:
                        job = self._account(row, summary)
                        running[row.account.address] = asyncio.create_task(job)
                left = deadline - time.monotonic()
                if left <= 0 or (wake is None and not running):
                    return
                waits: set[asyncio.Future[Any]] = set(running.values())
                waker = asyncio.ensure_future(wake.wait()) if wake is not None else None
                if waker is not None:
                    waits.add(waker)
                    left = min(left, _LOOK_EVERY if self._retry_at else _QUIET_LOOK_EVERY)
                try:
                    await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    if waker is not None:
                        waker.cancel()
                if wake is not None:
                    wake.clear()
                running = {a: t for a, t in running.items() if not t.done()}
        finally:
            for task in running.values():
                task.cancel()
            await asyncio.gather(*running.values(), return_exceptions=True)

    async def _pending(self, busy: set[str]) -> list[Pending]:
        now = time.monotonic()
        async with self.sessions() as session:
            rows = (
                await session.execute(
                    select(
                        CustodyWatch.address, CustodyWatch.user_uid, CustodyWatch.currency,
                        CustodyWatch.watched_from, CustodyWatch.last_signature,
                    )
                    .where(CustodyWatch.ready.is_(False), CustodyWatch.watched_from.is_not(None))
                    .order_by(CustodyWatch.created_at)
                    .limit(_ROWS + len(busy) + len(self._retry_at))
                )
            ).all()  # fmt: skip
        return [
            Pending(Watched(address, uid, currency), since or 0, position)
            for address, uid, currency, since, position in rows
            if address not in busy and now >= self._retry_at.get(address, 0.0)
        ]

    async def _account(self, row: Pending, summary: ScanSummary) -> None:
        """One account to the end (or until cancelled: its committed steps stay)."""
        account, began, steps = row.account, time.monotonic(), 0
        try:
            await self.gateway.ensure_custody_account(account.user_uid, account.currency)
            origin = await self.gateway.custody_origin(account.user_uid, account.currency)
            position, done = row.last_signature, origin > row.watched_from
            if done:  # created after the follower held it: every block of it is walked
                await self._commit(row, [], position, True, summary)
            mint = str(self.gateway.keys.mint_for(account.currency))
            while not done:
                listed = await self.blocks.signature_page(account.address, position)
                wanted, position, done = _step(listed, position, origin, row.watched_from)
                records = await examine(self.blocks, account, mint, wanted)
                await self._commit(row, records, position, done, summary)
                steps += 1
        except asyncio.CancelledError:
            raise
        except Exception:
            self._retry_at[account.address] = time.monotonic() + _RETRY_AFTER
            log.warning("catch-up of %s failed; retried later", account.address, exc_info=True)
            return
        self._retry_at.pop(account.address, None)
        # A history walked is news; an account with none to walk (the usual case) is chatter.
        log.log(
            logging.INFO if steps else logging.DEBUG,
            "caught up %s (%s %s): %d steps from slot %s back to its creation, %.1f s",
            account.address, account.user_uid, account.currency, steps, row.watched_from,
            time.monotonic() - began,
        )  # fmt: skip

    async def _commit(
        self,
        row: Pending,
        records: list[dict[str, Any]],
        position: str | None,
        done: bool,
        summary: ScanSummary,
    ) -> None:
        """A step's bookings and the row's position: one transaction."""
        values: dict[str, Any] = {"last_signature": position}
        if done:
            values |= {"ready": True, "scanned_at": datetime.now(UTC)}
        async with self.sessions() as session:
            if records:
                decimals = await self.gateway.load_token_decimals()
                await book(session, records, summary, decimals)
            await session.execute(
                update(CustodyWatch)
                .where(
                    CustodyWatch.address == row.account.address,
                    CustodyWatch.watched_from == row.watched_from,  # not reset meanwhile
                )
                .values(**values)
            )
            await session.commit()
        if done:
            summary.created += 1


def _step(
    listed: list[SignatureRef], position: str | None, origin: int, until: int
) -> tuple[list[SignatureRef], str | None, bool]:
    """Of one page (newest first): the signatures to read in this step (landed in [origin,
    until], at most _PAGE), the new position (the oldest one passed) and whether the history
    ends within the page."""
    wanted: list[SignatureRef] = []
    done = len(listed) < SIGNATURES_PAGE
    for index, entry in enumerate(listed):
        if entry.slot < origin:
            return wanted, position, True
        position = entry.signature
        if entry.slot <= until:  # newer ones are the block walk's
            wanted.append(entry)
            if len(wanted) == _PAGE:
                return wanted, position, done and index == len(listed) - 1
    return wanted, position, done
