"""Mining activities: verify submitted activities, mint their MCD rewards exactly once, and
confirm them at finalization (ledger credit + ``mining.reward.confirmed``). Each activity is
one transaction (one commit) and is safe to retry: every state change is conditional on the
current status, chain writes are keyed by op_key."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from solders.hash import Hash
from solders.message import Message
from sqlalchemy import select
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
from db.models.mining import MiningActivity
from events.outbox import emit_many
from ledger.service import Ledger, Move
from mining.bulk import claim_proofs, release_counted
from mining.canonical import proof_hash
from mining.verify import verify_proof

# A Solana transaction is at most 1232 bytes (signatures + message). A mint_to costs 15 bytes,
# plus 32 for each custody account not yet in the transaction: a batch is packed by measuring
# the signed size (see pack_mints), so 100 mints to 4 users take 2 transactions, to 100 users 6.
TX_SIZE_LIMIT = 1232
# ...and at most this many instructions (the runtime's instruction trace holds 64).
MAX_MINTS_PER_TX = 60
# The packing of workflows started before size-based packing: 15 mints per transaction. Kept
# so that a retried mint of such a workflow rebuilds exactly the chunks (op_keys and
# instructions) it may already have written.
LEGACY_MINTS_PER_TX = 15


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
    # "size": as many mints per transaction as fit (pack_mints); "legacy15": 15 per transaction
    # (the default, so that an input recorded before this field existed keeps its meaning).
    packing: str = "legacy15"


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


def chunks_of(
    items: list[MintItem], base: str, fits: Callable[[list[MintItem]], bool] | None = None
) -> list[tuple[str, list[MintItem]]]:
    """Deterministic split into transactions: sorted by id, a new chunk whenever the next item
    would not ``fit`` (default: at most LEGACY_MINTS_PER_TX per chunk)."""
    ordered = sorted(items, key=lambda i: i.activity_id)
    if len(ordered) == 1:
        return [(base, ordered)]
    fits = fits or (lambda chunk: len(chunk) <= LEGACY_MINTS_PER_TX)
    chunks: list[list[MintItem]] = []
    for item in ordered:
        if not chunks or not fits([*chunks[-1], item]):
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

    @property
    def _decimals(self) -> int:
        return self._gateway.decimals("MCD")  # read from the MCD mint (chain/decimals.py)

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
        """Verify each pending activity; verified -> event, rejected -> reason + limit back.

        One transaction, a few statements for the whole batch: the secrets and wallets it
        needs, one claim of all proofs, one INSERT of the events, the status changes as one
        executemany, the limit usage of the rejected given back per project and day."""
        result = VerifyResult()
        async with self._sessions() as session:
            rows = await self._rows(session, data.activity_ids)
            pending = [r for r in rows if r.status == "pending_verification"]
            secrets = await self._project_secrets(session, {r.project_id for r in pending})
            wallets = await self._wallets(
                session, {r.user_uid for r in pending if r.proof.get("type") == "ed25519"}
            )
            reasons: dict[str, str] = {}
            for row in pending:
                rejection = verify_proof(
                    canonical=row.canonical,
                    proof=row.proof,
                    activity_data=row.activity_data,
                    submitted_at=row.created_at,
                    project_secret=secrets.get(row.project_id),
                    wallet=wallets.get(row.user_uid)
                    if row.proof.get("type") == "ed25519"
                    else None,
                )
                if rejection is not None:
                    reasons[row.id] = str(rejection)
                elif row.mcd_amount <= 0:
                    reasons[row.id] = "zero_reward: the activity earns no MCD"
            # In id order, as before: of two activities with one proof, the first wins.
            owners = await claim_proofs(
                session, [(proof_hash(r.canonical), r.id) for r in pending if r.id not in reasons]
            )
            for row in pending:
                if row.id not in reasons and row.id not in owners:
                    reasons[row.id] = "proof_replayed: this proof was already used"
            events: list[dict[str, Any]] = []
            given_back: list[tuple[int, date, int]] = []
            for row in rows:
                if row.status in ("verified", "pending_onchain", "confirmed"):
                    result.verified.append(MintItem(row.id, row.user_uid, row.mcd_amount))
                elif row.status != "pending_verification":
                    result.rejected.append(row.id)
                elif row.id in reasons:
                    _move(row, "rejected", reasons[row.id])
                    given_back.append((row.project_id, row.reward_day, row.mcd_amount))
                    result.rejected.append(row.id)
                else:
                    _move(row, "verified")
                    events.append(
                        {
                            "id": f"evt_{row.id}_verified",
                            "project_id": row.project_id,
                            "type": "mining.activity.verified",
                            "data": {
                                "activity_id": row.id,
                                "user_uid": row.user_uid,
                                "activity_type": row.activity_type,
                                "mcd_amount": to_decimal_string(row.mcd_amount, self._decimals),
                            },
                        }
                    )
                    result.verified.append(MintItem(row.id, row.user_uid, row.mcd_amount))
            await release_counted(session, given_back)
            await emit_many(session, events)
            await session.commit()
        return result

    async def _project_secrets(
        self, session: AsyncSession, project_ids: set[int]
    ) -> dict[int, str | None]:
        if not project_ids:
            return {}
        found = await session.execute(
            select(Project.project_id, Project.api_secret_encrypted).where(
                Project.project_id.in_(sorted(project_ids))
            )
        )
        return {
            pid: decrypt_secret(encrypted, self._keys) if encrypted else None
            for pid, encrypted in found
        }

    @staticmethod
    async def _wallets(session: AsyncSession, uids: set[str]) -> dict[str, str | None]:
        if not uids:
            return {}
        found = await session.execute(
            select(User.uid, User.wallet_address).where(User.uid.in_(sorted(uids)))
        )
        return {uid: wallet for uid, wallet in found}

    def _packer(self, items: list[MintItem]) -> Callable[[list[MintItem]], bool]:
        """``fits(chunk)``: does one transaction of these mints stay within the size and the
        instruction bounds? Measured on the message as the gateway builds it."""
        keys = self._gateway.keys
        instructions = {
            i.activity_id: self._gateway.mint_instruction(CustodyMint("MCD", i.user_uid, i.amount))
            for i in items
        }

        def fits(chunk: list[MintItem]) -> bool:
            if len(chunk) > MAX_MINTS_PER_TX:
                return False
            message = Message.new_with_blockhash(
                [instructions[i.activity_id] for i in chunk],
                keys.fee_payer.pubkey(),
                Hash.default(),
            )
            # As sent: shortvec signature count, the signatures, the message.
            size = 1 + 64 * message.header.num_required_signatures + len(bytes(message))
            return size <= TX_SIZE_LIMIT

        return fits

    @activity.defn(name="mining_mint")
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
        fits = self._packer(data.items) if data.packing == "size" else None
        chunks = chunks_of(data.items, data.op_key_base, fits)
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
        """Wait for finalization; confirmed -> ledger credit + event, rejected -> failed.

        Only the rows this call moves out of ``pending_onchain`` (locked, in id order) are
        credited, so a retried confirm never credits twice; one executemany for the status
        changes, one ledger credit of the batch, one INSERT of the events."""
        writes: list[ChainWrite] = await asyncio.gather(
            *(self._gateway.await_final(c.op_key, timeout=90.0) for c in data.chunks)
        )
        result = ConfirmResult()
        async with self._sessions() as session:
            ids = [i for c in data.chunks for i in c.activity_ids]
            rows = {r.id: r for r in await self._rows(session, ids)}
            credits: list[Move] = []
            events: list[dict[str, Any]] = []
            given_back: list[tuple[int, date, int]] = []
            for chunk, write in zip(data.chunks, writes, strict=True):
                for activity_id in sorted(chunk.activity_ids):
                    row = rows[activity_id]
                    if row.status != "pending_onchain":
                        continue  # already settled by an earlier attempt
                    if write.succeeded:
                        self._confirm_row(row, write)
                        credits.append(
                            Move(
                                row.user_uid,
                                "MCD",
                                "credit",
                                row.mcd_amount,
                                d_balance=row.mcd_amount,
                                reference=f"mining:{row.id}",
                            )
                        )
                        events.append(
                            {
                                "id": f"evt_{row.id}_reward_confirmed",
                                "project_id": row.project_id,
                                "type": "mining.reward.confirmed",
                                "data": {
                                    "activity_id": row.id,
                                    "user_uid": row.user_uid,
                                    "mcd_amount": to_decimal_string(row.mcd_amount, self._decimals),
                                    "tx_signature": write.signature,
                                    "block_height": write.block_height,
                                },
                            }
                        )
                        result.confirmed.append(row.id)
                    else:
                        _move(row, "failed", f"chain_rejected: {write.err}")
                        given_back.append((row.project_id, row.reward_day, row.mcd_amount))
                        result.failed.append(row.id)
            await Ledger(session).apply_many(credits)
            await release_counted(session, given_back)
            await emit_many(session, events)
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
        given_back: list[tuple[int, date, int]] = []
        async with self._sessions() as session:
            rows = await self._rows(session, data.activity_ids)
            for row in rows:
                if row.status in ("pending_verification", "verified"):
                    _move(row, "failed", data.reason)
                    given_back.append((row.project_id, row.reward_day, row.mcd_amount))
                    failed.append(row.id)
            await release_counted(session, given_back)
            await session.commit()
        return failed

    def all(self) -> list[Any]:
        return [self.verify, self.mint, self.confirm, self.fail]
