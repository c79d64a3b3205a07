"""Statements on contended rows, run at the end of their transaction.

A project's day counter of a limit (``limit_usage``) is one row that every accept of that
project updates, and a sender's ledger account one that every transfer of that user and every
settlement booking it takes part in updates. A row lock is held until COMMIT: taken early in a
request, it stays held while the rest of the request runs (more statements, the answer built,
the idempotency record written), and every concurrent accept of the same project queues behind
it. A service registers such work with ``run_last(session, step)`` instead of running it; the
request's one commit point runs the registered steps in order just before it commits, so those
locks are held for the last statements and the commit only. The steps still run inside the
request's transaction (one commit point), and a refusal they raise rolls the whole request back
like any other.

Two kinds of step:

- a coroutine ``step(session)``, run as it is (``flush_last``);
- a ``LastStatement``: one SQL statement. The commit point (``commit_last``) sends these in one
  round trip with the COMMIT (a psycopg pipeline), so their locks are never held while the
  client is busy elsewhere: an API process answering a hundred requests at once may take tens
  of milliseconds to get back to one of them, and every accept of the project would wait that
  long for the next COMMIT; a worker that yields the CPU to the API (``WORKER_NICE``) longer
  still. A statement with a ``refusal`` returns a row when it did its work; one that returns no
  row refuses: it raises in the server (``mccgw_refuse``, migration 0017), which aborts the
  transaction before the COMMIT runs, and the step's ``refusal`` is raised here. A statement
  without one (a batch booking) only fails by raising in the server (a check constraint, say),
  which aborts the transaction the same way.

A commit with registered steps still pending is refused (``PendingLastSteps``), so a deferred
limit or reservation can never be skipped by a commit point that forgot to run it; a rollback
drops them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy import TextClause, event, text
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.interfaces import Compiled
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

Step = Callable[[AsyncSession], Awaitable[Any]]
_KEY = "mccgw.run_last"
_REFUSED = "mccgw-refused:"


class PendingLastSteps(RuntimeError):
    """A commit was attempted with ``run_last`` steps not run (a programming error)."""


@dataclass(frozen=True)
class LastStatement:
    """``sql``: one statement with SQLAlchemy ``:name`` parameters. With a ``refusal`` it has no
    WITH of its own and must return at least one row when it did its work; none means refused,
    and ``refusal()`` is what the request then raises. Without one it runs as it is (it may be
    a data-modifying WITH) and what it returns is ignored."""

    sql: str
    params: dict[str, Any]
    refusal: Callable[[], Exception] | None = None


@asynccontextmanager
async def autocommit(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """A session whose every statement commits by itself, for a unit of work that is one
    statement (or only reads): it costs no BEGIN and no COMMIT round trip (a statement is
    atomic by itself). The connection goes back to the pool at its usual isolation level."""
    async with sessions() as session:
        await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        yield session


def run_last(session: AsyncSession, step: Step | LastStatement) -> None:
    """Run ``step`` at the end of this transaction, before its commit (statements after every
    coroutine step, with the commit)."""
    session.info.setdefault(_KEY, []).append(step)


async def flush_last(session: AsyncSession) -> None:
    """Run the registered steps, as ``commit_last`` orders them (coroutines, then statements),
    one round trip each; a statement's refusal is raised as such. A step that raises leaves the
    transaction to be rolled back."""
    coroutines, statements = _pending(session)
    for step in coroutines:
        await step(session)
    for statement in statements:
        if statement.refusal is None:
            await session.execute(_plain(statement.sql), statement.params)
            continue
        try:
            await session.execute(_guarded(statement.sql), {**statement.params, "last_step": "0"})
        except DBAPIError as exc:
            if _refused_step(exc.orig) is not None:
                raise statement.refusal() from None
            raise
    session.info.pop(_KEY, None)


async def commit_last(session: AsyncSession) -> None:
    """Commit, with the registered steps: the coroutines first, then the statements and the
    COMMIT in one round trip. Raises the refusal of the first statement that refused (nothing
    is committed then; roll the session back)."""
    coroutines, statements = _pending(session)
    for step in coroutines:
        await step(session)
    if not statements:
        session.info.pop(_KEY, None)
        await session.commit()
        return
    await session.flush()  # anything the ORM holds goes before, in this transaction
    dialect = session.get_bind().dialect
    raw = (await (await session.connection()).get_raw_connection()).driver_connection
    assert isinstance(raw, psycopg.AsyncConnection)
    try:
        async with raw.pipeline():
            for index, statement in enumerate(statements):
                guarded = statement.refusal is not None
                sql, compiled = _compiled(statement.sql, dialect, guarded)
                extra = {"last_step": str(index)} if guarded else {}
                await raw.execute(sql, compiled.construct_params({**statement.params, **extra}))
            await raw.commit()
    except psycopg.Error as exc:
        refused = _refused_step(exc)
        refusal = statements[refused].refusal if refused is not None else None
        if refusal is not None:
            raise refusal() from None
        raise await _as_sqlalchemy_error(session, raw, exc) from exc
    session.info.pop(_KEY, None)
    # Committed on the driver's connection; SQLAlchemy's own commit ends its transaction (the
    # driver's commit is a no-op on a connection with no transaction open).
    await session.commit()


async def _as_sqlalchemy_error(
    session: AsyncSession, raw: psycopg.AsyncConnection[Any], exc: psycopg.Error
) -> StatementError:
    """A driver error of the pipeline as SQLAlchemy would have raised it (the API's handlers
    know those: a lost connection answers 503, "retry with the same key"); a lost connection is
    invalidated, so the pool does not hand it out again and the session's rollback succeeds.
    Whether a COMMIT sent before the loss was applied is unknown here: the retry's idempotency
    key finds out."""
    lost = raw.broken or raw.closed
    if lost:
        await (await session.connection()).invalidate(exc)
    return DBAPIError.instance(None, None, exc, psycopg.Error, connection_invalidated=lost)


def _pending(session: AsyncSession) -> tuple[list[Step], list[LastStatement]]:
    """The registered steps: (coroutines, statements), each in order. They stay registered
    until they all ran, so a commit after one of them failed is still refused."""
    steps: list[Step | LastStatement] = list(session.info.get(_KEY) or [])
    statements = [s for s in steps if isinstance(s, LastStatement)]
    return [s for s in steps if not isinstance(s, LastStatement)], statements


_GUARDED: dict[str, TextClause] = {}


def _guarded(sql: str) -> TextClause:
    """``sql`` that raises in the server when it returns no row (compiled once per text)."""
    found = _GUARDED.get(sql)
    if found is None:
        found = _GUARDED[sql] = text(
            f"WITH step AS ({sql})\n"
            "SELECT CASE WHEN EXISTS (SELECT 1 FROM step) THEN true "
            "ELSE mccgw_refuse(:last_step) END"
        )
    return found


_PLAIN: dict[str, TextClause] = {}


def _plain(sql: str) -> TextClause:
    found = _PLAIN.get(sql)
    if found is None:
        found = _PLAIN[sql] = text(sql)
    return found


_COMPILED: dict[tuple[str, bool], tuple[str, Compiled]] = {}


def _compiled(sql: str, dialect: Dialect, guarded: bool) -> tuple[str, Compiled]:
    """The (guarded) statement in the driver's own parameter style (compiled once per text)."""
    found = _COMPILED.get((sql, guarded))
    if found is None:
        compiled = (_guarded(sql) if guarded else _plain(sql)).compile(dialect=dialect)
        found = _COMPILED[(sql, guarded)] = (str(compiled), compiled)
    return found


def _refused_step(exc: BaseException | None) -> int | None:
    if not isinstance(exc, psycopg.errors.RaiseException):
        return None
    message = exc.diag.message_primary or ""
    if not message.startswith(_REFUSED):
        return None
    return int(message.removeprefix(_REFUSED))


@event.listens_for(Session, "before_commit")
def _refuse_pending(session: Session) -> None:
    if session.info.get(_KEY):
        raise PendingLastSteps(
            f"{len(session.info[_KEY])} run_last step(s) not run before commit: call "
            "db.last.commit_last(session) (or flush_last) at the commit point"
        )


@event.listens_for(Session, "after_soft_rollback")
def _drop_pending(session: Session, previous_transaction: Any) -> None:
    session.info.pop(_KEY, None)
