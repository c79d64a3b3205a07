"""webhooks.endpoints, the service both registration paths call: the limit of live endpoints per
project, the generated secret's format, and where a mining outcome is sent (``outcome_url``, and
the same rule as SQL text in mining's one-statement accept)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from core.config import Settings
from core.errors import InvalidState
from core.security import decrypt_secret
from tests.factories import World
from webhooks import endpoints

URL = "https://hooks.example/in"
EVENT = "mining.reward.confirmed"


def _key(settings: Settings) -> endpoints.MasterKey:
    return endpoints.MasterKey.of(settings)


async def test_a_project_registers_at_most_max_endpoints_and_a_deleted_one_frees_a_place(
    world: World, session_maker: async_sessionmaker[AsyncSession], settings: Settings
) -> None:
    project_id = (await world.project()).project_id
    async with session_maker() as s:
        made = [
            await endpoints.register(s, project_id, URL, [EVENT], master_key=_key(settings))
            for _ in range(endpoints.MAX_ENDPOINTS)
        ]
        with pytest.raises(InvalidState, match=f"at most {endpoints.MAX_ENDPOINTS}"):
            await endpoints.register(s, project_id, URL, [EVENT], master_key=_key(settings))
        await endpoints.delete(s, project_id, made[0].endpoint.id)
        own = "whsec_own_secret_0123456789"
        again = await endpoints.register(s, project_id, URL, None, own, master_key=_key(settings))
        await s.commit()
    # Generated secrets: whsec_ and 64 hex digits, kept encrypted; the caller's own is kept as
    # given and not handed back.
    first = made[0]
    assert first.secret is not None and first.secret.startswith("whsec_")
    assert len(first.secret) == len("whsec_") + 64
    keys = {settings.master_key_id: settings.master_key}
    assert decrypt_secret(first.endpoint.secret_encrypted, keys) == first.secret
    assert first.endpoint.id.startswith("whk_") and len({m.secret for m in made}) == len(made)
    assert again.secret is None
    assert decrypt_secret(again.endpoint.secret_encrypted, keys) == "whsec_own_secret_0123456789"
    assert set(again.endpoint.events) >= {EVENT, "transfer.completed"}  # None: every kind


async def test_the_outcome_goes_to_the_first_active_subscribed_endpoint_in_both_forms(
    world: World, session_maker: async_sessionmaker[AsyncSession], settings: Settings
) -> None:
    project_id = (await world.project()).project_id
    as_text = text(f"SELECT {endpoints.outcome_url_sql(EVENT)}")

    async def both(s: AsyncSession) -> tuple[str | None, str | None]:
        orm = await endpoints.outcome_url(s, project_id, EVENT)
        return orm, await s.scalar(as_text, {"project_id": project_id})

    async def register(url: str, events: list[str] | None) -> str:
        async with session_maker() as s:  # one transaction each: created_at tells them apart
            made = await endpoints.register(s, project_id, url, events, master_key=_key(settings))
            await s.commit()
            return made.endpoint.id

    async with session_maker() as s:
        assert await both(s) == (None, None)
    await register("https://a.example/other", ["funds.locked"])
    async with session_maker() as s:
        assert await both(s) == (None, None)  # not subscribed to the event
    first = await register("https://b.example/first", [EVENT])
    await register("https://c.example/second", None)
    async with session_maker() as s:
        assert await both(s) == ("https://b.example/first", "https://b.example/first")
        await endpoints.update(s, project_id, first, enabled=False, master_key=_key(settings))
        assert await both(s) == ("https://c.example/second", "https://c.example/second")
