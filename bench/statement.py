"""What one statement of the worker's write path costs the client, four ways (issue 43,
proposal 26: is the write path worth taking from SQLAlchemy to the driver?).

The statement is the write record's own ``WriteRecord.sent`` (``chain/write_record.py``
``_SENT``: an UPDATE of the record and, through its RETURNING, of its attempt), on a record
created for it, run in autocommit as ``ChainWrites._send`` runs it:

- ``session``: ``async with db.last.autocommit(sessions)``, then ``WriteRecord.sent``: as the
  worker does today;
- ``session, driver``: the same session, the statement (compiled once) sent on its driver
  connection (psycopg's ``AsyncConnection.execute``), as ``db.last.begin_with`` sends one;
- ``connection, driver``: no session: a pooled connection (``engine.connect()``, AUTOCOMMIT)
  and the driver;
- ``psycopg alone``: one psycopg connection held open, the compiled statement: the floor.

CPU is this process's, per statement, ``--n`` a round, one at a time; the four ways in turn
in each of ``--rounds`` rounds (the order turned every round), the median printed.

    .venv/bin/python -m bench.statement [--n 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solders.signature import Signature

from bench._pg import counting_postgres
from bench._report import record
from chain.write_record import _SENT, Signed, WriteRecord
from core.config import Settings
from db.last import autocommit
from db.session import create_db_engine, create_session_maker
from tests.services import migrated_database


async def run(url: str, n: int, rounds: int) -> dict[str, float]:
    engine = create_db_engine(Settings(environment="test", database_url=url))
    maker = create_session_maker(engine)
    op_key, signature = f"bench-statement-{uuid.uuid4().hex}", str(Signature.new_unique())
    async with maker() as session:
        signed = Signed(signature, "11111111111111111111111111111111", 100, b"tx")
        await WriteRecord.create(
            session, signed, op_key=op_key, kind="bench", commitment="finalized",
            payload_hash="h", fee_payer="p", meta={},
        )  # fmt: skip
        await session.commit()
    compiled = _SENT.compile(dialect=engine.dialect)
    sql = str(compiled)

    def params() -> Any:
        values = {"p_op_key": op_key, "p_signature": signature, "p_error": None}
        return compiled.construct_params({**values, "p_sent_at": datetime.now(UTC)})

    async def session_way() -> None:
        async with autocommit(maker) as session:
            await WriteRecord.sent(session, op_key, signature, None)

    async def session_driver() -> None:
        async with autocommit(maker) as session:
            connection = await session.connection()
            raw = (await connection.get_raw_connection()).driver_connection
            assert raw is not None
            await raw.execute(sql, params())

    async def connection_driver() -> None:
        async with engine.connect() as connection:
            plain = await connection.execution_options(isolation_level="AUTOCOMMIT")
            raw = (await plain.get_raw_connection()).driver_connection
            assert raw is not None
            await raw.execute(sql, params())

    alone = await psycopg.AsyncConnection.connect(
        url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True
    )

    async def psycopg_alone() -> None:
        await alone.execute(sql, params())

    ways: dict[str, Callable[[], Awaitable[None]]] = {
        "session": session_way,
        "session, driver": session_driver,
        "connection, driver": connection_driver,
        "psycopg alone": psycopg_alone,
    }

    async def cpu_per_call(one: Callable[[], Awaitable[None]]) -> float:
        began = time.process_time()
        for _ in range(n):
            await one()
        return (time.process_time() - began) * 1000 / n

    for one in ways.values():  # warm-up: statements prepared, the pool full
        await cpu_per_call(one)
    seen: dict[str, list[float]] = {name: [] for name in ways}
    print(f"{n} statements a round, one at a time; CPU ms per statement")
    for r in range(rounds):
        order = list(ways) if r % 2 == 0 else list(reversed(ways))
        for name in order:
            seen[name].append(await cpu_per_call(ways[name]))
        shown = "  ".join(f"{name} {seen[name][-1]:.3f}" for name in ways)
        print(f"  round {r + 1}: {shown}  (load {os.getloadavg()[0]:.2f})", flush=True)
    await alone.close()
    await engine.dispose()
    medians = {name: statistics.median(values) for name, values in seen.items()}
    floor = medians["psycopg alone"]
    print(f"median of {rounds} rounds (CPU ms per statement; beside psycopg alone):")
    for name, value in medians.items():
        print(f"  {name:20s} {value:.3f}   {value / floor:.2f}x")
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mccgw-bench-stmt-")))
        server_url, _ = stack.enter_context(counting_postgres(tmp))
        url = stack.enter_context(migrated_database(server_url, "mccgw_bench"))
        medians = uvloop.run(run(url, args.n, args.rounds))
    record(
        "statement", {name.replace(", ", "_").replace(" ", "_"): v for name, v in medians.items()}
    )


if __name__ == "__main__":
    main()
