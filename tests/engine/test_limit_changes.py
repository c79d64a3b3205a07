"""Issue 34: an administrator's change of a project's amount limits, and a user's withdrawal of
consent, take effect on the next request on every API process. Both are cached per process
(engine.limits, access.consent) and evicted by the NOTIFY their table's trigger sends at commit
(db.notify), not kept for a fixed time. Here the consent is withdrawn with plain SQL, as another
process (or an operator's script) would, so no in-process ``forget`` can help."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import httpx
from sqlalchemy import update

from db.models.access import OAuthConsent
from engine import limits
from tests.engine.conftest import Api
from tests.engine.test_transfers import transfer_body
from tests.factories import World
from tests.mining.test_mining import activity

# Far below the old 5 s caches: a notification arrives within milliseconds of the commit.
WITHIN = 1.0


async def _slug_within(call: Callable[[], Awaitable[httpx.Response]], slug: str) -> str:
    """The refusal's slug once it is ``slug``, or the last one seen after WITHIN seconds."""
    deadline = time.monotonic() + WITHIN
    while True:
        r = await call()
        seen = r.json().get("type", "").rsplit("/", 1)[-1] if r.status_code >= 400 else ""
        if seen == slug or time.monotonic() > deadline:
            return seen or str(r.status_code)
        await asyncio.sleep(0.02)


async def test_a_limits_patch_reaches_transfers_and_mining_at_once(api: Api, world: World) -> None:
    admin = await world.user("admin")
    admin_headers = {"Authorization": f"Bearer {await world.token(admin.uid, 'openid')}"}
    pid = api.project.project_id
    src, dst = await world.user(), await world.user()
    for user in (src, dst):
        await world.consent(user.uid, pid)

    def transfer() -> Awaitable[httpx.Response]:
        return api.post("/v1/transfer/request", transfer_body(src.uid, dst.uid, "10"))

    def mine() -> Awaitable[httpx.Response]:  # a reward of 3.045 MCD
        return api.post("/v1/mining/submit-activity", activity(src.uid, api.project.secret))

    # Within the default limits: the transfer passes them and meets the empty balance; the
    # submission is accepted. Both have read (and cached) the project's limits.
    r = await transfer()
    assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds"), r.text
    assert (await mine()).status_code == 202
    assert limits.OVERRIDES.listening and f"project:{pid}" in limits.OVERRIDES._entries

    r = await api.client.patch(
        f"/v1/admin/projects/{pid}",
        json={
            "limits": {
                "transfer": {"MCC": {"per_operation": "5"}},
                "mining": {"MCD": {"per_operation": "1"}},
            },
            "reason": "tighter",
        },
        headers=admin_headers,
    )
    assert r.status_code == 200, r.text
    assert await _slug_within(transfer, "amount-limit-exceeded") == "amount-limit-exceeded"
    assert await _slug_within(mine, "amount-limit-exceeded") == "amount-limit-exceeded"


async def test_a_withdrawn_consent_bites_at_once(api: Api, world: World) -> None:
    pid = api.project.project_id
    src, dst = await world.user(), await world.user()
    for user in (src, dst):
        await world.consent(user.uid, pid)

    def transfer() -> Awaitable[httpx.Response]:
        return api.post("/v1/transfer/request", transfer_body(src.uid, dst.uid, "1"))

    r = await transfer()  # authorized (and cached so): refused only for its empty balance
    assert r.status_code == 422 and r.json()["type"].endswith("/insufficient-funds"), r.text
    async with world.sessions() as s:
        await s.execute(
            update(OAuthConsent)
            .where(OAuthConsent.user_uid == src.uid, OAuthConsent.project_id == pid)
            .values(revoked_at=datetime.now(UTC))
        )
        await s.commit()
    slug = "user-not-authorized-for-project"
    assert await _slug_within(transfer, slug) == slug
