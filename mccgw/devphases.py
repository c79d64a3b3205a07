"""Start-up phases of ``mccgw dev``, each logged at INFO when it starts and when it ends, with
its duration and its end as seconds since start-up began: an operator sees progress on long
work, and where the time of a start goes (docs/dev-startup.md). Phases may overlap; the
banner's summary lists each one's own duration."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from types import TracebackType

log = logging.getLogger("mccgw.dev")


def configure_output() -> None:
    """``[mccgw dev] HH:MM:SS.mmm message`` lines on stdout, at INFO (once per process)."""
    if log.handlers:
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        logging.Formatter("[mccgw dev] %(asctime)s.%(msecs)03d %(message)s", "%H:%M:%S")
    )
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


class Phases:
    """``with phases("migrations"):`` or ``async with phases("..."):`` around each phase."""

    def __init__(self, started: float | None = None) -> None:
        self.started = time.monotonic() if started is None else started
        self.done: list[tuple[str, float, float]] = []  # (name, duration, end since start)

    def __call__(self, name: str) -> _Phase:
        return _Phase(self, name)

    def begin(self, name: str) -> _Phase:
        """A phase that ends elsewhere (``.end()``): a service started in the background."""
        return _Phase(self, name).__enter__()

    def summary(self) -> str:
        return ", ".join(f"{name} {took:.1f}s" for name, took, _ in self.done)


class _Phase:
    def __init__(self, phases: Phases, name: str) -> None:
        self.phases = phases
        self.name = name
        self.t0 = 0.0

    def __enter__(self) -> _Phase:
        self.t0 = time.monotonic()
        log.info("%s ...", self.name)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        now = time.monotonic()
        took, at = now - self.t0, now - self.phases.started
        if kind is None:
            self.phases.done.append((self.name, took, at))
            log.info("%s: done in %.1fs (at %.1fs)", self.name, took, at)
        elif issubclass(kind, (asyncio.CancelledError, KeyboardInterrupt, GeneratorExit)) or (
            kind.__name__ == "StopRequested"  # mccgw.dev's Ctrl-C
        ):
            log.info("%s: interrupted after %.1fs", self.name, took)
        else:
            log.info("%s: failed after %.1fs (%s)", self.name, took, kind.__name__)

    def end(self) -> None:
        self.__exit__(None, None, None)

    async def __aenter__(self) -> _Phase:
        return self.__enter__()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(kind, exc, tb)


NO_PHASES = Phases()  # for callers outside `mccgw dev`: the phases still log, at INFO
