"""One finality watcher per process.

Every write being awaited in this process is checked by a single loop: one ``check_many`` per
tick (one DB query and one getSignatureStatuses call per 256 signatures) instead of a DB read
and an RPC call per write per poll. Writes that have not landed are still driven one by one by
``check_many`` (re-send while valid, re-sign after expiry), so exactly-once is unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from chain.errors import ChainTimeout, ChainUnavailable, UnknownChainWrite

if TYPE_CHECKING:
    from chain.write_record import ChainWrite
    from chain.writes import ChainWrites

log = logging.getLogger(__name__)


class FinalityWatcher:
    def __init__(self, gateway: ChainWrites, interval: float) -> None:
        self._gateway = gateway
        self._interval = interval
        self._waiters: dict[str, list[asyncio.Future[ChainWrite]]] = {}
        self._task: asyncio.Task[None] | None = None

    async def wait(self, op_key: str, timeout: float) -> ChainWrite:  # noqa: ASYNC109
        """The write once final; ChainTimeout (retryable) if it is not within ``timeout``."""
        future: asyncio.Future[ChainWrite] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(op_key, []).append(future)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="chain-finality-watcher")
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            raise ChainTimeout(f"{op_key!r} not final after {timeout}s") from None
        finally:
            waiting = self._waiters.get(op_key, [])
            if future in waiting:
                waiting.remove(future)
            if not waiting:
                self._waiters.pop(op_key, None)

    async def _run(self) -> None:
        while self._waiters:
            keys = list(self._waiters)
            try:
                writes = await self._gateway.check_many(keys, drive=True)
            except ChainUnavailable as exc:  # waiters time out into a retry if it lasts
                log.info("finality watcher: chain unavailable (%s); still waiting", exc)
                writes = None
            except Exception as exc:
                log.exception("finality watcher: check failed")
                self._fail(keys, exc)
                writes = None
            if writes is not None:
                for key in keys:
                    write = writes.get(key)
                    if write is None:
                        self._fail([key], UnknownChainWrite(key))
                    elif write.final:
                        self._resolve(key, write)
            await asyncio.sleep(self._interval)

    def _resolve(self, key: str, write: ChainWrite) -> None:
        for future in self._waiters.pop(key, []):
            if not future.done():
                future.set_result(write)

    def _fail(self, keys: list[str], exc: BaseException) -> None:
        for key in keys:
            for future in self._waiters.pop(key, []):
                if not future.done():
                    future.set_exception(exc)
