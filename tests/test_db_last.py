"""db.last on a real PostgreSQL: steps run at the commit point, statements sent with the COMMIT
in one round trip, and a statement's refusal stops the whole transaction."""

from __future__ import annotations

import asyncio
import sys
import uuid

import psycopg
import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from core.config import Settings
from db.last import (
    LastStatement,
    PendingLastSteps,
    begin_with,
    commit_last,
    flush_last,
    run_last,
)
from db.models.engine import LimitUsage
from db.session import create_db_engine, create_session_maker

Maker = async_sessionmaker[AsyncSession]

# A day's counter that refuses past 10 (the shape of engine.limits' own statement).
_COUNT = """
INSERT INTO limit_usage AS u (project_id, currency, operation, day, used)
SELECT :project_id, 'MCC', 'transfer', current_date, :amount WHERE :amount <= 10
ON CONFLICT (project_id, currency, operation, day) DO UPDATE
SET used = u.used + EXCLUDED.used
WHERE u.used + EXCLUDED.used <= 10
RETURNING used
"""


class Refused(Exception):
    pass


def count(project_id: int, amount: int) -> LastStatement:
    params = {"project_id": project_id, "amount": amount}
    return LastStatement(_COUNT, params, lambda: Refused(f"{amount} does not fit"))


async def used(maker: Maker, project_id: int) -> int:
    async with maker() as s:
        value = await s.scalar(select(LimitUsage.used).where(LimitUsage.project_id == project_id))
        return int(value or 0)


async def marks(maker: Maker, tag: str) -> int:
    async with maker() as s:
        found = await s.scalar(
            select(func.count()).select_from(text("idempotency_records")).where(text("key = :tag")),
            {"tag": tag},
        )
        return int(found or 0)


async def mark(session: AsyncSession, tag: str) -> None:
    """Some other write of the same request (an idempotency record stands in for it)."""
    await session.execute(
        text(
            "INSERT INTO idempotency_records (scope, key, request_hash, status_code, "
            "response_body, content_type, expires_at) VALUES ('test', :tag, 'h', 200, '{}', "
            "'application/json', now() + interval '1 hour')"
        ),
        {"tag": tag},
    )


async def commit(session: AsyncSession, pipelined: bool) -> None:
    """The commit point either way: the statements sent with the COMMIT, or run, then a commit."""
    if pipelined:
        await commit_last(session)
    else:
        await flush_last(session)
        await session.commit()


@pytest.mark.parametrize("pipelined", [True, False])
async def test_a_refusing_statement_commits_nothing_of_its_request(
    session_maker: Maker, pipelined: bool
) -> None:
    project_id = 10_000_000 + uuid.uuid4().int % 1_000_000
    ran: list[str] = []

    async def step(session: AsyncSession) -> None:
        ran.append("step")

    for amount, tag in ((6, "first"), (5, "second"), (4, "third")):
        tag = f"{tag}-{project_id}"
        async with session_maker() as s:
            await mark(s, tag)
            run_last(s, count(project_id, amount))
            run_last(s, step)  # a coroutine step runs before the statements, in order
            try:
                await commit(s, pipelined)
            except Refused:
                await s.rollback()
    # 6 fits, 5 would make 11 and is refused with its request's other write, 4 fits.
    assert await used(session_maker, project_id) == 10
    assert [
        await marks(session_maker, f"{t}-{project_id}") for t in ("first", "second", "third")
    ] == [1, 0, 1]
    assert ran == ["step"] * 3


async def test_a_commit_with_steps_pending_is_refused(session_maker: Maker) -> None:
    project_id = 20_000_000 + uuid.uuid4().int % 1_000_000
    async with session_maker() as s:
        run_last(s, count(project_id, 1))
        with pytest.raises(PendingLastSteps):
            await s.commit()
        await s.rollback()
        await s.commit()  # the rollback dropped the step
    assert await used(session_maker, project_id) == 0


async def test_a_connection_lost_with_the_commit_is_a_database_error_and_commits_nothing(
    session_maker: Maker,
) -> None:
    """The pipelined COMMIT runs on the driver's connection: a connection lost there must reach
    the API as SQLAlchemy's invalidated-connection error (a 503 with "retry with the same key"),
    not as a bare driver error (a 500), and the pool must not hand the dead connection out."""
    tag = f"lost-{uuid.uuid4().hex}"
    # The last statement ends its own backend: the COMMIT behind it in the pipeline never runs.
    kill = LastStatement(
        "SELECT pg_terminate_backend(pg_backend_pid())", {}, lambda: Refused("unreachable")
    )
    async with session_maker() as s:
        await mark(s, tag)
        run_last(s, kill)
        with pytest.raises(DBAPIError) as raised:
            await commit_last(s)
        assert raised.value.connection_invalidated
        await s.rollback()
        # The same session goes on, on a fresh connection.
        assert await s.scalar(text("SELECT 1")) == 1
    assert await marks(session_maker, tag) == 0


@pytest.mark.parametrize("first", ["commit", "begin_with"])
async def test_a_connection_found_dead_by_the_pipeline_renews_the_whole_pool(
    settings: Settings, session_maker: Maker, first: str
) -> None:
    """After a database restart every pooled connection is dead. SQLAlchemy renews the whole
    pool when a statement of its own meets one (db.session: one request per process answers
    503), and a pipelined commit that meets one first must do the same; before, it invalidated
    its own connection only, and each other pooled connection failed a request of its own (the
    topology's first write after the chaos suite answered 503)."""
    engine = create_db_engine(settings)
    maker = create_session_maker(engine)
    try:
        async with maker() as a, maker() as b:  # two connections in the pool
            pids = [await s.scalar(text("SELECT pg_backend_pid()")) for s in (a, b)]
            await a.commit()
            await b.commit()
        async with session_maker() as killer:
            for pid in pids:
                await killer.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        tag = f"dead-{uuid.uuid4().hex}"
        async with maker() as s:
            with pytest.raises(DBAPIError) as raised:
                if first == "begin_with":  # the request's first statement, with its BEGIN
                    await begin_with(s, LastStatement(_FIRST, {"tag": f"{tag}-x"}))
                else:
                    run_last(s, count(0, 0))  # nothing but the pipeline reaches the server
                    await commit_last(s)
            assert raised.value.connection_invalidated
            await s.rollback()
        async with maker() as s:  # the other pooled connection: renewed, not dead
            await mark(s, tag)
            await s.commit()
        assert await marks(session_maker, tag) == 1
    finally:
        await engine.dispose()


@pytest.mark.parametrize("pipelined", [True, False])
async def test_a_statement_without_refusal_runs_as_it_is_and_fails_only_by_raising(
    session_maker: Maker, pipelined: bool
) -> None:
    """A data-modifying WITH (which the refusal guard cannot wrap) runs with the commit; what
    it returns is ignored, and an error it raises in the server commits nothing of its
    request, whichever statement order it has with a guarded one."""
    project_id = 30_000_000 + uuid.uuid4().int % 1_000_000
    # Writes a mark and adds to the day's counter in one statement with a WITH of its own;
    # ``fail`` makes it divide by zero in the server after both writes.
    both = LastStatement(
        """
WITH marked AS (
    INSERT INTO idempotency_records (scope, key, request_hash, status_code, response_body,
        content_type, expires_at)
    VALUES ('test', :tag, 'h', 200, '{}', 'application/json', now() + interval '1 hour')
    RETURNING key
), counted AS (
    UPDATE limit_usage SET used = used + 1 WHERE project_id = :project_id RETURNING used
)
SELECT 1 / (CASE WHEN :fail THEN 0 ELSE 1 END) FROM marked LEFT JOIN counted ON true
""",
        {"project_id": project_id, "tag": "", "fail": False},
    )
    for tag, fail in (("kept", False), ("failed", True), ("after", False)):
        statement = LastStatement(
            both.sql, {**both.params, "tag": f"{tag}-{project_id}", "fail": fail}
        )
        async with session_maker() as s:
            run_last(s, count(project_id, 2))  # guarded, before it
            run_last(s, statement)
            try:
                await commit(s, pipelined)
            except DBAPIError as exc:
                assert fail and "division by zero" in str(exc.orig)
                await s.rollback()
    # "kept" and "after" each counted 2 (guarded) + 1 (the WITH); "failed" wrote nothing.
    assert await used(session_maker, project_id) == 6
    assert [
        await marks(session_maker, f"{t}-{project_id}") for t in ("kept", "failed", "after")
    ] == [1, 0, 1]


# The day's counter of ``_COUNT`` as a guarded statement with a CTE of its own (``with_``) and
# the refusal's ``detail``: what was used when it refused, read in the same statement.
_SEEN = "seen AS (SELECT used FROM limit_usage WHERE project_id = :project_id)"
_USED_NOW = "SELECT used FROM limit_usage WHERE project_id = :project_id"


def count_saying_why(project_id: int, amount: int) -> LastStatement:
    params = {"project_id": project_id, "amount": amount}
    return LastStatement(
        _COUNT.replace("RETURNING used", "RETURNING used, (SELECT count(*) FROM seen)"),
        params,
        lambda used: Refused(f"{amount} does not fit beside {used}"),
        with_=_SEEN,
        detail=_USED_NOW,
    )


@pytest.mark.parametrize("pipelined", [True, False])
async def test_a_refusal_carries_its_detail_and_a_first_statement_runs_before_all(
    session_maker: Maker, pipelined: bool
) -> None:
    """Issue 43, pass four: a guarded statement with CTEs of its own (``with_``) refuses with
    what its ``detail`` read in the same statement (the reservation's available amount), and a
    statement registered ``first`` runs before every step registered earlier (the idempotency
    claim before the reservation), coroutines included, whose refusal is then never met."""
    project_id = 40_000_000 + uuid.uuid4().int % 1_000_000
    ran: list[str] = []

    async def step(session: AsyncSession) -> None:
        ran.append("step")

    async with session_maker() as s:
        run_last(s, count_saying_why(project_id, 7))
        await commit(s, pipelined)
    async with session_maker() as s:
        run_last(s, count_saying_why(project_id, 5))
        with pytest.raises(Refused, match=r"^5 does not fit beside 7$"):
            await commit(s, pipelined)
        await s.rollback()
    assert await used(session_maker, project_id) == 7

    tag = f"first-{project_id}"
    async with session_maker() as s:
        await mark(s, tag)
        await s.commit()
    async with session_maker() as s:
        run_last(s, count_saying_why(project_id, 5))  # would refuse: 12 > 10
        run_last(s, step)
        # The same mark again refuses (its key exists): registered last, it runs first.
        again = LastStatement(
            "INSERT INTO idempotency_records (scope, key, request_hash, status_code, "
            "response_body, content_type, expires_at) VALUES ('test', :tag, 'h', 200, '{}', "
            "'application/json', now() + interval '1 hour') ON CONFLICT DO NOTHING RETURNING 1",
            {"tag": tag},
            lambda: Refused("done before"),
        )
        run_last(s, again, first=True)
        with pytest.raises(Refused, match=r"^done before$"):
            await commit(s, pipelined)
        await s.rollback()
    assert ran == [] and await used(session_maker, project_id) == 7


# The request's first write, sent with its BEGIN (``begin_with``): a mark, as ``mark`` writes it.
_FIRST = (
    "INSERT INTO idempotency_records (scope, key, request_hash, status_code, response_body, "
    "content_type, expires_at) VALUES ('test', :tag, 'h', 200, '{}', 'application/json', "
    "now() + interval '1 hour') RETURNING key"
)
_NEVER = LastStatement("SELECT 1 WHERE false", {}, lambda: Refused("claim refused"))
_KILL = LastStatement(
    "SELECT pg_terminate_backend(pg_backend_pid())", {}, lambda: Refused("unreachable")
)


async def _back_in_the_pool_as_any(maker: Maker, tag: str) -> None:
    """The one pooled connection runs the next request as any other: not in autocommit, no
    transaction left open, and a write it rolls back is not kept."""
    async with maker() as s:
        await mark(s, tag)  # psycopg's own BEGIN, then the write
        raw = (await (await s.connection()).get_raw_connection()).driver_connection
        assert isinstance(raw, psycopg.AsyncConnection)
        assert not raw.autocommit
        assert raw.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        await s.rollback()
    assert await marks(maker, tag) == 0


async def test_a_first_statement_sent_with_its_begin_commits_with_the_rest(
    session_maker: Maker,
) -> None:
    """Issue 43, pass five: ``begin_with`` sends BEGIN and the statement in one round trip and
    gives its rows; the transaction goes on and commits with ``commit_last`` as any other. In
    a transaction begun already it is an ordinary statement."""
    project_id = 50_000_000 + uuid.uuid4().int % 1_000_000
    tags = [f"begun-{project_id}", f"second-{project_id}", f"inside-{project_id}"]
    async with session_maker() as s:
        assert await begin_with(s, LastStatement(_FIRST, {"tag": tags[0]})) == [(tags[0],)]
        await mark(s, tags[1])  # more of the request, on the same transaction
        run_last(s, count(project_id, 3))
        await commit_last(s)
    async with session_maker() as s:
        await mark(s, f"x-{project_id}")  # begun by psycopg
        assert await begin_with(s, LastStatement(_FIRST, {"tag": tags[2]})) == [(tags[2],)]
        await s.rollback()
    assert [await marks(session_maker, t) for t in tags] == [1, 1, 0]
    assert await used(session_maker, project_id) == 3


@pytest.mark.parametrize("failure", ["reservation", "claim", "lost", "raised", "cancelled"])
async def test_a_transaction_begun_with_its_first_statement_leaves_nothing_on_failure(
    settings: Settings, session_maker: Maker, failure: str
) -> None:
    """Issue 43, pass five: a transaction whose BEGIN went with its first write (in autocommit,
    ``begin_with``) writes nothing when it fails: a refused reservation (a guarded statement at
    the commit), a refused idempotency claim (registered first), a connection lost with the
    commit, an error raised by the request, the request's task cancelled (a crash mid-request
    as the process sees it). And the connection goes back to the pool as any other."""
    engine = create_async_engine(settings.database_url, pool_size=1, max_overflow=0)
    maker = create_session_maker(engine)
    project_id = 60_000_000 + uuid.uuid4().int % 1_000_000
    tag = f"{failure}-{project_id}"

    async def request() -> None:
        async with maker() as s:
            await begin_with(s, LastStatement(_FIRST, {"tag": tag}))
            await mark(s, f"{tag}-more")
            run_last(s, count(project_id, 11 if failure == "reservation" else 1))
            if failure == "claim":
                run_last(s, _NEVER, first=True)
            if failure == "lost":
                run_last(s, _KILL)
            if failure == "raised":
                raise Refused("the request's own refusal")
            if failure == "cancelled":
                await asyncio.sleep(60)
            await commit_last(s)

    try:
        if failure == "cancelled":
            task = asyncio.create_task(request())
            await asyncio.sleep(0.5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        else:
            expected = DBAPIError if failure == "lost" else Refused
            with pytest.raises(expected):
                await request()
        assert await marks(session_maker, tag) == 0
        assert await marks(session_maker, f"{tag}-more") == 0
        assert await used(session_maker, project_id) == 0
        await _back_in_the_pool_as_any(maker, f"{tag}-after")
    finally:
        await engine.dispose()


async def test_a_process_dead_after_its_begin_leaves_nothing(settings: Settings) -> None:
    """Issue 43, pass five: a process that dies between ``begin_with`` and its commit (killed,
    nothing run on its way out) leaves nothing written: the server rolls its transaction back."""
    tag = f"dead-{uuid.uuid4().hex}"
    script = f"""
import asyncio, os
from sqlalchemy.ext.asyncio import create_async_engine
from db.last import LastStatement, begin_with
from db.session import create_session_maker
from tests.test_db_last import _FIRST

async def main():
    maker = create_session_maker(create_async_engine({settings.database_url!r}))
    async with maker() as s:
        await begin_with(s, LastStatement(_FIRST, {{"tag": {tag!r}}}))
        print("begun", flush=True)
        os._exit(9)

asyncio.run(main())
"""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 9 and out == b"begun\n", err.decode()
    engine = create_async_engine(settings.database_url, pool_size=1)
    try:
        maker = create_session_maker(engine)
        for _ in range(50):  # the server notices the dead client soon after
            if await marks(maker, tag) == 0:
                break
            await asyncio.sleep(0.1)
        assert await marks(maker, tag) == 0
    finally:
        await engine.dispose()
