"""Crash-safe on-disk state of the node: one SQLite file (WAL). Each slot's changes (accounts,
transactions, node meta) go in as one SQLite transaction, so a crash leaves the last whole
slot, never half of one."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (pubkey TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS versions (pubkey TEXT, pos INTEGER, slot INTEGER, data BLOB,
    PRIMARY KEY (pubkey, pos));
CREATE TABLE IF NOT EXISTS txs (signature TEXT PRIMARY KEY, slot INTEGER NOT NULL,
    seq INTEGER NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS addr_sigs (address TEXT NOT NULL, seq INTEGER NOT NULL,
    signature TEXT NOT NULL, PRIMARY KEY (address, seq));
CREATE INDEX IF NOT EXISTS txs_slot ON txs (slot);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS block_times (slot INTEGER PRIMARY KEY, time INTEGER NOT NULL);
"""

Versions = dict[Pubkey, list[tuple[int, Account | None]]]


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # WAL + NORMAL: commits are atomic and survive a process crash; cheap enough per slot.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    # -- loading -------------------------------------------------------------------------

    def load_meta(self) -> dict[str, Any] | None:
        row = self._db.execute("SELECT value FROM meta WHERE key='state'").fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def load_accounts(self) -> Iterator[tuple[Pubkey, Account]]:
        for key, data in self._db.execute("SELECT pubkey, data FROM accounts"):
            yield Pubkey.from_string(key), Account.from_bytes(data)

    def load_versions(self) -> Versions:
        out: Versions = {}
        rows = self._db.execute("SELECT pubkey, slot, data FROM versions ORDER BY pubkey, pos")
        for key, slot, data in rows:
            acc = None if data is None else Account.from_bytes(data)
            out.setdefault(Pubkey.from_string(key), []).append((slot, acc))
        return out

    def account_keys(self) -> list[Pubkey]:
        return [Pubkey.from_string(k) for (k,) in self._db.execute("SELECT pubkey FROM accounts")]

    def recent_txs(self, min_slot: int) -> Iterator[dict[str, Any]]:
        rows = self._db.execute("SELECT record FROM txs WHERE slot >= ? ORDER BY seq", (min_slot,))
        for (rec,) in rows:
            yield json.loads(rec)

    # -- queries -------------------------------------------------------------------------

    def get_tx(self, signature: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT record FROM txs WHERE signature=?", (signature,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def txs_in_slot(self, slot: int) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT record FROM txs WHERE slot = ? ORDER BY seq", (slot,))
        return [json.loads(r) for (r,) in rows]

    def block_time(self, slot: int) -> int | None:
        """Block times are stored when the second changes: a slot's is its latest entry's."""
        row = self._db.execute(
            "SELECT time FROM block_times WHERE slot <= ? ORDER BY slot DESC LIMIT 1", (slot,)
        ).fetchone()
        return None if row is None else int(row[0])

    def tx_seq(self, signature: str) -> int | None:
        row = self._db.execute("SELECT seq FROM txs WHERE signature=?", (signature,)).fetchone()
        return None if row is None else int(row[0])

    def signatures_for_address(
        self, address: str, before_seq: int | None, until_seq: int | None, limit: int
    ) -> list[dict[str, Any]]:
        """Newest first, strictly between `until_seq` and `before_seq`."""
        sql = (
            "SELECT t.record FROM addr_sigs a JOIN txs t ON t.signature = a.signature "
            "WHERE a.address = ? AND a.seq < ? AND a.seq > ? ORDER BY a.seq DESC LIMIT ?"
        )
        hi = before_seq if before_seq is not None else 2**62
        lo = until_seq if until_seq is not None else -1
        return [json.loads(r) for (r,) in self._db.execute(sql, (address, hi, lo, limit))]

    # -- writing -------------------------------------------------------------------------

    def commit(
        self,
        meta: dict[str, Any],
        accounts: dict[Pubkey, Account | None],
        txs: Iterable[tuple[dict[str, Any], list[str]]],
        versions: Versions | None,
        times: Iterable[tuple[int, int]] = (),
    ) -> None:
        """Write one slot's worth of changes atomically. `txs` holds (record, addresses);
        `versions` replaces the stored version table when not None; `times` adds
        (slot, block time) entries."""
        db = self._db
        db.execute("BEGIN")
        try:
            for key, acc in accounts.items():
                if acc is None:
                    db.execute("DELETE FROM accounts WHERE pubkey=?", (str(key),))
                else:
                    db.execute(
                        "INSERT OR REPLACE INTO accounts VALUES (?, ?)", (str(key), bytes(acc))
                    )
            for rec, addresses in txs:
                sig, seq = rec["signature"], rec["seq"]
                db.execute(
                    "INSERT OR REPLACE INTO txs VALUES (?, ?, ?, ?)",
                    (sig, rec["slot"], seq, json.dumps(rec, separators=(",", ":"))),
                )
                db.executemany(
                    "INSERT OR REPLACE INTO addr_sigs VALUES (?, ?, ?)",
                    [(a, seq, sig) for a in addresses],
                )
            if versions is not None:
                db.execute("DELETE FROM versions")
                db.executemany(
                    "INSERT INTO versions VALUES (?, ?, ?, ?)",
                    [
                        (str(k), i, s, None if a is None else bytes(a))
                        for k, vs in versions.items()
                        for i, (s, a) in enumerate(vs)
                    ],
                )
            db.executemany("INSERT OR REPLACE INTO block_times VALUES (?, ?)", times)
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('state', ?)",
                (json.dumps(meta, separators=(",", ":")),),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
