"""Single mining submissions that arrive together are verified, minted and confirmed together.

One ``SharedMinter`` per worker process (like ``engine.settlement.Settler`` for transfers).
Each single submission's workflow calls ``settle(submission_id)`` once; the minter gathers the
submissions that arrive within ``linger`` (and those that pile up while the previous group is
being signed) and, for the whole group:

1. verifies them in one transaction (``mining.settle.verify``: rejected ones end here);
2. makes sure their users' custody accounts exist, then claims the verified ones in one
   statement, several per ``mint_to`` transaction (each write's ``op_key`` named on its rows
   before anything is signed);
3. sends each write through the gateway and records it (verified -> pending_onchain);
4. awaits its finality once and confirms all its members in one transaction (ledger credits,
   ``mining.reward.confirmed`` events), then answers each caller with its own outcome.

Each submission keeps its own status, history, ledger credit and events; only the database
transactions and the chain transaction are shared.

Exactly once, across retries and crashes: a claimed submission's write is rebuilt from its
members (every row naming the op_key, in id order), so a retry in any process sends the same
payload and the gateway sends it at most once; every status change is conditional on the
current status, so a second verify or confirm does nothing. A write the chain refused fails its
members (limits given back), as a batch chunk does.

Unlike ``engine.settlement`` this coordinator commits its own steps: a claim must be durable
before the write is signed; the state changes themselves are ``mining.settle``'s.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from chain.errors import ChainRejected
from chain.gateway import ChainGateway, ChainWrite
from core.batching import Gatherer, Handled, TaskPerKey
from db.last import autocommit, commit_last
from db.models.mining import MiningSubmission
from mining import settle
from mining.mints import MAX_MINTS_PER_TX, MintItem, mint_of, packer
from mining.settle import VerifyResult
from mining.verify import ProofWindow

log = logging.getLogger(__name__)

# Arrivals that end the wait early (a transaction holds this many mints at most).
_FULL = MAX_MINTS_PER_TX
FINAL = ("confirmed", "failed", "rejected")


@dataclass(frozen=True)
class Found:
    """A submission as its group left it: its status and the write it joined, if any."""

    status: str
    op_key: str | None = None


class SharedMinter:
    # How long the first arrival waits for others (a few percent of the time to finality).
    linger = 0.025

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        gateway: ChainGateway,
        *,
        keys: dict[str, str],
        window: ProofWindow,
    ) -> None:
        self._sessions = sessions
        self._gateway = gateway
        self._keys = keys
        self._window = window
        # A submission as its group left it (None: not claimed here, read it). One group
        # verified, claimed and signed at a time: the next one gathers meanwhile. ``linger`` is
        # read at each group, so that the class attribute set on a running worker applies.
        self._groups: Gatherer[str, Found] = Gatherer(
            self._verify_and_claim,
            linger=lambda: self.linger,
            full=_FULL,
            slots=1,
            name="mining-minter",
        )
        self._drives: TaskPerKey[str, dict[str, str]] = TaskPerKey(
            "mint", what="mining write", logger=log
        )

    # -- the entry points -----------------------------------------------------------------

    async def settle(self, submission_id: str) -> str:
        """Drive one submission to ``confirmed``, ``failed`` or ``rejected`` (returned);
        idempotent, safe to call again after any failure or crash. Raises ChainRejected when its
        user's custody account cannot be created (nothing minted), NotYetVisible, or chain and
        database errors to retry."""
        found = await self._groups.arrive(submission_id)
        # arrived -> (claimed by another process) -> its write -> final: a few rounds at most.
        for _ in range(4):
            if found is None:
                found = await self._load(submission_id)
            if found.status in FINAL:
                return found.status
            if found.op_key is None:  # still to verify or claim: join the next group
                found = await self._groups.arrive(submission_id)
                continue
            # A claimed row still ``verified`` was never recorded as sent: send it again.
            resend = found.status == "verified"
            drive = self._drive(found.op_key, resend=resend)
            outcome = (await asyncio.shield(drive)).get(submission_id)
            if outcome is not None:
                return outcome
            found = None  # confirmed by an earlier attempt: read it
        raise RuntimeError(f"mining submission {submission_id} did not settle; retrying")

    # -- gathering, verifying and claiming ------------------------------------------------

    async def _verify_and_claim(self, ids: list[str]) -> Handled[str, Found]:
        """Verify the group, claim its verified members into writes and start them; the slot
        is released once the writes are sent. An exception here fails every member of the
        group (their activities are retried)."""
        verified, rejected, missing = await self._verify(ids)
        refused = await self._ensure_accounts({i.user_uid for i in verified})
        claimable = [i for i in verified if i.user_uid not in refused]
        packs: dict[str, list[MintItem]] = {}
        # Each pack's claim is one statement, committed by itself (no BEGIN/COMMIT round trips).
        async with autocommit(self._sessions) as session:
            for pack in self._packs(claimable):
                op_key = f"mining-shared:{uuid.uuid4().hex}"
                if claimed := await settle.claim(session, [i.activity_id for i in pack], op_key):
                    packs[op_key] = claimed
        # The claims are committed: only now may their writes be signed.
        sent = [asyncio.get_running_loop().create_future() for _ in packs]
        for (op_key, members), signal in zip(packs.items(), sent, strict=True):
            self._drive(op_key, members=members, sent=signal)
        found: dict[str, Found | BaseException] = {i: Found("rejected") for i in rejected}
        found.update(
            (i, settle.NotYetVisible(f"mining submission {i} not visible")) for i in missing
        )
        for item in verified:
            if item.user_uid in refused:
                found[item.activity_id] = refused[item.user_uid]
        for op_key, members in packs.items():
            found.update((m.activity_id, Found("verified", op_key)) for m in members)
        return Handled(found, sent)

    async def _verify(self, ids: list[str]) -> tuple[list[MintItem], list[str], set[str]]:
        """One transaction: (verified items, rejected ids, ids not in the database)."""
        async with self._sessions() as session:
            missing: set[str] = set()
            try:
                result = await self._verify_in(session, ids)
            except settle.NotYetVisible:
                # Only a workflow started by hand runs ahead of its row: verify the others.
                await session.rollback()
                present = set(
                    await session.scalars(
                        select(MiningSubmission.id).where(MiningSubmission.id.in_(ids))
                    )
                )
                missing = set(ids) - present
                result = await self._verify_in(session, sorted(present))
            await session.commit()
        return result.verified, result.rejected, missing

    async def _verify_in(self, session: AsyncSession, ids: list[str]) -> VerifyResult:
        if not ids:
            return VerifyResult()
        return await settle.verify(
            session,
            ids,
            keys=self._keys,
            decimals=self._gateway.token_decimals().mcd,
            window=self._window,
        )

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

    # -- one write, from send to confirmed ------------------------------------------------

    def _drive(
        self,
        op_key: str,
        *,
        members: list[MintItem] | None = None,
        resend: bool = False,
        sent: asyncio.Future[None] | None = None,
    ) -> asyncio.Task[dict[str, str]]:
        """The one task per process driving ``op_key``; every member waits on it. ``members``:
        just claimed for it (sent now); else it is resumed (``resend``: recorded as claimed but
        not as sent). ``sent`` resolves once the write is sent or the task ended."""
        return self._drives.task(
            op_key, lambda mark_sent: self._run_write(op_key, members, resend, mark_sent), sent=sent
        )

    async def _run_write(
        self,
        op_key: str,
        members: list[MintItem] | None,
        resend: bool,
        mark_sent: Callable[[], None],
    ) -> dict[str, str]:
        """Send (or resume) the write, await its finality and confirm its members: how each
        member this call moved ended (``confirmed`` or ``failed``)."""
        just_sent = False
        if members is not None or resend:
            write = await self._send(op_key, members)
            just_sent = members is not None and write.status == "sent" and write.send_count == 1
        mark_sent()  # the next group may be signed now
        write = await self._gateway.await_final(op_key, timeout=90.0, just_sent=just_sent)
        async with self._sessions() as session:
            if members is None:
                members = await settle.members(session, op_key)
            done = await settle.confirm(
                session,
                [([m.activity_id for m in members], write)],
                decimals=self._gateway.token_decimals().mcd,
            )
            await commit_last(session)  # the credits go with the COMMIT (db.last)
        log.info(
            "mining write %s final: %d confirmed, %d failed",
            op_key,
            len(done.confirmed),
            len(done.failed),
            extra={"op_key": op_key},
        )
        return {
            **dict.fromkeys(done.confirmed, "confirmed"),
            **dict.fromkeys(done.failed, "failed"),
        }

    async def _send(self, op_key: str, claimed: list[MintItem] | None) -> ChainWrite:
        """Send (or find) the write named ``op_key`` and record it on its members (verified ->
        pending_onchain). ``claimed``: its members as just claimed; else rebuilt from the rows."""
        items = claimed
        if items is None:
            async with self._sessions() as session:
                items = await settle.members(session, op_key)
            if refused := await self._ensure_accounts({i.user_uid for i in items}):
                # The claim came after the accounts existed; a claimed member is never failed
                # (the others' write includes it): retry.
                raise RuntimeError(f"custody accounts of {op_key} refused: {refused}")
        # Claimed just now by this process (``claimed``): signed and recorded without a read.
        write = await self._gateway.submit_mints(
            op_key, [mint_of(i) for i in items], new=claimed is not None
        )
        async with autocommit(self._sessions) as session:  # one statement
            await settle.record_mints(
                session, [(op_key, [i.activity_id for i in items], write.signature)]
            )
        return write

    # -- helpers --------------------------------------------------------------------------

    async def _load(self, submission_id: str) -> Found:
        async with autocommit(self._sessions) as session:
            row = await session.get(MiningSubmission, submission_id)
        if row is None:
            raise settle.NotYetVisible(f"mining submission {submission_id} not visible")
        return Found(row.status, row.op_key)
