"""The client's CPU and wall time of a commit point shaped like a transfer accept's, with
psycopg's own BEGIN (a round trip of its own) or with ``db.last.begin_with`` (BEGIN sent with
the first statement), in one process, the two interleaved in rounds so both meet the same
load (issue 43, pass five).

Each unit of work: the transaction's first statement (an INSERT with RETURNING, as the
transfer's), then, with the COMMIT in one pipeline (``commit_last``), a guarded statement (a
day's counter, as the reservation and the count); ``FLIGHT`` units in flight.

    .venv/bin/python -m bench.begin_with [--n 2000] [--rounds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._pg import counting_postgres
from core.config import Settings
from db.last import LastStatement, begin_with, commit_last, run_last
from db.session import create_db_engine, create_session_maker
from tests.services import migrated_database

FLIGHT = 8
_FIRST = (
    "INSERT INTO idempotency_records (scope, key, request_hash, status_code, response_body, "
    "content_type, expires_at) VALUES ('bench', :tag, 'h', 200, '{}', 'application/json', "
    "now() + interval '1 hour') RETURNING created_at"
)
_COUNT = """
INSERT INTO limit_usage AS u (project_id, currency, operation, day, used)
SELECT :project_id, 'MCC', 'transfer', current_date, 1
ON CONFLICT (project_id, currency, operation, day) DO UPDATE SET used = u.used + 1
RETURNING used
"""


class Refused(Exception):
    pass


async def run(url: str, n: int, rounds: int) -> None:
    engine = create_db_engine(Settings(environment="test", database_url=url))
    maker = create_session_maker(engine)
    from sqlalchemy import text

    first_text = text(_FIRST)

    async def one(with_begin: bool, project_id: int) -> None:
        async with maker() as s:
            tag = uuid.uuid4().hex
            if with_begin:
                await begin_with(s, LastStatement(_FIRST, {"tag": tag}))
            else:
                (await s.execute(first_text, {"tag": tag})).one()
            run_last(s, LastStatement(_COUNT, {"project_id": project_id}, lambda: Refused()))
            await commit_last(s)

    async def batch(with_begin: bool) -> tuple[float, float]:
        sem = asyncio.Semaphore(FLIGHT)

        async def call(i: int) -> None:
            async with sem:
                await one(with_begin, i % FLIGHT)

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(call(i) for i in range(n)))
        return (time.process_time() - cpu) / n * 1000, (time.perf_counter() - wall) / n * 1000

    await batch(True)  # warm-up of both paths (statements prepared, pool full)
    await batch(False)
    print(f"{n} units a round, {FLIGHT} in flight; CPU ms / wall ms per unit (load at the end)")
    for r in range(rounds):
        order = (False, True) if r % 2 == 0 else (True, False)
        for with_begin in order:
            cpu, wall = await batch(with_begin)
            label = "begin_with  " if with_begin else "own BEGIN   "
            print(f"  round {r + 1} {label} cpu {cpu:.3f}  wall {wall:.3f}  "
                  f"(load {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
    await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mccgw-bench-begin-")))
        server_url, _ = stack.enter_context(counting_postgres(tmp))
        url = stack.enter_context(migrated_database(server_url, "mccgw_bench"))
        uvloop.run(run(url, args.n, args.rounds))


if __name__ == "__main__":
    main()
