"""Mining activities: verify submitted activities, mint their MCD rewards exactly once, and
confirm them at finalization (ledger credit + ``mining.reward.confirmed``). Each activity is
one transaction (one commit) and is safe to retry: every state change is conditional on the
current status, chain writes are keyed by op_key."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError

from chain.custody import CustodyMint
from chain.errors import ChainRejected
from chain.gateway import ChainGateway, ChainWrite
from core.config import Settings
from core.money import to_decimal_string
from core.security import decrypt_secret
from db.models.identity import Project, User
from db.models.mining import MiningActivity, MiningProof
from events.outbox import emit
from ledger.service import Ledger
from mining.canonical import proof_hash
from mining.limits import release
from mining.verify import verify_proof

# A mint transaction holds at most this many mint_to (distinct custody accounts): ~1050 of the
# 1232 bytes a Solana transaction may have.
MINTS_PER_TX = 15


@dataclass
class MintItem:
    activity_id: str
    user_uid: str
    amount: int


@dataclass
class VerifyInput:
    activity_ids: list[str]


@dataclass
class VerifyResult:
    verified: list[MintItem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


@dataclass
class MintInput:
    # op_key base: "mining:<activity id>" for one activity, "mining:<workflow id>" for a batch.
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
class ConfirmResult:
    confirmed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass
class FailInput:
    activity_ids: list[str]
    reason: str


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _move(row: MiningActivity, status: str, reason: str | None = None, **extra: Any) -> None:
    row.status = status
    if reason is not None:
        row.reason = reason[:300]
    entry: dict[str, Any] = {"status": status, "at": _now()}
    if reason is not None:
        entry["reason"] = reason
    entry.update(extra)
    row.history = [*row.history, entry]
    row.updated_at = datetime.now(UTC)


def chunks_of(items: list[MintItem], base: str) -> list[tuple[str, list[MintItem]]]:
    """Deterministic split into transactions: sorted by id, at most MINTS_PER_TX accounts."""
    ordered = sorted(items, key=lambda i: i.activity_id)
    if len(ordered) == 1:
        return [(base, ordered)]
    chunks: list[list[MintItem]] = []
    for item in ordered:
        if not chunks or len(chunks[-1]) >= MINTS_PER_TX:
            chunks.append([])
        chunks[-1].append(item)
    return [(f"{base}:{n}", chunk) for n, chunk in enumerate(chunks)]


class MiningActivities:
    def __init__(
        self, settings: Settings, sessions: async_sessionmaker[AsyncSession], gateway: ChainGateway
    ) -> None:
        self._settings = settings
        self._keys = {settings.master_key_id: settings.master_key}
        self._sessions = sessions
        self._gateway = gateway
        self._decimals = settings.token_decimals

    async def _rows(self, session: AsyncSession, ids: list[str]) -> list[MiningActivity]:
        rows = list(
            await session.scalars(
                select(MiningActivity)
                .where(MiningActivity.id.in_(ids))
                .order_by(MiningActivity.id)
                .with_for_update()
            )
        )
        if len(rows) != len(set(ids)):
            # The API commits right after starting the workflow: retry until visible (or the
            # retry policy gives up, when the submission rolled back).
            raise ApplicationError("mining activities not visible yet", type="NotYetVisible")
        return rows

    @activity.defn(name="mining_verify")
    async def verify(self, data: VerifyInput) -> VerifyResult:
        """Verify each pending activity; verified -> event, rejected -> reason + limit back."""
        result = VerifyResult()
        async with self._sessions() as session:
            rows = await self._rows(session, data.activity_ids)
            projects: dict[int, str | None] = {}
            for row in rows:
                if row.status in ("verified", "pending_onchain", "confirmed"):
                    result.verified.append(MintItem(row.id, row.user_uid, row.mcd_amount))
                    continue
                if row.status != "pending_verification":
                    result.rejected.append(row.id)
                    continue
                if row.project_id not in projects:
                    encrypted = await session.scalar(
                        select(Project.api_secret_encrypted).where(
                            Project.project_id == row.project_id
                        )
                    )
                    projects[row.project_id] = (
                        decrypt_secret(encrypted, self._keys) if encrypted else None
                    )
                wallet = None
                if row.proof.get("type") == "ed25519":
                    wallet = await session.scalar(
                        select(User.wallet_address).where(User.uid == row.user_uid)
                    )
                rejection = verify_proof(
                    canonical=row.canonical,
                    proof=row.proof,
                    activity_data=row.activity_data,
                    submitted_at=row.created_at,
                    project_secret=projects[row.project_id],
                    wallet=wallet,
                )
                reason = str(rejection) if rejection is not None else None
                if reason is None and row.mcd_amount <= 0:
                    reason = "zero_reward: the activity earns no MCD"
                if reason is None and not await self._claim_proof(session, row):
                    reason = "proof_replayed: this proof was already used"
                if reason is not None:
                    _move(row, "rejected", reason)
                    await release(session, row.project_id, row.mcd_amount, row.reward_day)
                    result.rejected.append(row.id)
                    continue
                _move(row, "verified")
                await emit(
                    session,
                    project_id=row.project_id,
                    type="mining.activity.verified",
                    data={
                        "activity_id": row.id,
                        "user_uid": row.user_uid,
                        "activity_type": row.activity_type,
                        "mcd_amount": to_decimal_string(row.mcd_amount, self._decimals),
                    },
                    event_id=f"evt_{row.id}_verified",
                )
                result.verified.append(MintItem(row.id, row.user_uid, row.mcd_amount))
            await session.commit()
        return result

    async def _claim_proof(self, session: AsyncSession, row: MiningActivity) -> bool:
        digest = proof_hash(row.canonical)
        await session.execute(
            insert(MiningProof)
            .values(proof_hash=digest, activity_id=row.id)
            .on_conflict_do_nothing(index_elements=["proof_hash"])
        )
        owner = await session.scalar(
            select(MiningProof.activity_id).where(MiningProof.proof_hash == digest)
        )
        return owner == row.id

    @activity.defn(name="mining_mint")
    async def mint(self, data: MintInput) -> MintResult:
        """Create missing custody accounts, then submit the mints (many per transaction)."""
        users = sorted({i.user_uid for i in data.items})
        try:
            await asyncio.gather(
                *(self._gateway.ensure_custody_account(uid, "MCD") for uid in users)
            )
        except ChainRejected as exc:  # nothing was minted yet: a final, explainable failure
            raise ApplicationError(str(exc), type="ChainRejected", non_retryable=True) from exc
        chunks = chunks_of(data.items, data.op_key_base)
        writes: list[ChainWrite] = await asyncio.gather(
            *(
                self._gateway.submit_mints(
                    op_key, [CustodyMint("MCD", i.user_uid, i.amount) for i in items]
                )
                for op_key, items in chunks
            )
        )
        async with self._sessions() as session:
            rows = {r.id: r for r in await self._rows(session, [i.activity_id for i in data.items])}
            for (op_key, items), write in zip(chunks, writes, strict=True):
                for item in items:
                    row = rows[item.activity_id]
                    if row.status == "verified":
                        row.op_key, row.tx_signature = op_key, write.signature
                        _move(row, "pending_onchain", tx_signature=write.signature)
            await session.commit()
        return MintResult([MintChunk(k, [i.activity_id for i in items]) for k, items in chunks])

    @activity.defn(name="mining_confirm")
    async def confirm(self, data: MintResult) -> ConfirmResult:
        """Wait for finalization; confirmed -> ledger credit + event, rejected -> failed."""
        writes: list[ChainWrite] = await asyncio.gather(
            *(self._gateway.await_final(c.op_key, timeout=90.0) for c in data.chunks)
        )
        result = ConfirmResult()
        async with self._sessions() as session:
            ledger = Ledger(session)
            for chunk, write in zip(data.chunks, writes, strict=True):
                done = list(
                    await session.scalars(
                        update(MiningActivity)
                        .where(
                            MiningActivity.id.in_(chunk.activity_ids),
                            MiningActivity.status == "pending_onchain",
                        )
                        .values(updated_at=datetime.now(UTC))
                        .returning(MiningActivity)
                    )
                )
                for row in sorted(done, key=lambda r: r.id):
                    if write.succeeded:
                        self._confirm_row(row, write)
                        await ledger.credit(row.user_uid, "MCD", row.mcd_amount, f"mining:{row.id}")
                        await emit(
                            session,
                            project_id=row.project_id,
                            type="mining.reward.confirmed",
                            data={
                                "activity_id": row.id,
                                "user_uid": row.user_uid,
                                "mcd_amount": to_decimal_string(row.mcd_amount, self._decimals),
                                "tx_signature": write.signature,
                                "block_height": write.block_height,
                            },
                            event_id=f"evt_{row.id}_reward_confirmed",
                        )
                        result.confirmed.append(row.id)
                    else:
                        _move(row, "failed", f"chain_rejected: {write.err}")
                        await release(session, row.project_id, row.mcd_amount, row.reward_day)
                        result.failed.append(row.id)
            await session.commit()
        return result

    @staticmethod
    def _confirm_row(row: MiningActivity, write: ChainWrite) -> None:
        row.tx_signature, row.block_height = write.signature, write.block_height
        row.confirmed_at = datetime.now(UTC)
        _move(
            row,
            "confirmed",
            tx_signature=write.signature,
            block_height=write.block_height,
        )

    @activity.defn(name="mining_fail")
    async def fail(self, data: FailInput) -> list[str]:
        """Mark activities that can no longer be minted as failed (limits given back)."""
        failed = []
        async with self._sessions() as session:
            rows = await self._rows(session, data.activity_ids)
            for row in rows:
                if row.status in ("pending_verification", "verified"):
                    _move(row, "failed", data.reason)
                    await release(session, row.project_id, row.mcd_amount, row.reward_day)
                    failed.append(row.id)
            await session.commit()
        return failed

    def all(self) -> list[Any]:
        return [self.verify, self.mint, self.confirm, self.fail]
