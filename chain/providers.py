"""Several RPC providers behind the one door (``SOLANA_RPC_URLS``; ``chain/rpc.py`` routes
through them, docs/chain.md "Several providers").

Each provider's health, as this process sees it: its latency and error rate (moving averages
of its answers), its consecutive failures, and its slot (each probe asks ``getSlot``; the lag is
how far it is behind the highest slot any provider reported). The rule:

- **reads** go to the healthiest provider on the bench's right side: not lagging more than 2
  slots first, then the lowest error rate, then the lowest latency; on a failure the next one
  is tried at once, and a pause (backoff, ``Retry-After``) comes only once every provider failed;
- **sends** go to every healthy provider at once (the same bytes: one signature, landed at most
  once by the runtime);
- **a signature's status** is asked of every healthy provider and taken from any that has it
  (the furthest along); the context slot of the merged answer is the highest any reported, so
  a "not landed" is only ever believed from a provider that saw the finalized slot
  (``ChainReads.chain_view``), never from a lagging one alone;
- **the bench**: a provider that fails ``fail_limit`` times in a row, or whose probe shows it
  more than ``max_lag`` slots behind, is benched for ``bench_seconds``; probes go on (every
  ``probe_interval``), and it returns once a probe finds it answering and caught up. With every
  provider benched, the least bad one still gets the requests: a chain operation never stops
  because the door gave up on all of them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chain.door import provider_of

CONFIRMATION_RANK = {None: 0, "processed": 1, "confirmed": 2, "finalized": 3}


@dataclass
class Provider:
    url: str
    name: str
    latency: float = 0.05  # moving average, seconds
    errors: float = 0.0  # moving average of failures (0..1)
    failures: int = 0  # in a row
    slot: int = 0  # the highest slot its probes reported
    benched_until: float = 0.0


class Providers:
    """The providers of one transport and their health."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        max_lag: int = 30,
        fail_limit: int = 3,
        bench_seconds: float = 5.0,
        probe_interval: float = 1.0,
    ) -> None:
        if not urls:
            raise ValueError("at least one RPC provider")
        names = [provider_of(u) for u in urls]
        if len(set(names)) < len(names):  # two paths on one host: tell them apart
            names = [f"{n}#{i}" for i, n in enumerate(names)]
        self.all = [Provider(u, n) for u, n in zip(urls, names, strict=True)]
        self.max_lag = max_lag
        self.fail_limit = fail_limit
        self.bench_seconds = bench_seconds
        self.probe_interval = probe_interval

    @property
    def several(self) -> bool:
        return len(self.all) > 1

    def lag(self, p: Provider) -> int:
        return max(q.slot for q in self.all) - p.slot

    def benched(self, p: Provider, now: float | None = None) -> bool:
        return p.benched_until > (time.monotonic() if now is None else now)

    def ranked(self) -> list[Provider]:
        """Healthy providers, the healthiest first; every provider when all are benched."""
        now = time.monotonic()
        healthy = [p for p in self.all if not self.benched(p, now)]
        pool = healthy or sorted(self.all, key=lambda p: p.benched_until)[:1]
        return sorted(pool, key=lambda p: (self.lag(p) > 2, round(p.errors, 1), p.latency))

    def pick(self, tried: set[str]) -> Provider | None:
        """The healthiest provider not tried yet in this round, or None."""
        return next((p for p in self.ranked() if p.name not in tried), None)

    def answered(self, p: Provider, seconds: float) -> None:
        p.failures = 0
        p.errors *= 0.9
        p.latency = 0.8 * p.latency + 0.2 * seconds

    def failed(self, p: Provider) -> None:
        p.failures += 1
        p.errors = 0.9 * p.errors + 0.1
        if p.failures >= self.fail_limit:
            p.benched_until = time.monotonic() + self.bench_seconds

    def probed(self, p: Provider, slot: int | None) -> None:
        """A probe's answer (None: it failed): bench a lagging provider, bring back one that
        caught up and answers."""
        if slot is None:
            self.failed(p)
            return
        p.slot, p.failures = slot, 0
        lagging = self.lag(p) > self.max_lag
        p.benched_until = time.monotonic() + self.bench_seconds if lagging else 0.0

    def health(self) -> list[dict[str, Any]]:
        """What this process thinks of each provider (logs, tests)."""
        return [
            {
                "provider": p.name,
                "benched": self.benched(p),
                "lag": self.lag(p),
                "errors": round(p.errors, 3),
                "latency": round(p.latency, 4),
            }
            for p in self.all
        ]


def merge_statuses(answers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``getSignatureStatuses`` results of several providers as one: each signature's status
    from any provider that has it (the furthest confirmed), the highest context slot."""
    merged: list[dict[str, Any] | None] = list(answers[0]["value"])
    for answer in answers[1:]:
        for i, status in enumerate(answer["value"]):
            mine = merged[i]
            if status is not None and (
                mine is None
                or CONFIRMATION_RANK.get(status.get("confirmationStatus"), 0)
                > CONFIRMATION_RANK.get(mine.get("confirmationStatus"), 0)
            ):
                merged[i] = status
    context = max((a["context"] for a in answers), key=lambda c: int(c["slot"]))
    return {"context": context, "value": merged}
