"""Fund locks: a lock is a ledger hold (two-phase). Reserved in the request's transaction,
released exactly once by unlock, by its expiry timer, or consumed by a settlement transfer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from chain.decimals import TokenDecimals
from core.time import iso
from db.models.ledger import Hold
from engine import limits
from engine.errors import Rejected, insufficient, invalid_state, not_found
from events.outbox import emit
from ledger.service import Balances, InsufficientFunds, Ledger

# The longest a lock may run (docs/engine.md): a later expires_at is a 422, never a timer that
# outlives every operator's memory of why the funds are held.
MAX_LOCK_DURATION = timedelta(days=90)

# Hold status -> the lock status projects see.
LOCK_STATUS = {"active": "locked", "voided": "unlocked", "posted": "settled", "expired": "expired"}


def _event(hold: Hold, decimals: TokenDecimals, **extra: Any) -> dict[str, Any]:
    return {
        "lock_id": hold.id,
        "user_uid": hold.user_uid,
        "currency": hold.currency,
        "amount": decimals.format(hold.amount, hold.currency),
        "reference_id": hold.reference_id,
        **extra,
    }


def _expiry_invalid(message: str) -> Rejected:
    return Rejected(
        f"expires_at {message}",
        slug="validation-error",
        errors=[{"field": "expires_at", "message": message}],
    )


def lock_expiry(expires_at: datetime) -> datetime:
    """``expires_at`` in UTC: with an offset, in the future, at most MAX_LOCK_DURATION away."""
    if expires_at.tzinfo is None:
        raise _expiry_invalid("needs a UTC offset (e.g. 2030-01-01T00:00:00Z)")
    try:
        in_utc = expires_at.astimezone(UTC)
    except OverflowError as exc:  # e.g. 9999-12-31T23:59:59-14:00
        raise _expiry_invalid("is out of range") from exc
    now = datetime.now(UTC)
    if in_utc <= now:
        raise _expiry_invalid("must be in the future")
    if in_utc > now + MAX_LOCK_DURATION:
        raise _expiry_invalid(f"must be within {MAX_LOCK_DURATION.days} days from now")
    return in_utc


class AlreadyLocked(Exception):
    """A lock with this (idempotency-derived) id exists: the request ran before."""


async def lock(
    session: AsyncSession,
    *,
    lock_id: str,
    project_id: int,
    user_uid: str,
    currency: str,
    amount: int,
    reason: str,
    reference_id: str | None,
    expires_at: datetime,
    decimals: TokenDecimals,
) -> tuple[Hold, Balances]:
    """Reserve now, and the user's balances after. Raises Rejected when funds or limits say no
    (the caller rolls back: nothing stays written; a refused reservation writes nothing
    itself). AlreadyLocked (nothing written) when ``lock_id`` is recorded: told first, before
    any refusal the first run's own reservation and count could cause."""
    charge = limits.Charge(project_id, currency, "fund_lock", amount, decimals.of(currency))
    ledger = Ledger(session)
    try:
        reserved = await ledger.reserve(
            lock_id, user_uid, currency, amount,
            project_id=project_id, reason=reason, reference_id=reference_id,
            expires_at=expires_at,
        )  # fmt: skip
    except InsufficientFunds as exc:
        raise insufficient(exc, decimals) from exc
    if reserved is None:
        raise AlreadyLocked(lock_id)
    hold, balances = reserved
    # Reads only; a refusal rolls the reservation back with the rest (the caller's rollback).
    checked = await limits.check_limit(session, charge)
    # The project's day count last, with the commit (db.last: one row for all its locks).
    limits.count_last(session, charge, checked, limits.utc_day(), limits.limit_rejection)
    await emit(
        session,
        project_id=project_id,
        type="funds.locked",
        data=_event(hold, decimals, reason=reason, locked_until=iso(expires_at)),
        event_id=f"evt_{lock_id}_locked",
    )
    return hold, balances


async def unlock(
    session: AsyncSession, *, lock_id: str, project_id: int, reason: str, decimals: TokenDecimals
) -> tuple[Hold, Balances]:
    """Release a lock of this project exactly once (409 ``invalid-state`` if not locked), and
    the user's balances after."""
    released = await Ledger(session).release(lock_id, reason, project_id=project_id)
    if released is None:  # the refusal's path alone reads the lock
        hold = await session.get(Hold, lock_id)
        if hold is None or hold.project_id != project_id:
            raise not_found(f"Fund lock {lock_id}")
        raise invalid_state(
            f"Fund lock {lock_id} is {LOCK_STATUS.get(hold.status, hold.status)}, not locked",
            lock_status=LOCK_STATUS.get(hold.status, hold.status),
        )
    voided, balances = released
    await emit(
        session,
        project_id=project_id,
        type="funds.unlocked",
        data=_event(voided, decimals, reason=reason),
        event_id=f"evt_{lock_id}_unlocked",
    )
    return voided, balances


async def expire(session: AsyncSession, lock_id: str, decimals: TokenDecimals) -> Hold | None:
    """The lock's time ran out: release it if still locked (None if already resolved)."""
    expired = await Ledger(session).expire(lock_id)
    if expired is None:
        return None
    await emit(
        session,
        project_id=expired.project_id or 0,
        type="funds.unlocked",
        data=_event(expired, decimals, reason="expired"),
        event_id=f"evt_{lock_id}_unlocked",
    )
    return expired


__all__ = ["AlreadyLocked", "Rejected", "expire", "lock", "unlock"]
