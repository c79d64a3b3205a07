"""Rolling a webhook endpoint's signing secret: the new secret shown once, deliveries signed
with both secrets during the overlap (space-separated, as Standard Webhooks allows), then only
with the new one."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.factories import World
from tests.webhooks.support import Receiver, project_headers, verify_signature
from tests.webhooks.test_webhooks import SECRET, emit_event, register


def _signatures(headers: dict[str, str]) -> list[str]:
    return {k.lower(): v for k, v in headers.items()}["x-service-signature"].split(" ")


async def test_roll_signs_with_both_until_expiry(
    client: httpx.AsyncClient,
    world: World,
    receiver: Receiver,
    worker: str,
    session_maker: async_sessionmaker[AsyncSession],
) -> None:
    creds = await world.project()
    endpoint_id = (await register(client, creds, receiver.url, secret=SECRET)).json()["data"]["id"]
    path = f"/v1/webhooks/{endpoint_id}/secret/roll"
    key = uuid.uuid4().hex
    body = {"expire_previous_in_seconds": 3600, "idempotency_key": key}
    r = await client.post(path, json=body, headers=project_headers(creds))
    assert r.status_code == 200, r.text
    attrs = r.json()["data"]["attributes"]
    new = attrs["secret"]
    assert new.startswith("whsec_") and new != SECRET
    expires = datetime.fromisoformat(attrs["previous_expires_at"].replace("Z", "+00:00"))
    assert timedelta(minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=1)
    # A retry with the same key replays the same secret (stored sealed), no second roll.
    again = await client.post(path, json=body, headers=project_headers(creds))
    assert again.json()["data"]["attributes"]["secret"] == new

    await emit_event(session_maker, creds.project_id)
    [got] = await receiver.wait_for(1)
    first, second = _signatures(got.headers)
    assert verify_signature(new, got.body, first)
    assert verify_signature(SECRET, got.body, second)

    # Rolled again with no overlap: only the newest secret signs.
    r = await client.post(
        path,
        json={"expire_previous_in_seconds": 0, "idempotency_key": uuid.uuid4().hex},
        headers=project_headers(creds),
    )
    newest = r.json()["data"]["attributes"]["secret"]
    assert r.json()["data"]["attributes"]["previous_expires_at"] is None
    await emit_event(session_maker, creds.project_id)
    got = (await receiver.wait_for(2))[1]
    assert _signatures(got.headers) == [_signatures(got.headers)[0]]
    assert verify_signature(newest, got.body, _signatures(got.headers)[0])

    other = await world.project()
    r = await client.post(
        path,
        json={"idempotency_key": uuid.uuid4().hex},
        headers=project_headers(other),
    )
    assert r.status_code == 404
    r = await client.post(
        path,
        json={"expire_previous_in_seconds": 8 * 24 * 3600, "idempotency_key": "x"},
        headers=project_headers(creds),
    )
    assert r.status_code == 422
