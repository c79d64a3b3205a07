"""A PostgreSQL server that counts statements, for the cost accounting (bench/costs.py).

pgserver (the embedded server of the tests) ships no contrib modules, so it cannot load
``pg_stat_statements``. This starts a private cluster of the machine's own PostgreSQL instead
(Debian's ``postgresql`` + ``postgresql-contrib``, which this project's machines carry:
``/usr/lib/postgresql/<version>``) with the module preloaded, in a temporary directory, on a
unix socket only, as the ``postgres`` system user when run as root (PostgreSQL refuses root).
Where no such installation exists it falls back to pgserver, and the SQL counts are ``None``
(printed ``nan``): every other figure of the bench is still measured.

``SqlCounter`` reads, for one database only (other databases of the server are not counted):
statements executed (``pg_stat_statements`` calls, BEGIN and COMMIT included: each is a round
trip, but for the statements ``db.last`` pipelines with a COMMIT) and transactions (BEGINs)
since its last ``reset``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench._load import stop
from core.embedded import die_with_parent

MODULE = "pg_stat_statements"


def _installation() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>`` that has the module (or None)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob(f"*/lib/{MODULE}.so"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent.parent if found else None


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0 and shutil.which("runuser"):
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@contextlib.contextmanager
def counting_postgres(tmp: Path) -> Iterator[tuple[str, bool]]:
    """(a server URL for ``tests.services.migrated_database``, whether it counts statements)."""
    home = _installation()
    if home is None or (os.geteuid() == 0 and not _has_user("postgres")):
        from core.embedded import EmbeddedPostgres

        embedded = EmbeddedPostgres(tmp / "pg")
        try:
            yield embedded.url(), False
        finally:
            embedded.stop()
        return
    data = tmp / "pgss"
    data.mkdir(parents=True)
    if os.geteuid() == 0:
        shutil.chown(data, "postgres", "postgres")
        tmp.chmod(0o755)
    subprocess.run(
        _as_postgres([str(home / "bin" / "initdb"), "-D", str(data), "-U", "postgres",
                      "--auth=trust", "--encoding=utf8", "--no-sync"]),
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    server = subprocess.Popen(
        _as_postgres([
            str(home / "bin" / "postgres"), "-D", str(data), "-k", str(data),
            "-c", "listen_addresses=", "-c", f"shared_preload_libraries={MODULE}",
            "-c", "max_connections=200",  # {MODULE}.track=top: the clients' statements only
        ]),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent,
    )  # fmt: skip
    url = f"postgresql+psycopg://postgres@/postgres?host={data}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(f"host={data} user=postgres dbname=postgres"):
                    break
            except psycopg.OperationalError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the counting PostgreSQL did not start") from None
                time.sleep(0.1)
        yield url, True
    finally:
        stop(server)


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


API_ROLE = "mccgw_api"  # the API connects as this role, so its statements are told apart


def as_api(url: str) -> str:
    """The database URL the API uses: the same database as another role."""
    return url.replace("://postgres@", f"://{API_ROLE}@", 1)


@dataclass(frozen=True)
class SqlCounts:
    statements: int  # every statement the clients sent, BEGIN and COMMIT included
    transactions: int  # BEGINs: every transaction of the stack's clients opens with one
    by_query: dict[str, int]  # "<API|worker>: <statement text, normalized>" -> calls
    api_statements: int  # of ``statements``, the API's


class SqlCounter:
    """Statements and transactions of one database since ``reset``; ``read`` gives None when
    the server does not count statements."""

    def __init__(self, plain_url: str, counting: bool) -> None:
        self._url = plain_url
        self.counting = counting
        if counting:
            with psycopg.connect(plain_url, autocommit=True) as conn:
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {MODULE}")
                if not conn.execute(
                    "SELECT 1 FROM pg_roles WHERE rolname = %s", (API_ROLE,)
                ).fetchone():
                    conn.execute(f"CREATE ROLE {API_ROLE} SUPERUSER LOGIN")

    def reset(self) -> None:
        if self.counting:
            with psycopg.connect(self._url, autocommit=True) as conn:
                conn.execute(f"SELECT {MODULE}_reset()")

    def read(self) -> SqlCounts | None:
        if not self.counting:
            return None
        with psycopg.connect(self._url, autocommit=True) as conn:
            rows = conn.execute(
                f"SELECT r.rolname, s.query, s.calls FROM {MODULE} s "
                "JOIN pg_database d ON d.oid = s.dbid JOIN pg_roles r ON r.oid = s.userid "
                "WHERE d.datname = current_database()"
            ).fetchall()
        return sql_counts([(str(r), str(q), int(c)) for r, q, c in rows])


def sql_counts(rows: list[tuple[str, str, int]]) -> SqlCounts:
    """The stack's statements from (role, statement, calls) rows (this counter's own left
    out), its transactions, and the API's share."""
    mine: dict[str, int] = {}
    for role, query, calls in rows:
        if MODULE in query:
            continue
        key = f"{'API' if role == API_ROLE else 'worker'}: {' '.join(query.split())}"
        mine[key] = mine.get(key, 0) + calls
    begins = sum(c for q, c in mine.items() if q.split(": ", 1)[1].upper().startswith("BEGIN"))
    api = sum(c for q, c in mine.items() if q.startswith("API: "))
    return SqlCounts(sum(mine.values()), begins, mine, api)
