"""The worker's one deposit scanner while it follows the chain (WorkerDeps.deposits): a newly
watched account is heard of by NOTIFY on the worker's one listener (db/notify.py) and caught
up at once, not at the next look (every 30 s while listening), and a deposit to it is credited
while the scanner follows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from sqlalchemy import select

from activities.deps import WorkerDeps
from db.models.tokens import CustodyWatch, Deposit
from devchain.outside import OutsideWallet
from tests.factories import World
from tests.tokens.conftest import UNIT
from tokens.deposits import deposit_address, register


async def until(probe: Callable[[], Awaitable[object]], seconds: float) -> None:
    async with asyncio.timeout(seconds):
        while not await probe():  # noqa: ASYNC110 (a database row, no event to wait on)
            await asyncio.sleep(0.05)


async def test_a_newly_watched_account_is_heard_of_by_notify_and_its_deposit_credited(
    world: World, deps: WorkerDeps, outsider: OutsideWallet
) -> None:
    scanner = deps.deposits

    async def watch() -> str:
        uid = (await world.user()).uid
        async with deps.sessions() as session:
            await register(session, deps.gateway, uid, "MCC")
            await session.commit()
        return uid

    def ready(uid: str) -> Callable[[], Awaitable[bool]]:
        address, _ = deposit_address(deps.gateway.keys, uid, "MCC")

        async def probe() -> bool:
            async with deps.sessions() as session:
                return bool(
                    await session.scalar(
                        select(CustodyWatch.ready).where(CustodyWatch.address == address)
                    )
                )

        return probe

    first = await watch()  # a watched set that is not empty: the follower looks every 30 s
    stop = asyncio.Event()
    following = asyncio.create_task(scanner.follow(90, poll=0.1, stop=stop))
    try:
        await until(ready(first), 30)

        async def listening() -> bool:
            return scanner.listening

        await until(listening, 10)
        await asyncio.sleep(2.0)  # past its last look: the next one is about 30 s away
        began = time.monotonic()
        uid = await watch()
        await until(ready(uid), 25)
        took = time.monotonic() - began
        assert took < 10.0, f"the new account was caught up after {took:.1f} s"

        custody = deps.gateway.custody_address(uid, "MCC")
        sig = await outsider.deposit(deps.gateway, "MCC", custody, 2 * UNIT)

        async def credited() -> bool:
            async with deps.sessions() as session:
                outcome = await session.scalar(
                    select(Deposit.outcome).where(Deposit.signature == sig)
                )
            return outcome == "credited"

        await until(credited, 20)
    finally:
        stop.set()
        await following
