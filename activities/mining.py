"""Temporal activities of a mining submission: each opens a session, calls the mining service
(``mining.settle``) and commits once; chain writes go through the gateway, keyed by op_key, so
every activity is safe to retry."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError

from chain.errors import ChainRejected
from chain.gateway import ChainGateway, ChainWrite
from core.config import Settings
from db.last import commit_last
from mining import settle
from mining.minter import SharedMinter
from mining.mints import MintItem, chunks_of, mint_of, packer
from mining.settle import ConfirmResult, VerifyResult
from mining.verify import ProofWindow

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
    """What became of one single submission (``mining_settle_single``): its id in one list."""

    confirmed: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass
class FailInput:
    activity_ids: list[str]
    reason: str


# Well inside the workflow's heartbeat timeout for mining_settle_single, mining_mint and
# mining_confirm (10 s).
HEARTBEAT_SECONDS = 2.0


async def _heartbeat_every(seconds: float) -> None:
    """Tell Temporal this attempt's worker is alive (the task shares the activity's context)."""
    while True:
        activity.heartbeat()
        await asyncio.sleep(seconds)


def _not_visible(exc: settle.NotYetVisible) -> ApplicationError:
    # Retryable: the workflow's retry policy bounds the wait.
    return ApplicationError(str(exc), type="NotYetVisible")


class MiningActivities:
    def __init__(
        self, settings: Settings, sessions: async_sessionmaker[AsyncSession], gateway: ChainGateway
    ) -> None:
        self._keys = {settings.master_key_id: settings.master_key}
        self._window = ProofWindow.of(settings)
        self._sessions = sessions
        self._gateway = gateway
        self._minter = SharedMinter(sessions, gateway, keys=self._keys, window=self._window)

    @activity.defn(name="mining_verify")
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

    @activity.defn(name="mining_mint")
    async def mint(self, data: MintInput) -> MintResult:
        """Create missing custody accounts, then submit the mints (many per transaction, the
        transactions at once; their finality is awaited together by ``confirm``)."""
        beat = asyncio.create_task(_heartbeat_every(HEARTBEAT_SECONDS))
        try:
            return await self._mint(data)
        finally:
            beat.cancel()

    async def _mint(self, data: MintInput) -> MintResult:
        users = sorted({i.user_uid for i in data.items})
        try:
            await asyncio.gather(
                *(self._gateway.ensure_custody_account(uid, "MCD") for uid in users)
            )
        except ChainRejected as exc:  # nothing was minted yet: a final, explainable failure
            raise ApplicationError(str(exc), type="ChainRejected", non_retryable=True) from exc
        # As many mints per transaction as fit (an input recorded with the old "packing" field
        # still decodes: the converter ignores fields a dataclass no longer has).
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

    @activity.defn(name="mining_confirm")
    async def confirm(self, data: MintResult) -> ConfirmResult:
        """Wait for finalization; confirmed -> ledger credit + event, rejected -> failed.
        Heartbeats while it waits."""
        beat = asyncio.create_task(_heartbeat_every(HEARTBEAT_SECONDS))
        try:
            writes: list[ChainWrite] = await asyncio.gather(
                *(self._gateway.await_final(c.op_key, timeout=90.0) for c in data.chunks)
            )
        finally:
            beat.cancel()
        finals = [(c.activity_ids, w) for c, w in zip(data.chunks, writes, strict=True)]
        async with self._sessions() as session:
            mcd = self._gateway.token_decimals().mcd
            done = await settle.confirm(session, finals, decimals=mcd)
            await commit_last(session)  # the credits go with the COMMIT (db.last)
        return done

    @activity.defn(name="mining_settle_single")
    async def settle_single(self, data: SettleSingleInput) -> SingleResult:
        """One single submission from verification to its outcome, as the workflow's one
        activity: verified, minted and confirmed together with the others that arrive with it
        (mining.minter); rejected, or failed when its custody account is refused (nothing
        minted). Idempotent: a retry after a crash resumes from the records. Heartbeats until
        it ends."""
        ids = [data.submission_id]
        beat = asyncio.create_task(_heartbeat_every(HEARTBEAT_SECONDS))
        try:
            outcome = await self._minter.settle(data.submission_id)
        except ChainRejected as exc:  # its custody account was refused: nothing was minted
            async with self._sessions() as session:
                failed = await settle.fail(session, ids, f"chain_rejected: {exc}")
                await session.commit()
            return SingleResult(failed=failed)
        except settle.NotYetVisible as exc:
            raise _not_visible(exc) from exc
        finally:
            beat.cancel()
        return SingleResult(**{outcome: ids})

    @activity.defn(name="mining_fail")
    async def fail(self, data: FailInput) -> list[str]:
        """Mark submissions that can no longer be minted as failed (limits given back)."""
        async with self._sessions() as session:
            failed = await settle.fail(session, data.activity_ids, data.reason)
            await session.commit()
        return failed
