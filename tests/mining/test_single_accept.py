"""The single submission's accept (mining.accept.Acceptor.submit_one: one statement, then the
day's count at the commit point): the refusals and their order, the usage counted only for what
was recorded, a key lost to a concurrent request, and the webhook meta read in the same
SELECT."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.last import flush_last
from db.models.access import OAuthConsent
from db.models.mining import MiningSubmission
from mining.accept import Acceptor
from mining.errors import KeyReused
from mining.inputs import validated
from mining.reward import RewardFormula
from tests.factories import World
from tests.mining.test_batch import MCD, batch, mining_usage
from tests.mining.test_mining import activity, setup, submit

ONE_MCD = {"trade_volume_usdc": 0}  # the base reward alone: 1 MCD


async def rows_of(sessions: async_sessionmaker[AsyncSession], project_id: int) -> int:
    async with sessions() as s:
        count = await s.scalar(
            select(func.count())
            .select_from(MiningSubmission)
            .where(MiningSubmission.project_id == project_id)
        )
        return int(count or 0)


async def test_refusals_and_their_order(
    client: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    creds, uid = await setup(client, world)
    r = await submit(client, creds, activity(uid, creds.secret, data=ONE_MCD))
    assert r.status_code == 202, r.text
    meta = r.json()["meta"]
    assert meta["webhook_url"] is None and meta["webhook_note"].startswith("No webhook")

    # A key an earlier batch item recorded: 409, before the consent or the limits are looked at.
    item = activity(uid, creds.secret, data=ONE_MCD)
    await batch(client, creds, [item])
    stranger = await world.user()
    reused = activity(stranger.uid, creds.secret, data=ONE_MCD, key=item["idempotency_key"])
    r = await submit(client, creds, reused)
    assert r.status_code == 409 and r.json()["type"].endswith("/idempotency-key-reused"), r.text

    huge = {"trade_volume_usdc": 2_000_000}  # 2001 MCD: over the per-operation limit too
    reused_huge = activity(uid, creds.secret, data=huge, key=item["idempotency_key"])
    r = await submit(client, creds, reused_huge)
    assert r.json()["type"].endswith("/idempotency-key-reused"), r.text
    r = await submit(client, creds, activity(stranger.uid, creds.secret, data=huge))
    assert r.json()["type"].endswith("/user-not-authorized-for-project"), r.text

    # Consent without mining:write, or revoked: 403.
    await world.consent(stranger.uid, creds.project_id, scopes=["profile"])
    r = await submit(client, creds, activity(stranger.uid, creds.secret, data=ONE_MCD))
    assert r.status_code == 403, r.text
    async with session_maker() as s:
        await s.execute(
            update(OAuthConsent)
            .where(OAuthConsent.user_uid == uid, OAuthConsent.project_id == creds.project_id)
            .values(revoked_at=func.now())
        )
        await s.commit()
    r = await submit(client, creds, activity(uid, creds.secret, data=ONE_MCD))
    assert r.json()["type"].endswith("/user-not-authorized-for-project"), r.text
    assert await mining_usage(session_maker, creds.project_id) == 2 * MCD
    assert await rows_of(session_maker, creds.project_id) == 2


async def test_daily_limit_counts_nothing_and_says_why(
    client: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    creds = await world.project(limits={"mining": {"MCD": {"per_day": "2"}}})
    user = await world.user()
    await world.consent(user.uid, creds.project_id)
    for _ in range(2):
        r = await submit(client, creds, activity(user.uid, creds.secret, data=ONE_MCD))
        assert r.status_code == 202, r.text
    r = await submit(client, creds, activity(user.uid, creds.secret, data=ONE_MCD))
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["type"].endswith("/daily-limit-exceeded") and problem["limit"] == "2"
    assert problem["detail"].startswith("1 MCD would exceed the daily limit of 2 MCD for mining")
    assert await mining_usage(session_maker, creds.project_id) == 2 * MCD
    assert await rows_of(session_maker, creds.project_id) == 2


async def test_a_key_lost_to_a_concurrent_request_counts_nothing(
    app: FastAPI,
    client: httpx.AsyncClient,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds, uid = await setup(client, world)
    body = activity(uid, creds.secret, data=ONE_MCD)
    key, item = body["idempotency_key"], validated(body)

    def acceptor(session: AsyncSession) -> Acceptor:
        return Acceptor(
            session, app.state.redis, project_id=creds.project_id, decimals=9,
            formula=RewardFormula.of(app.state.settings),
        )  # fmt: skip

    # The first request has recorded the key and counted its amount (at its commit point) but
    # not committed yet: the second does not see it, waits for it on the key, then loses the
    # key before anything of it is counted.
    async with session_maker() as first, session_maker() as second:
        await acceptor(first).submit_one(body, item, key, f"wf-{uuid.uuid4()}")
        await flush_last(first)
        late = asyncio.create_task(
            acceptor(second).submit_one(body, item, key, f"wf-{uuid.uuid4()}")
        )
        await asyncio.sleep(0.3)
        assert not late.done()
        await first.commit()
        with pytest.raises(KeyReused):
            await late
        await second.commit()
    assert await mining_usage(session_maker, creds.project_id) == MCD
    assert await rows_of(session_maker, creds.project_id) == 1
