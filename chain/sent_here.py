"""The signatures this process sent lately: what its deposit follower may leave unread.

Every block the deposit follower walks (``tokens/deposit_watch.py``) holds the gateway's own
transfers and mints while it works: their token balance changes touch watched custody accounts,
so each was parsed, matched, classified and then dropped by ``tokens.deposits.book`` after a
look-up of its signature in the write records (``chain.tx_store.known_signatures``), in a
transaction of its own per run of blocks (issue 43, proposal 27: about a tenth of a busy
worker's CPU). A signature this process broadcast (``ChainWrites._send``) is the gateway's by
construction: its record was committed before the send. The follower skips such a
transaction before reading it; one this process does not know (another worker's, or one sent
before a restart or longer ago than ``keep_seconds``) still goes to the database, so nothing
the gateway signed is ever taken for a deposit, and nothing else is skipped.
"""

from __future__ import annotations

import time

# Long enough for a sent transaction to land (its blockhash lives about 60-90 s) and finalize
# (about 13 s), and for a follower that fell behind for a few minutes; a re-send renews it.
KEEP_SECONDS = 600.0
# A bound on the memory (a signature is about 200 bytes here): the oldest go first.
MOST = 100_000


class SentHere:
    """A set of recently sent signatures, oldest forgotten first (after ``keep_seconds``, or
    when more than ``most`` are held). Only ``add`` and ``in``: nothing waits, nothing I/O."""

    def __init__(self, keep_seconds: float = KEEP_SECONDS, most: int = MOST) -> None:
        self._keep = keep_seconds
        self._most = most
        self._at: dict[str, float] = {}  # in the order they were (last) sent

    def add(self, signature: str) -> None:
        now = time.monotonic()
        at = self._at
        at.pop(signature, None)
        at[signature] = now
        oldest = now - self._keep
        while len(at) > self._most or next(iter(at.values())) < oldest:
            del at[next(iter(at))]

    def __contains__(self, signature: object) -> bool:
        return signature in self._at

    def __len__(self) -> int:
        return len(self._at)
