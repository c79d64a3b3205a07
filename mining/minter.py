"""Single mining submissions that arrive together share ``mint_to`` transactions.

One ``SharedMinter`` per worker process (like ``engine.settlement.Settler`` for transfers).
Each single submission's workflow calls ``mint(submission_id)`` once it is verified; the minter
gathers the submissions that arrive within ``linger``, makes sure their users' custody accounts
exist, claims them in one statement (``op_key`` named on the rows before anything is signed),
packs as many as fit into one transaction, sends it through the gateway and answers each caller
with its write. Each caller then awaits finality and confirms ITS OWN submission (its status,
history, ledger credit and event), so every submission keeps its own outcome.

Exactly once, across retries and crashes: a claimed submission's write is rebuilt from its
members (every row naming the op_key, in id order), so a retry in any process sends the same
payload and the gateway sends it at most once; confirmation is conditional on
``pending_onchain``, so a second confirm credits nothing. A write the chain refused fails its
members (limits given back), as a batch chunk does.

Unlike ``engine.settlement`` this coordinator commits its own claims: they must be durable
before the write is signed; the state changes themselves are ``mining.settle``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.errors import ChainRejected
from chain.gateway import ChainGateway, ChainWrite
from db.models.mining import MiningSubmission
from mining import settle
from mining.mints import MAX_MINTS_PER_TX, MintItem, mint_of, packer

# Arrivals that end the wait early (a transaction holds this many mints at most).
_FULL = MAX_MINTS_PER_TX


class SharedMinter:
    # How long the first arrival waits for others (a few percent of the time to finality).
    linger = 0.025

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        decimals: Callable[[], int],
    ) -> None:
        self._sessions = sessions
        self._gateway = gateway
        self._decimals = decimals
        self._queue: list[str] = []
        self._claims: dict[str, asyncio.Future[str | None]] = {}
        self._arrived = asyncio.Event()
        self._batcher: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def mint(self, submission_id: str) -> settle.ConfirmResult:
        """Drive one verified submission to confirmed or failed; idempotent, safe to call
        again after any failure or crash. Raises ChainRejected when its user's custody account
        cannot be created (nothing minted), NotYetVisible, or chain errors to retry."""
        row = await self._load(submission_id)
        just_sent = False
        if row.status == "verified" and row.op_key is None:
            just_sent = await self._wait_claim(submission_id) is not None
            row = await self._load(submission_id)
        if row.status not in ("verified", "pending_onchain"):
            return _outcome(row)  # settled by an earlier attempt
        if row.op_key is None:  # the claim raced another process's, or failed: again
            raise RuntimeError(f"mining submission {submission_id} was not claimed; retrying")
        if row.status == "verified":  # claimed, but the process died before recording
            await self._send(row.op_key, resumed=True)
        write = await self._gateway.await_final(row.op_key, timeout=90.0, just_sent=just_sent)
        async with self._sessions() as session:
            done = await settle.confirm(
                session, [([submission_id], write)], decimals=self._decimals()
            )
            await session.commit()
        if not done.confirmed and not done.failed:
            return _outcome(await self._load(submission_id))  # another attempt confirmed it
        return done

    async def _load(self, submission_id: str) -> MiningSubmission:
        async with self._sessions() as session:
            row = await session.get(MiningSubmission, submission_id)
        if row is None:
            raise settle.NotYetVisible(f"mining submission {submission_id} not visible")
        return row

    async def _wait_claim(self, submission_id: str) -> str | None:
        """The op_key the batcher named for this submission and sent (None: claimed by
        another process or no longer verified)."""
        future = self._claims.get(submission_id)
        if future is None or future.done():  # done: left by a caller that gave up waiting
            future = asyncio.get_running_loop().create_future()
            self._claims[submission_id] = future
            self._queue.append(submission_id)
            self._arrived.set()
        if self._batcher is None or self._batcher.done():
            self._batcher = asyncio.create_task(self._gather(), name="mining-minter")
        try:
            return await asyncio.shield(future)
        finally:
            if future.done():
                self._claims.pop(submission_id, None)

    async def _gather(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._arrived.wait()
            until = loop.time() + self.linger
            while len(self._queue) < _FULL and loop.time() < until:
                self._arrived.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._arrived.wait(), until - loop.time())
            taken, self._queue = self._queue, []
            self._arrived.clear()
            if taken:
                task = asyncio.create_task(self._claim_and_send(taken))
                self._tasks.add(task)  # a strong reference until it is done
                task.add_done_callback(self._tasks.discard)

    async def _claim_and_send(self, ids: list[str]) -> None:
        futures = {i: self._claims[i] for i in ids if i in self._claims}
        try:
            async with self._sessions() as session:
                rows = list(await session.scalars(_verified(ids)))
            refused = await self._ensure_accounts({r.user_uid for r in rows})
            for row in rows:
                if row.user_uid in refused:
                    _settle(futures.pop(row.id, None), exc=refused[row.user_uid])
            items = [
                MintItem(r.id, r.user_uid, r.mcd_amount) for r in rows if r.user_uid not in refused
            ]
            sent: list[tuple[str, list[str]]] = []
            async with self._sessions() as session:
                for pack in self._packs(items):
                    op_key = f"mining-shared:{uuid.uuid4().hex}"
                    if claimed := await settle.claim(
                        session, [i.activity_id for i in pack], op_key
                    ):
                        sent.append((op_key, [i.activity_id for i in claimed]))
                await session.commit()
            writes = await asyncio.gather(*(self._send(op_key) for op_key, _ in sent))
            for (op_key, members), _write in zip(sent, writes, strict=True):
                for member in members:
                    _settle(futures.pop(member, None), op_key)
        except Exception as exc:
            for future in futures.values():
                _settle(future, exc=exc)  # their activities fail and are retried
            return
        for future in futures.values():
            _settle(future, None)  # not claimed here: the caller reads the row again

    async def _ensure_accounts(self, users: set[str]) -> dict[str, ChainRejected]:
        ordered = sorted(users)
        results = await asyncio.gather(
            *(self._gateway.ensure_custody_account(uid, "MCD") for uid in ordered),
            return_exceptions=True,
        )
        refused: dict[str, ChainRejected] = {}
        for uid, result in zip(ordered, results, strict=True):
            if isinstance(result, ChainRejected):
                refused[uid] = result
            elif isinstance(result, BaseException):
                raise result
        return refused

    def _packs(self, items: list[MintItem]) -> list[list[MintItem]]:
        """Greedy, in id order: each pack as many mints as fit one transaction."""
        fits = packer(self._gateway, items)
        packs: list[list[MintItem]] = []
        for item in sorted(items, key=lambda i: i.activity_id):
            if packs and fits([*packs[-1], item]):
                packs[-1].append(item)
            else:
                packs.append([item])
        return packs

    async def _send(self, op_key: str, *, resumed: bool = False) -> ChainWrite:
        """Send (or find) the write named ``op_key``, rebuilt from its members, and record it
        on them (verified -> pending_onchain)."""
        async with self._sessions() as session:
            items = await settle.members(session, op_key)
        if resumed and (refused := await self._ensure_accounts({i.user_uid for i in items})):
            # The claim came after the accounts existed; a claimed member is never failed
            # (the others' write includes it): retry.
            raise RuntimeError(f"custody accounts of {op_key} refused: {refused}")
        write = await self._gateway.submit_mints(op_key, [mint_of(i) for i in items])
        async with self._sessions() as session:
            await settle.record_mints(
                session, [(op_key, [i.activity_id for i in items], write.signature)]
            )
            await session.commit()
        return write


def _verified(ids: list[str]) -> Select[MiningSubmission]:
    return (
        select(MiningSubmission)
        .where(
            MiningSubmission.id.in_(ids),
            MiningSubmission.status == "verified",
            MiningSubmission.op_key.is_(None),
        )
        .order_by(MiningSubmission.id)
    )


def _settle(
    future: asyncio.Future[str | None] | None,
    op_key: str | None = None,
    *,
    exc: BaseException | None = None,
) -> None:
    if future is None or future.done():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(op_key)


def _outcome(row: MiningSubmission) -> settle.ConfirmResult:
    result = settle.ConfirmResult()
    if row.status == "confirmed":
        result.confirmed.append(row.id)
    elif row.status == "failed":
        result.failed.append(row.id)
    return result
