"""A submission after its acceptance, flush-only: verify (verified or rejected), record the
mint transactions, confirm at finalization (ledger credit + ``mining.reward.confirmed``), or
fail. Every change is conditional on the current status (rows locked, in id order), so a retried
step never acts twice; limit usage of a refused reward is given back. The caller commits."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from chain.gateway import ChainWrite
from core.money import to_decimal_string
from core.security import decrypt_secret
from core.time import iso
from db.models.identity import Project, User
from db.models.mining import MiningSubmission
from events.outbox import emit_many
from ledger.service import Ledger, Move
from mining.audits import finish_audits
from mining.bulk import claim_proofs, release_counted
from mining.canonical import proof_hash
from mining.mints import MintItem
from mining.verify import ProofWindow, verify_proof


class NotYetVisible(Exception):
    """Some submissions are not in the database (yet): a workflow recorded before the API
    started workflows after its commit may run ahead of it."""


@dataclass
class VerifyResult:
    """Also the ``mining.verify`` activity's result (plain values, safe in workflow history)."""

    verified: list[MintItem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


@dataclass
class ConfirmResult:
    """Also the ``mining.confirm`` activity's result."""

    confirmed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def _move(row: MiningSubmission, status: str, reason: str | None = None, **extra: Any) -> None:
    now = datetime.now(UTC)
    row.status = status
    if reason is not None:
        row.reason = reason[:300]
    entry: dict[str, Any] = {"status": status, "at": iso(now)}
    if reason is not None:
        entry["reason"] = reason
    entry.update(extra)
    row.history = [*row.history, entry]
    row.updated_at = now


async def locked(session: AsyncSession, ids: list[str]) -> list[MiningSubmission]:
    rows = list(
        await session.scalars(
            select(MiningSubmission)
            .where(MiningSubmission.id.in_(ids))
            .order_by(MiningSubmission.id)
            .with_for_update()
        )
    )
    if len(rows) != len(set(ids)):
        raise NotYetVisible(f"{len(set(ids)) - len(rows)} mining submissions not visible yet")
    return rows


async def verify(
    session: AsyncSession,
    ids: list[str],
    *,
    keys: dict[str, str],
    decimals: int,
    window: ProofWindow,
) -> VerifyResult:
    """Verify each pending submission; verified -> event, rejected -> reason + limit back.

    A few statements for the whole batch: the secrets and wallets it needs, one claim of all
    proofs, one INSERT of the events, the status changes as one executemany, the limit usage
    of the rejected given back per project and day."""
    result = VerifyResult()
    rows = await locked(session, ids)
    pending = [r for r in rows if r.status == "pending_verification"]
    secrets = await _project_secrets(session, {r.project_id for r in pending}, keys)
    signed = [r for r in pending if r.proof.get("type") == "ed25519"]
    wallets = await _wallets(session, {r.user_uid for r in signed})
    reasons: dict[str, str] = {}
    for row in pending:
        rejection = verify_proof(
            canonical=row.canonical,
            proof=row.proof,
            activity_data=row.activity_data,
            submitted_at=row.created_at,
            project_secret=secrets.get(row.project_id),
            wallet=wallets.get(row.user_uid) if row.proof.get("type") == "ed25519" else None,
            window=window,
        )
        if rejection is not None:
            reasons[row.id] = str(rejection)
        elif row.mcd_amount <= 0:
            reasons[row.id] = "zero_reward: the activity earns no MCD"
    # In id order, as before: of two submissions with one proof, the first wins.
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
            events.append(_event(row, "verified", "mining.activity.verified", decimals))
            result.verified.append(MintItem(row.id, row.user_uid, row.mcd_amount))
    await release_counted(session, given_back)
    await emit_many(session, events)
    await finish_audits(session, [r for r in rows if r.id in set(result.rejected)])
    return result


async def claim(session: AsyncSession, ids: list[str], op_key: str) -> list[MintItem]:
    """Name the shared write ``op_key`` for those of ``ids`` still verified and unclaimed,
    before anything is signed (one conditional UPDATE); the members, in id order."""
    claimed = await session.execute(
        update(MiningSubmission)
        .where(
            MiningSubmission.id.in_(ids),
            MiningSubmission.status == "verified",
            MiningSubmission.op_key.is_(None),
        )
        .values(op_key=op_key)
        .returning(MiningSubmission.id, MiningSubmission.user_uid, MiningSubmission.mcd_amount)
    )
    return sorted((MintItem(*row) for row in claimed), key=lambda i: i.activity_id)


async def members(session: AsyncSession, op_key: str) -> list[MintItem]:
    """Every submission a claim named ``op_key``, in id order (whatever their status now):
    the write is rebuilt from them with exactly its first instructions."""
    found = await session.execute(
        select(MiningSubmission.id, MiningSubmission.user_uid, MiningSubmission.mcd_amount)
        .where(MiningSubmission.op_key == op_key)
        .order_by(MiningSubmission.id)
    )
    return [MintItem(*row) for row in found]


async def record_mints(session: AsyncSession, sent: list[tuple[str, list[str], str]]) -> None:
    """``sent`` = ``[(op_key, submission ids, signature)]``: verified -> pending_onchain, one
    statement per write (its members' history gains the same entry)."""
    now = datetime.now(UTC)
    for op_key, ids, signature in sent:
        entry = {"status": "pending_onchain", "at": iso(now), "tx_signature": signature}
        await session.execute(
            _RECORD_SENT,
            {"op_key": op_key, "signature": signature, "ids": ids, "now": now,
             "entry": json.dumps([entry])},
        )  # fmt: skip


# verified -> pending_onchain for a write's members (those still verified: a repeat moves none).
_RECORD_SENT = text(
    """
UPDATE mining_activities
SET op_key = :op_key, tx_signature = :signature, status = 'pending_onchain',
    history = history || CAST(:entry AS jsonb), updated_at = :now
WHERE id = ANY(:ids) AND status = 'verified'
"""
)


async def confirm(
    session: AsyncSession, finals: list[tuple[list[str], ChainWrite]], *, decimals: int
) -> ConfirmResult:
    """``finals`` = ``[(submission ids, final write)]``. Only the rows this call moves out of
    ``pending_onchain`` are credited, so a retried confirm never credits twice: one
    executemany for the status changes, one ledger credit of the batch, one INSERT of events."""
    result = ConfirmResult()
    rows = {r.id: r for r in await locked(session, [i for ids, _ in finals for i in ids])}
    credits: list[Move] = []
    events: list[dict[str, Any]] = []
    given_back: list[tuple[int, date, int]] = []
    for ids, write in finals:
        for submission_id in sorted(ids):
            row = rows[submission_id]
            if row.status != "pending_onchain":
                continue  # already settled by an earlier attempt
            if not write.succeeded:
                _move(row, "failed", f"chain_rejected: {write.err}")
                given_back.append((row.project_id, row.reward_day, row.mcd_amount))
                result.failed.append(row.id)
                continue
            row.tx_signature, row.block_height = write.signature, write.block_height
            row.confirmed_at = datetime.now(UTC)
            _move(row, "confirmed", tx_signature=write.signature, block_height=write.block_height)
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
                _event(
                    row,
                    "reward_confirmed",
                    "mining.reward.confirmed",
                    decimals,
                    tx_signature=write.signature,
                    block_height=write.block_height,
                )
            )
            result.confirmed.append(row.id)
    await release_counted(session, given_back)
    await emit_many(session, events)
    await Ledger(session).apply_many(credits)  # sent with the COMMIT (commit_last)
    await finish_audits(session, rows.values())
    return result


async def fail(session: AsyncSession, ids: list[str], reason: str) -> list[str]:
    """Submissions that can no longer be minted -> failed (limit usage given back). A row a
    shared write names (``op_key``) is minted with it, so it is never failed here."""
    failed: list[str] = []
    given_back: list[tuple[int, date, int]] = []
    rows_of = await locked(session, ids)
    for row in rows_of:
        if row.status in ("pending_verification", "verified") and row.op_key is None:
            _move(row, "failed", reason)
            given_back.append((row.project_id, row.reward_day, row.mcd_amount))
            failed.append(row.id)
    await release_counted(session, given_back)
    await finish_audits(session, [r for r in rows_of if r.id in set(failed)])
    return failed


def _event(
    row: MiningSubmission, suffix: str, kind: str, decimals: int, **more: Any
) -> dict[str, Any]:
    data: dict[str, Any] = {"activity_id": row.id, "user_uid": row.user_uid}
    if kind == "mining.activity.verified":
        data["activity_type"] = row.activity_type
    data["mcd_amount"] = to_decimal_string(row.mcd_amount, decimals)
    return {
        "id": f"evt_{row.id}_{suffix}",
        "project_id": row.project_id,
        "type": kind,
        "data": {**data, **more},
    }


async def _project_secrets(
    session: AsyncSession, project_ids: set[int], keys: dict[str, str]
) -> dict[int, str | None]:
    if not project_ids:
        return {}
    found = await session.execute(
        select(Project.project_id, Project.api_secret_encrypted).where(
            Project.project_id.in_(sorted(project_ids))
        )
    )
    return {pid: decrypt_secret(enc, keys) if enc else None for pid, enc in found}


async def _wallets(session: AsyncSession, uids: set[str]) -> dict[str, str | None]:
    if not uids:
        return {}
    found = await session.execute(
        select(User.uid, User.wallet_address).where(User.uid.in_(sorted(uids)))
    )
    return {uid: wallet for uid, wallet in found}
