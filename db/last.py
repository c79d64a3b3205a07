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

A guarded statement may have CTEs of its own (``with_``, data-modifying ones included: the guard
goes around its last statement, after them), and may say why it refused: its ``detail``, an SQL
expression the refusal is computed from in the same statement (the available amount of a
reservation that does not fit), is handed to ``refusal(detail)``. ``run_last(..., first=True)``
puts a statement before every other step (the idempotency claim: a key done before must be
replayed, not meet a refusal its first run's own effect would now cause).

A transaction's first statement may go with its BEGIN (``begin_with``: psycopg's own BEGIN is
a round trip of its own, even in a pipeline); with the statements sent with the COMMIT, a
transaction of one statement, then more at its end, is two round trips (a transfer's accept).

A commit with registered steps still pending is refused (``PendingLastSteps``), so a deferred
limit or reservation can never be skipped by a commit point that forgot to run it; a rollback
drops them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy import TextClause, bindparam, event, text
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.interfaces import Compiled
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session
from sqlalchemy.types import TypeEngine

Step = Callable[[AsyncSession], Awaitable[Any]]
_KEY = "mccgw.run_last"
_FIRST = "mccgw.run_last.first"  # how many statements at the front were registered first=True
_REFUSED = "mccgw-refused:"


class PendingLastSteps(RuntimeError):
    """A commit was attempted with ``run_last`` steps not run (a programming error)."""


@dataclass(frozen=True)
class LastStatement:
    """``sql``: one statement with SQLAlchemy ``:name`` parameters. With a ``refusal`` it has no
    WITH of its own (its CTEs go in ``with_``: ``"a AS (...), b AS (...)"``, which it may read)
    and must return at least one row when it did its work; none means refused, and
    ``refusal()`` is what the request then raises, or ``refusal(detail)`` with a ``detail``: an
    SQL expression (it may read ``with_``'s CTEs) evaluated only then, as text. Without a
    refusal it runs as it is (it may be a data-modifying WITH) and what it returns is ignored.
    ``types``: the SQLAlchemy type of a parameter that needs one (JSONB); the statement's text
    and types are compiled once, so they must be the same for every statement of that text."""

    sql: str
    params: dict[str, Any]
    refusal: Callable[..., Exception] | None = None
    with_: str | None = None
    detail: str | None = None
    types: Mapping[str, TypeEngine[Any]] | None = None


@asynccontextmanager
async def autocommit(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """A session whose every statement commits by itself, for a unit of work that is one
    statement (or only reads): it costs no BEGIN and no COMMIT round trip (a statement is
    atomic by itself). The connection goes back to the pool at its usual isolation level."""
    async with sessions() as session:
        await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        yield session


async def begin_with(session: AsyncSession, statement: LastStatement) -> list[tuple[Any, ...]]:
    """The transaction's first statement, sent with its BEGIN in one round trip; its rows.

    psycopg sends a BEGIN of its own before a transaction's first statement and waits for its
    answer, even in pipeline mode: a round trip of its own at every commit point. Here the
    connection is taken in autocommit (so the driver sends none) and an explicit ``BEGIN`` goes
    in a pipeline with the statement; the rest of the transaction runs on it as usual and ends
    as any other: ``commit_last``'s COMMIT, or a rollback. Whatever ends the transaction ends
    the server's: the driver's commit and rollback send COMMIT and ROLLBACK whenever the server
    is in a transaction, autocommit or not; a session closed without either rolls back; the
    pool rolls back a connection it gets back in a transaction, then resets its autocommit
    (SQLAlchemy's own undoing of an ``isolation_level`` option, after that rollback); a lost
    connection or a dead process leaves the server nothing to commit. In a session whose
    transaction has begun already, it is an ordinary statement. ``statement`` has no refusal
    (it runs as it is, and fails only by raising)."""
    if statement.refusal is not None:
        raise TypeError("the first statement of a transaction has no refusal")
    if session.in_transaction():
        result = await session.execute(_text(statement), statement.params)
        return [tuple(row) for row in result]
    connection = await session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    raw = (await connection.get_raw_connection()).driver_connection
    assert isinstance(raw, psycopg.AsyncConnection) and raw.autocommit
    sql, params = _driver_params(statement, session.get_bind().dialect, {})
    try:
        async with raw.pipeline():
            await raw.execute(_BEGIN, prepare=False)
            cursor = await raw.execute(sql, params)
        rows = await cursor.fetchall()
    except psycopg.Error as exc:
        raise await _as_sqlalchemy_error(session, raw, exc) from exc
    return [tuple(row) for row in rows]


def run_last(session: AsyncSession, step: Step | LastStatement, *, first: bool = False) -> None:
    """Run ``step`` at the end of this transaction, before its commit (statements after every
    coroutine step, with the commit). ``first``: a statement that runs before every other step
    registered, whenever they were (with coroutine steps pending, in a round trip of its own
    before them; otherwise first in the commit's pipeline)."""
    steps = session.info.setdefault(_KEY, [])
    if not first:
        steps.append(step)
        return
    if not isinstance(step, LastStatement):
        raise TypeError("only a LastStatement can be registered first")
    firsts = session.info.get(_FIRST, 0)
    steps.insert(firsts, step)
    session.info[_FIRST] = firsts + 1


async def flush_last(session: AsyncSession) -> None:
    """Run the registered steps, as ``commit_last`` orders them (statements registered first,
    coroutines, then the other statements), one round trip each; a statement's refusal is
    raised as such. A step that raises leaves the transaction to be rolled back."""
    firsts, coroutines, statements = _pending(session)
    for statement in firsts:
        await _execute(session, statement)
    for step in coroutines:
        await step(session)
    for statement in statements:
        await _execute(session, statement)
    _done(session)


async def _execute(session: AsyncSession, statement: LastStatement) -> None:
    """One statement in a round trip of its own; its refusal raised as such."""
    if statement.refusal is None:
        await session.execute(_text(statement), statement.params)
        return
    try:
        await session.execute(_text(statement), {**statement.params, "last_step": "0"})
    except DBAPIError as exc:
        refused = _refused_step(exc.orig)
        if refused is not None:
            raise _refusal(statement, refused[1]) from None
        raise


def _refusal(statement: LastStatement, detail: str) -> Exception:
    assert statement.refusal is not None
    return statement.refusal(detail) if statement.detail is not None else statement.refusal()


def _done(session: AsyncSession) -> None:
    session.info.pop(_KEY, None)
    session.info.pop(_FIRST, None)


async def commit_last(session: AsyncSession) -> None:
    """Commit, with the registered steps: the statements registered first and the others with
    the COMMIT in one round trip (with coroutine steps pending, those first statements, then
    the coroutines, before it). Raises the refusal of the first statement that refused
    (nothing is committed then; roll the session back)."""
    firsts, coroutines, statements = _pending(session)
    if coroutines:
        for statement in firsts:
            await _execute(session, statement)
        for step in coroutines:
            await step(session)
    else:
        statements = firsts + statements
    if not statements:
        _done(session)
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
                extra = {"last_step": str(index)} if guarded else {}
                sql, params = _driver_params(statement, dialect, extra)
                await raw.execute(sql, params)
            # The COMMIT as one more statement of the pipeline, not ``raw.commit()``: that one
            # syncs by itself, and the pipeline's exit then costs a second, empty round trip.
            # A statement that failed before it aborts the transaction: the server skips the
            # COMMIT (and everything up to the exit's Sync) and the exit raises that error.
            await raw.execute(_COMMIT, prepare=False)
    except psycopg.Error as exc:
        refused = _refused_step(exc)
        if refused is not None and statements[refused[0]].refusal is not None:
            raise _refusal(statements[refused[0]], refused[1]) from None
        raise await _as_sqlalchemy_error(session, raw, exc) from exc
    _done(session)
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
        # As SQLAlchemy does when a statement of its own meets a lost connection
        # (``Connection._handle_dbapi_exception``): the whole pool is renewed, not this
        # connection alone, since a database restart killed every pooled one (db.session).
        connection = await session.connection()
        pooled = connection.sync_connection
        assert pooled is not None  # a started AsyncConnection has its sync one
        pooled.engine.pool._invalidate(pooled.connection, exc, _checkin=False)
        await connection.invalidate(exc)
    return DBAPIError.instance(None, None, exc, psycopg.Error, connection_invalidated=lost)


def _pending(
    session: AsyncSession,
) -> tuple[list[LastStatement], list[Step], list[LastStatement]]:
    """The registered steps: (statements registered first, coroutines, the other statements),
    each in order. They stay registered until they all ran, so a commit after one of them
    failed is still refused."""
    steps: list[Step | LastStatement] = list(session.info.get(_KEY) or [])
    firsts = int(session.info.get(_FIRST, 0))
    head = [s for s in steps[:firsts] if isinstance(s, LastStatement)]
    rest = steps[firsts:]
    statements = [s for s in rest if isinstance(s, LastStatement)]
    return head, [s for s in rest if not isinstance(s, LastStatement)], statements


_COMMIT = b"COMMIT"
_BEGIN = b"BEGIN"
_Shape = tuple[str, str | None, str | None, bool]
_TEXTS: dict[_Shape, TextClause] = {}


def _shape(statement: LastStatement) -> _Shape:
    s = statement
    return (s.sql, s.with_, s.detail, s.refusal is not None)


def _text(statement: LastStatement) -> TextClause:
    """The statement as sent (compiled once per text): a guarded one raises in the server when
    its last statement returns no row, with its ``detail`` after the step's index."""
    shape = _shape(statement)
    found = _TEXTS.get(shape)
    if found is None:
        sql, with_, detail, guarded = shape
        if guarded:
            refuse = ":last_step"
            if detail is not None:
                refuse += f" || ':' || COALESCE(CAST(({detail}) AS text), '')"
            sql = (
                f"WITH {with_ + ', ' if with_ else ''}step AS ({sql})\n"
                "SELECT CASE WHEN EXISTS (SELECT 1 FROM step) THEN true "
                f"ELSE mccgw_refuse({refuse}) END"
            )
        elif with_:
            sql = f"WITH {with_}\n{sql}"
        found = text(sql)
        if statement.types:
            found = found.bindparams(
                *(bindparam(name, type_=type_) for name, type_ in statement.types.items())
            )
        _TEXTS[shape] = found
    return found


Processors = dict[str, Callable[[Any], Any]]
_COMPILED: dict[_Shape, tuple[str, Compiled, Processors]] = {}


def _compiled(statement: LastStatement, dialect: Dialect) -> tuple[str, Compiled, Processors]:
    """The statement in the driver's own parameter style, with the bind processors of its
    typed parameters (compiled once per text)."""
    shape = _shape(statement)
    found = _COMPILED.get(shape)
    if found is None:
        compiled = _text(statement).compile(dialect=dialect)
        processors: Processors = {}
        for name in statement.types or {}:
            type_ = compiled.binds[name].type
            process = type_.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                processors[name] = process
        found = _COMPILED[shape] = (str(compiled), compiled, processors)
    return found


def _driver_params(
    statement: LastStatement, dialect: Dialect, extra: dict[str, Any]
) -> tuple[str, Any]:
    """The statement's text and parameters as the driver takes them."""
    sql, compiled, processors = _compiled(statement, dialect)
    params = compiled.construct_params({**statement.params, **extra})
    if processors:
        assert params is not None
        for name, process in processors.items():
            params[name] = process(params[name])
    return sql, params


def _refused_step(exc: BaseException | None) -> tuple[int, str] | None:
    """(the refusing step's index, its detail) from the error its guard raised."""
    if not isinstance(exc, psycopg.errors.RaiseException):
        return None
    message = exc.diag.message_primary or ""
    if not message.startswith(_REFUSED):
        return None
    index, _, detail = message.removeprefix(_REFUSED).partition(":")
    return int(index), detail


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
    session.info.pop(_FIRST, None)
