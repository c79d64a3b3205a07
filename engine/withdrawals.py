"""The withdrawal state machine. Every transition is one conditional UPDATE on ``status`` (of two
racing transitions exactly one wins), a ``withdrawal_states`` row, the ledger move and the
event, in the caller's transaction (flush only).

    pending -> pending_onchain -> completed | failed
    pending -> cancelled   (the user, an operator, its wait deadline, a wallet change)
    pending -> rejected    (an administrator)

A withdrawal holds its amount on the ledger from acceptance (a hold whose id is the
withdrawal's): the hold is released when it ends without moving money, and posted with the
balance debited, in one entry, when its chain write is final. ``pending`` covers the waits
(approvals, the wallet's cooling-off, the breaker); ``pending -> pending_onchain`` is the claim
that names its chain write (op key ``withdrawal:{id}``), after which it can no longer be
cancelled: only retried.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from solders.pubkey import Pubkey
from sqlalchemy import func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from temporalio.common import TypedSearchAttributes

from chain.decimals import TokenDecimals
from chain.gateway import ChainGateway
from core.errors import InvalidState, NotFound, Rejected
from db.models import User
from db.models.withdrawals import (
    FINAL_WITHDRAWAL_STATUSES,
    Withdrawal,
    WithdrawalDecision,
    WithdrawalState,
)
from db.paging import all_in_order
from engine import search
from engine.errors import insufficient
from engine.withdrawal_controls import Controls, admit
from events.audit import mark_audit
from events.outbox import emit
from ledger.service import InsufficientFunds, Ledger


def op_key_for(withdrawal_id: str) -> str:
    """The one chain write of a withdrawal."""
    return f"withdrawal:{withdrawal_id}"


class AlreadyRecorded(Exception):
    """A withdrawal with this (idempotency-derived) id exists: the request ran before."""


@dataclass(frozen=True)
class NewWithdrawal:
    """A withdrawal to accept: whose money, how much (base units of ``currency``), which
    project's client asked (None: the gateway's own), under which id, workflow and audit row."""

    withdrawal_id: str
    user_uid: str
    currency: str
    amount: int
    project_id: int | None
    client_id: str | None
    workflow_id: str
    audit_id: uuid.UUID | None = None


async def _state(
    session: AsyncSession, withdrawal_id: str, status: str, reason: str | None
) -> None:
    await session.execute(
        insert(WithdrawalState).values(
            withdrawal_id=withdrawal_id, status=status, reason=(reason or None) and reason[:500]
        )
    )


def wallet_of(user: User) -> Pubkey:
    """The profile's wallet (422 ``wallet-address-required`` without one)."""
    if not user.wallet_address:
        raise Rejected(
            "Set wallet_address in your profile first (PATCH /v1/users/me/profile): "
            "withdrawals go to your own wallet only",
            slug="wallet-address-required",
        )
    return Pubkey.from_string(user.wallet_address)


async def create(
    session: AsyncSession,
    order: NewWithdrawal,
    controls: Controls,
    gateway: ChainGateway,
    decimals: TokenDecimals,
    now: datetime,
) -> Withdrawal:
    """Accept a withdrawal to the user's own wallet: the controls, the hold on the ledger, the
    record as ``pending`` and the ``withdrawal.requested`` event. Raises Rejected (the caller
    rolls back: nothing stays written) or AlreadyRecorded."""
    controls.check_amount(order.amount)
    # Shared lock: a wallet change (which cancels pending withdrawals) waits for this commit.
    user = await session.scalar(
        select(User).where(User.uid == order.user_uid).with_for_update(read=True)
    )
    if user is None:
        raise NotFound(f"User {order.user_uid} does not exist")
    owner = wallet_of(user)
    changed = user.wallet_changed_at
    cooling = changed + controls.cooling_off if changed is not None else None
    cooling_off_until = cooling if cooling is not None and cooling > now else None
    withdrawal = await session.scalar(
        pg_insert(Withdrawal)
        .values(
            id=order.withdrawal_id, user_uid=order.user_uid, project_id=order.project_id,
            client_id=order.client_id, currency=order.currency, amount=order.amount,
            status="pending", wallet_address=str(owner),
            destination=str(gateway.wallet_token_account(owner, order.currency)),
            approvals_required=controls.approvals_required(order.amount),
            held_by_breaker=False, cooling_off_until=cooling_off_until,
            wait_deadline=(cooling_off_until or now) + controls.max_wait,
            workflow_id=order.workflow_id, audit_id=order.audit_id,
        )
        .on_conflict_do_nothing(index_elements=["id"])
        .returning(Withdrawal)
    )  # fmt: skip
    if withdrawal is None:
        raise AlreadyRecorded(order.withdrawal_id)
    withdrawal.held_by_breaker = await admit(session, controls, withdrawal, now)
    await _state(session, withdrawal.id, "pending", ", ".join(waits(withdrawal, 0, now)) or None)
    try:
        await Ledger(session).reserve(
            withdrawal.id, order.user_uid, order.currency, order.amount,
            project_id=None, reason="withdrawal", reference_id=withdrawal.id,
        )  # fmt: skip
    except InsufficientFunds as exc:
        raise insufficient(exc, decimals) from exc
    await _emit(session, withdrawal, "requested", decimals)
    await session.refresh(withdrawal)  # as written (updated_at moved with the breaker's say)
    return withdrawal


def waits(w: Withdrawal, approvals: int, now: datetime) -> list[str]:
    """What a pending withdrawal still waits for, in words (empty: it may go)."""
    found = []
    if approvals < w.approvals_required:
        found.append(f"approval ({approvals} of {w.approvals_required})")
    if w.cooling_off_until is not None and w.cooling_off_until > now:
        found.append(f"the wallet's cooling-off (until {w.cooling_off_until.isoformat()})")
    if w.held_by_breaker:
        found.append("the outflow breaker (an operator resets it)")
    return found


async def approvals(session: AsyncSession, withdrawal_id: str) -> int:
    return int(
        await session.scalar(
            select(func.count()).where(
                WithdrawalDecision.withdrawal_id == withdrawal_id,
                WithdrawalDecision.decision == "approve",
            )
        )
        or 0
    )


@dataclass(frozen=True)
class Gate:
    """Where a withdrawal stands for its workflow: its status after the look, what it waits
    for, and when something changes by itself (the cooling-off ends, the deadline)."""

    status: str
    waits: tuple[str, ...] = ()
    wake_at: datetime | None = None

    @property
    def ready(self) -> bool:
        return self.status == "pending_onchain" or (self.status == "pending" and not self.waits)

    @property
    def final(self) -> bool:
        return self.status in FINAL_WITHDRAWAL_STATUSES or self.status == "missing"


async def look(
    session: AsyncSession, withdrawal_id: str, now: datetime, decimals: TokenDecimals
) -> Gate:
    """Its workflow's look: marks the workflow seen, and cancels a withdrawal still waiting at
    its deadline (releasing the hold)."""
    w = await session.get(Withdrawal, withdrawal_id, with_for_update=True)
    if w is None:
        return Gate("missing")
    if w.workflow_seen_at is None:
        w.workflow_seen_at = now
    if w.status != "pending":
        return Gate(w.status)
    pending = tuple(waits(w, await approvals(session, w.id), now))
    if not pending:
        return Gate("pending")
    if now >= w.wait_deadline:
        reason = f"not sent by its deadline: it still waited for {'; '.join(pending)}"
        ended = await end(session, w.id, "cancelled", reason, decimals)
        return Gate(ended.status if ended is not None else w.status)
    cooling = w.cooling_off_until if w.cooling_off_until and w.cooling_off_until > now else None
    return Gate("pending", pending, min(filter(None, (cooling, w.wait_deadline))))


async def claim(session: AsyncSession, withdrawal_id: str, now: datetime) -> Withdrawal | None:
    """pending -> pending_onchain when nothing is left to wait for, naming its chain write;
    the row as it is otherwise (still waiting, or moved on). None: no such withdrawal."""
    w = await session.get(Withdrawal, withdrawal_id, with_for_update=True)
    if w is None or w.status != "pending" or waits(w, await approvals(session, w.id), now):
        return w
    claimed = await session.scalar(
        update(Withdrawal)
        .where(Withdrawal.id == withdrawal_id, Withdrawal.status == "pending")
        .values(
            status="pending_onchain", op_key=op_key_for(withdrawal_id), onchain_at=func.now(),
            updated_at=func.now(),
        )
        .returning(Withdrawal)
        .execution_options(populate_existing=True)
    )  # fmt: skip
    await _state(session, withdrawal_id, "pending_onchain", None)
    return claimed


def event_data(w: Withdrawal, decimals: TokenDecimals, **extra: Any) -> dict[str, Any]:
    return {
        "withdrawal_id": w.id,
        "status": w.status,
        "user_uid": w.user_uid,
        "currency": w.currency,
        "amount": decimals.format(w.amount, w.currency),
        "wallet_address": w.wallet_address,
        "destination": w.destination,
        **extra,
    }


async def _emit(
    session: AsyncSession, w: Withdrawal, what: str, decimals: TokenDecimals, **extra: Any
) -> dict[str, Any]:
    """The event to the project that started it (none for the gateway's own client)."""
    data = event_data(w, decimals, **extra)
    if w.project_id is not None:
        await emit(
            session, project_id=w.project_id, type=f"withdrawal.{what}", data=data,
            event_id=f"evt_{w.id}_{what}",
        )  # fmt: skip
    return data


async def complete(
    session: AsyncSession,
    withdrawal_id: str,
    *,
    signature: str,
    slot: int | None,
    block_height: int | None,
    decimals: TokenDecimals,
) -> Withdrawal | None:
    """pending_onchain -> completed once its write is final and its receipt verified: the hold
    posted and the balance debited in one ledger entry. None when already booked."""
    done = await session.scalar(
        update(Withdrawal)
        .where(Withdrawal.id == withdrawal_id, Withdrawal.status == "pending_onchain")
        .values(
            status="completed", signature=signature, slot=slot, block_height=block_height,
            finished_at=func.now(), updated_at=func.now(),
        )
        .returning(Withdrawal)
        .execution_options(populate_existing=True)
    )  # fmt: skip
    if done is None:
        return None
    await _state(session, withdrawal_id, "completed", None)
    await Ledger(session).debit_hold(withdrawal_id, withdrawal_id)
    chain = {"tx_signature": signature, "block_height": block_height, "slot": slot}
    data = await _emit(session, done, "completed", decimals, **chain)
    if done.audit_id is not None:
        await mark_audit(session, done.audit_id, "success", {"data": data})
    return done


async def end(
    session: AsyncSession,
    withdrawal_id: str,
    to_status: str,
    reason: str,
    decimals: TokenDecimals,
    from_statuses: Sequence[str] = ("pending",),
) -> Withdrawal | None:
    """End a withdrawal without moving money (cancelled, rejected, failed): the hold released,
    the event (``withdrawal.failed`` or ``withdrawal.cancelled``). None if it was not in
    ``from_statuses``."""
    ended = await session.scalar(
        update(Withdrawal)
        .where(Withdrawal.id == withdrawal_id, Withdrawal.status.in_(list(from_statuses)))
        .values(
            status=to_status, failure_reason=reason[:500], finished_at=func.now(),
            updated_at=func.now(),
        )
        .returning(Withdrawal)
        .execution_options(populate_existing=True)
    )  # fmt: skip
    if ended is None:
        return None
    await _state(session, withdrawal_id, to_status, reason)
    await Ledger(session).void(withdrawal_id, reason)
    what = "failed" if to_status == "failed" else "cancelled"
    data = await _emit(session, ended, what, decimals, reason=reason)
    if ended.audit_id is not None:
        await mark_audit(session, ended.audit_id, "failed", {"data": data})
    return ended


async def cancel(
    session: AsyncSession, withdrawal_id: str, reason: str, decimals: TokenDecimals
) -> Withdrawal:
    """pending -> cancelled (the user's or an operator's): 409 once it was claimed for its
    chain write (then only a retry)."""
    ended = await end(session, withdrawal_id, "cancelled", reason, decimals)
    if ended is not None:
        return ended
    status = await session.scalar(select(Withdrawal.status).where(Withdrawal.id == withdrawal_id))
    if status is None:
        raise NotFound(f"Withdrawal {withdrawal_id} not found")
    raise InvalidState(
        f"Withdrawal {withdrawal_id} is {status}; only a pending withdrawal can be cancelled"
        + (" (its transaction is being signed or sent: retry it)" if status == "pending_onchain"
           else ""),
        withdrawal_status=status,
    )  # fmt: skip


async def history(session: AsyncSession, withdrawal_id: str) -> list[WithdrawalState]:
    return await all_in_order(
        session, WithdrawalState, WithdrawalState.withdrawal_id == withdrawal_id, WithdrawalState.id
    )


def search_attributes(w: Withdrawal, status: str) -> TypedSearchAttributes:
    """What a withdrawal's workflow is filed under in Temporal (engine.search)."""
    return search.attributes(
        project_id=w.project_id or 0,
        user_uid=w.user_uid,
        operation="withdrawal",
        status=status,
        currency=w.currency,
    )
