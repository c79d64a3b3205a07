"""Gathering concurrent callers into batches, and one task per write: what batchers share.

``engine.settlement.Settler`` (transfers) and ``mining.minter.SharedMinter`` (mining rewards)
turn many concurrent callers (one Temporal activity each) into a few chain writes. Both are
built from the two pieces here:

- ``Gatherer``: a caller ``arrive(key)``s and waits. The arrivals that come together (within
  ``linger``, less once ``full`` are waiting; under load also those that pile up while the
  previous batch holds the slot; never more than ``full``) are taken as one batch by a handler,
  which answers each key and names the futures that say when the batch's writes are *sent*. The
  slot goes to the next batch only then, not once the writes are final: finality is awaited by
  many writes at once.
- ``TaskPerKey``: the one task per process driving a key (a write's op_key). Every caller
  awaits that same task, so a write is sent and booked once per process however many of its
  members (or their retries) wait on it.

Nothing here touches the database or the chain. Exactly once comes from the callers (a write is
named on its rows and committed before it is signed); this module only decides who waits for
what, and makes sure a failure reaches every waiter so that each activity fails and is retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")


@dataclass(frozen=True)
class Handled(Generic[K, R]):
    """What a handler made of a taken batch."""

    # Each key's answer; a key left out is answered None.
    answers: Mapping[K, R | BaseException]
    # The batch holds the slot until all of these are done (its writes are sent).
    sent: Collection[asyncio.Future[None]] = ()


class Gatherer(Generic[K, R]):
    """Callers that arrive together are handled as one batch, one batch at a time per slot.

    ``handle(keys)`` gets the keys taken together (in arrival order, each once) and returns
    their answers; an exception it raises is every key's answer. ``linger`` may be a callable,
    read at each batch, so that a setting changed on a running process takes effect.
    """

    def __init__(
        self,
        handle: Callable[[list[K]], Awaitable[Handled[K, R]]],
        *,
        linger: float | Callable[[], float],
        full: int,
        slots: int = 1,
        name: str,
    ) -> None:
        self._handle = handle
        self._linger = linger if callable(linger) else lambda: linger
        self._full = full
        self._name = name
        self._queue: list[K] = []
        self._waiting: dict[K, asyncio.Future[R | None]] = {}
        self._arrived = asyncio.Event()
        self._slots = asyncio.Semaphore(slots)
        self._batcher: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def arrive(self, key: K) -> R | None:
        """``key``'s answer from the batch it is taken in (None: the handler left it out). A
        key already waiting is not queued again: both callers get the one answer."""
        future = self._waiting.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._waiting[key] = future
            self._queue.append(key)
            self._arrived.set()
        # Started on first use (inside the running loop), and again should it ever have ended.
        if self._batcher is None or self._batcher.done():
            self._batcher = asyncio.create_task(self._gather(), name=self._name)
        # A cancelled caller (its activity timed out) must not cancel the answer of the others.
        return await asyncio.shield(future)

    async def _gather(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._arrived.wait()
            await self._slots.acquire()
            # Let callers started together meet: up to ``linger``, less once a full batch waits.
            until = loop.time() + self._linger()
            while len(self._queue) < self._full and loop.time() < until:
                self._arrived.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._arrived.wait(), until - loop.time())
            # At most a full batch: the rest wait for the next slot, as the arrivals that come
            # while this batch holds it do.
            taken, self._queue = self._queue[: self._full], self._queue[self._full :]
            self._arrived.clear()
            if self._queue:
                self._arrived.set()
            if not taken:
                self._slots.release()
                continue
            task = asyncio.create_task(self._take(taken))
            # The loop holds tasks weakly: without this a running batch could be collected.
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _take(self, keys: list[K]) -> None:
        try:
            handled = await self._handle(keys)
        except Exception as exc:
            self._slots.release()
            self._resolve(keys, exc)  # every member's activity fails and is retried
            return
        self._resolve(keys, handled.answers)
        try:
            if handled.sent:
                # Only until the writes are sent, not until they are final.
                await asyncio.wait(handled.sent)
        finally:
            self._slots.release()

    def _resolve(
        self, keys: list[K], answers: BaseException | Mapping[K, R | BaseException]
    ) -> None:
        for key in keys:
            future = self._waiting.pop(key, None)
            if future is None or future.done():
                continue
            answer = answers if isinstance(answers, BaseException) else answers.get(key)
            if isinstance(answer, BaseException):
                future.set_exception(answer)
            else:
                future.set_result(answer)


class TaskPerKey(Generic[K, R]):
    """The one task per process working on each key; every caller awaits the same task.

    A task is dropped once done (a later call starts a new one, which finds the work done or
    resumes it), and its exception, which every awaiting caller sees too, is logged once.
    """

    def __init__(self, name: str, *, what: str, logger: logging.Logger) -> None:
        self._name = name  # tasks are named "<name> <key>"
        self._what = what  # the log line says "<what> <key> stopped: <exception>"
        self._log = logger
        self._tasks: dict[K, asyncio.Task[R]] = {}

    def task(
        self,
        key: K,
        work: Callable[[Callable[[], None]], Coroutine[Any, Any, R]],
        *,
        sent: asyncio.Future[None] | None = None,
    ) -> asyncio.Task[R]:
        """The task working on ``key``; if none runs, one running ``work(mark_sent)``.

        ``sent`` resolves once the work calls ``mark_sent`` or ends (a task that failed or had
        nothing to send must not hold a batch's slot), or at once if the task already runs."""
        task = self._tasks.get(key)
        if task is None:

            def mark_sent() -> None:
                if sent is not None and not sent.done():
                    sent.set_result(None)

            task = asyncio.create_task(
                self._run(work(mark_sent), mark_sent), name=f"{self._name} {key}"
            )
            self._tasks[key] = task
            task.add_done_callback(lambda t: self._done(key, t))
        elif sent is not None:
            sent.set_result(None)
        return task

    @staticmethod
    async def _run(work: Coroutine[Any, Any, R], mark_sent: Callable[[], None]) -> R:
        try:
            return await work
        finally:
            mark_sent()

    def _done(self, key: K, task: asyncio.Task[R]) -> None:
        self._tasks.pop(key, None)
        if not task.cancelled() and (exc := task.exception()) is not None:
            # Every caller awaiting the task sees it too and is retried; logged once here.
            self._log.warning("%s %s stopped: %r", self._what, key, exc)
