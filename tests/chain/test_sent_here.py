"""``chain.sent_here.SentHere``: the signatures a process sent lately, the oldest forgotten
first, by age and by number (its memory is bounded)."""

from __future__ import annotations

import pytest

from chain import sent_here
from chain.sent_here import SentHere


def test_the_oldest_signatures_are_forgotten_by_number_and_a_resend_renews_one() -> None:
    sent = SentHere(keep_seconds=60.0, most=3)
    for signature in ("a", "b", "c"):
        sent.add(signature)
    sent.add("a")  # sent again: now the newest
    sent.add("d")
    assert [s for s in "abcd" if s in sent] == ["a", "c", "d"] and len(sent) == 3


def test_signatures_older_than_the_keep_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(sent_here.time, "monotonic", lambda: now[0])
    sent = SentHere(keep_seconds=10.0)
    sent.add("old")
    now[0] += 5.0
    sent.add("newer")
    now[0] += 6.0  # "old" is 11 s old, "newer" 6 s
    sent.add("newest")
    assert "old" not in sent and "newer" in sent and "newest" in sent
