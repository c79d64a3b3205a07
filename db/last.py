"""Statements on contended rows, run at the end of their transaction.

A project's day counter of a limit (``limit_usage``) is one row that every accept of that
project updates, and a sender's ledger account one that every transfer of that user and every
settlement booking it takes part in updates. A row lock is held until COMMIT: taken early in a
request, it stays held while the rest of the request runs (more statements, the answer built,
the idempotency record written), and every concurrent accept of the same project queues behind
it. A service registers such a statement with ``run_last(session, step)`` instead of running it;
the request's one commit point runs the registered steps in order (``flush_last``) just before
it commits, so those locks are held for the last statements and the commit only. The steps
still run inside the request's transaction (one commit point), and a refusal they raise rolls
the whole request back like any other.

A commit with registered steps still pending is refused (``PendingLastSteps``), so a deferred
limit or reservation can never be skipped by a commit point that forgot to run it; a rollback
drops them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

Step = Callable[[AsyncSession], Awaitable[Any]]
_KEY = "mccgw.run_last"


class PendingLastSteps(RuntimeError):
    """A commit was attempted with ``run_last`` steps not run (a programming error)."""


def run_last(session: AsyncSession, step: Step) -> None:
    """Run ``step(session)`` at the end of this transaction, before its commit."""
    session.info.setdefault(_KEY, []).append(step)


async def flush_last(session: AsyncSession) -> None:
    """Run the registered steps, in order (a commit point calls this just before committing);
    a step that raises leaves the transaction to be rolled back."""
    while steps := session.info.get(_KEY):
        await steps.pop(0)(session)
    session.info.pop(_KEY, None)


@event.listens_for(Session, "before_commit")
def _refuse_pending(session: Session) -> None:
    if session.info.get(_KEY):
        raise PendingLastSteps(
            f"{len(session.info[_KEY])} run_last step(s) not run before commit: call "
            "db.last.flush_last(session) at the commit point"
        )


@event.listens_for(Session, "after_soft_rollback")
def _drop_pending(session: Session, previous_transaction: Any) -> None:
    session.info.pop(_KEY, None)
