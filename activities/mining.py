"""Temporal activities of a mining submission: each opens a session, calls the mining service
(``mining.settle``) and commits once; chain writes go through the gateway, keyed by op_key, so
every activity is safe to retry."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.heartbeat import heartbeating
from chain.errors import ChainRejected
from chain.gateway import ChainWrite
from db.last import commit_last
from mining import settle
from mining.minter import SharedMinter
from mining.mints import MintItem, chunks_of, mint_of, packer
from mining.settle import ConfirmResult, VerifyResult
from mining.verify import ProofWindow

if TYPE_CHECKING:
    from activities.deps import WorkerDeps

# Defined beside the service, part of the activities' inputs and results.
__all__ = ["ConfirmResult", "MintItem", "VerifyResult"]


@dataclass
class VerifyInput:
    activity_ids: list[str]


@dataclass
class MintInput:
    # op_key base: "mining:<submission id>" for one submission, "mining:<workflow id>" for a batch.
    op_key_base: str
    items: list[MintItem]


@dataclass
class MintChunk:
    op_key: str
    activity_ids: list[str]


@dataclass
class MintResult:
    chunks: list[MintChunk]


@dataclass
class SettleSingleInput:
    submission_id: str


@dataclass
class SingleResult:
    """What became of one single submission (``mining.settle_single``): its id in one list."""

    confirmed: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass
class FailInput:
    activity_ids: list[str]
    reason: str


def _not_visible(exc: settle.NotYetVisible) -> ApplicationError:
    # Retryable: the workflow's retry policy bounds the wait.
    return ApplicationError(str(exc), type="NotYetVisible")


class MiningActivities:
    def __init__(self, deps: WorkerDeps) -> None:
        settings = deps.settings
        self._keys = {settings.master_key_id: settings.master_key}
        self._window = ProofWindow.of(settings)
        self._sessions = deps.sessions
        self._gateway = deps.gateway
        self._minter = SharedMinter(
            deps.sessions, deps.gateway, keys=self._keys, window=self._window
        )

    @activity.defn(name="mining.verify")
    async def verify(self, data: VerifyInput) -> VerifyResult:
        """Verify each pending submission (one transaction for the batch)."""
        async with self._sessions() as session:
            try:
                done = await settle.verify(
                    session,
                    data.activity_ids,
                    keys=self._keys,
                    decimals=self._gateway.token_decimals().mcd,
                    window=self._window,
                )
            except settle.NotYetVisible as exc:
                raise _not_visible(exc) from exc
            await session.commit()
        return done

    @activity.defn(name="mining.mint")
    @heartbeating
    async def mint(self, data: MintInput) -> MintResult:
        """Create missing custody accounts, then submit the mints (many per transaction, the
        transactions at once; their finality is awaited together by ``confirm``)."""
        users = sorted({i.user_uid for i in data.items})
        try:
            await asyncio.gather(
                *(self._gateway.ensure_custody_account(uid, "MCD") for uid in users)
            )
        except ChainRejected as exc:  # nothing was minted yet: a final, explainable failure
            raise ApplicationError(str(exc), type="ChainRejected", non_retryable=True) from exc
        # As many mints per transaction as fit.
        chunks = chunks_of(data.items, data.op_key_base, packer(self._gateway, data.items))
        writes: list[ChainWrite] = await asyncio.gather(
            *(
                self._gateway.submit_mints(op_key, [mint_of(i) for i in items])
                for op_key, items in chunks
            )
        )
        sent = [
            (op_key, [i.activity_id for i in items], write.signature)
            for (op_key, items), write in zip(chunks, writes, strict=True)
        ]
        async with self._sessions() as session:
            await settle.record_mints(session, sent)
            await session.commit()
        return MintResult([MintChunk(op_key, ids) for op_key, ids, _ in sent])

    @activity.defn(name="mining.confirm")
    @heartbeating
    async def confirm(self, data: MintResult) -> ConfirmResult:
        """Wait for finalization; confirmed -> ledger credit + event, rejected -> failed."""
        writes: list[ChainWrite] = await asyncio.gather(
            *(self._gateway.await_final(c.op_key, timeout=90.0) for c in data.chunks)
        )
        finals = [(c.activity_ids, w) for c, w in zip(data.chunks, writes, strict=True)]
        async with self._sessions() as session:
            mcd = self._gateway.token_decimals().mcd
            done = await settle.confirm(session, finals, decimals=mcd)
            await commit_last(session)  # the credits go with the COMMIT (db.last)
        return done

    @activity.defn(name="mining.settle_single")
    @heartbeating
    async def settle_single(self, data: SettleSingleInput) -> SingleResult:
        """One single submission from verification to its outcome, as the workflow's one
        activity: verified, minted and confirmed together with the others that arrive with it
        (mining.minter); rejected, or failed when its custody account is refused (nothing
        minted). Idempotent: a retry after a crash resumes from the records."""
        ids = [data.submission_id]
        try:
            outcome = await self._minter.settle(data.submission_id)
        except ChainRejected as exc:  # its custody account was refused: nothing was minted
            async with self._sessions() as session:
                failed = await settle.fail(session, ids, f"chain_rejected: {exc}")
                await session.commit()
            return SingleResult(failed=failed)
        except settle.NotYetVisible as exc:
            raise _not_visible(exc) from exc
        return SingleResult(**{outcome: ids})

    @activity.defn(name="mining.fail")
    async def fail(self, data: FailInput) -> list[str]:
        """Mark submissions that can no longer be minted as failed (limits given back)."""
        async with self._sessions() as session:
            failed = await settle.fail(session, data.activity_ids, data.reason)
            await session.commit()
        return failed
