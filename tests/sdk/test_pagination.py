"""Pagination helpers: every page of a real list, via page/per_page and meta.total."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from mccgw_client import ApiKeyAuth, AsyncClient, Client, HmacAuth

from tests.factories import World
from tests.sdk.conftest import BASE


async def test_pages_of_a_real_list(app: FastAPI, world: World) -> None:
    # The endpoints listed are on this machine: the sdk app allows loopback (tests/sdk/conftest).
    creds = await world.project()
    transport = httpx.ASGITransport(app=app)
    async with AsyncClient(
        BASE, HmacAuth(creds.project_id, creds.secret), transport=transport
    ) as gw:
        created = []
        for n in range(7):
            answer = await gw.post(
                "/v1/webhooks/register",
                json={"url": f"http://127.0.0.1:9/hook-{n}", "events": ["transfer.completed"]},
            )
            assert answer.status_code == 201, answer.body
            created.append(answer.data["id"])
        pages = [p async for p in gw.pages("/v1/webhooks", per_page=3)]
        items = [item async for item in gw.paginate("/v1/webhooks", per_page=2)]
        later = [p async for p in gw.pages("/v1/webhooks", per_page=3, start=3)]
    assert [len(p.items) for p in pages] == [3, 3, 1]
    assert [p.page for p in pages] == [1, 2, 3] and {p.total for p in pages} == {7}
    assert pages[-1].is_last and not pages[0].is_last
    assert sorted(i["id"] for p in pages for i in p.items) == sorted(created)
    assert sorted(i["id"] for i in items) == sorted(created)  # 4 pages of 2
    assert [len(p.items) for p in later] == [1]


def test_without_total_stops_on_a_short_page() -> None:
    served: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        served.append(request.url.params["page"])
        page, per_page = int(request.url.params["page"]), int(request.url.params["per_page"])
        rows = list(range(5))[(page - 1) * per_page : page * per_page]
        return httpx.Response(200, json={"data": rows, "meta": {"request_id": "r"}})

    with Client(BASE, ApiKeyAuth(1, "s"), transport=httpx.MockTransport(handler)) as gw:
        assert list(gw.paginate("/v1/things", per_page=2, params={"status": "all"})) == [
            0,
            1,
            2,
            3,
            4,
        ]
    assert served == ["1", "2", "3"]
