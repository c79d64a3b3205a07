"""The versioning policy as served (docs/versioning.md): ``GET /versions`` lists each path
version with its status and sunset; an operation marked deprecated says so in the document
(``deprecated: true``, ``x-sunset``) and on every answer (``Deprecation``, ``Sunset``)."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from api.versions import DOCUMENT_VERSION, deprecated

SINCE, SUNSET = date(2026, 12, 1), date(2027, 12, 1)


@pytest.fixture
async def app(app: FastAPI) -> FastAPI:
    """The test's own app with one operation more, deprecated the way a route declares it."""

    async def old_price() -> dict[str, Any]:
        """An operation on its way out."""
        return {"status": "ok"}

    app.add_api_route(
        "/v1/test-only/old-price", old_price, methods=["GET"],
        **deprecated(SINCE, SUNSET, successor="/v1/mcc/price"),
    )  # fmt: skip
    return app


async def test_versions_lists_each_path_version(client: httpx.AsyncClient, app: FastAPI) -> None:
    resp = await client.get("/versions")
    assert resp.status_code == 200, resp.text
    assert "deprecation" not in resp.headers and "sunset" not in resp.headers
    body = resp.json()
    assert body["meta"]["total"] == 1
    [v1] = body["data"]
    assert v1["type"] == "api_version" and v1["id"] == "v1"
    assert v1["attributes"] == {
        "version": "v1",
        "base_path": "/v1",
        "status": "current",
        "document_version": DOCUMENT_VERSION,
        "deprecated_at": None,
        "sunset_at": None,
    }
    assert app.openapi()["info"]["version"] == DOCUMENT_VERSION


async def test_a_deprecated_operation_says_so_on_every_answer(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    resp = await client.get("/v1/test-only/old-price")
    assert resp.status_code == 200, resp.text
    assert resp.headers["deprecation"] == "@1796083200"  # RFC 9745: 2026-12-01T00:00:00Z
    assert resp.headers["sunset"] == "Wed, 01 Dec 2027 00:00:00 GMT"  # RFC 8594
    assert resp.headers["link"] == '</v1/mcc/price>; rel="successor-version"'
    assert "x-request-id" in resp.headers
    operation = app.openapi()["paths"]["/v1/test-only/old-price"]["get"]
    assert operation["deprecated"] is True
    assert operation["x-deprecated-since"] == "2026-12-01"
    assert operation["x-sunset"] == "2027-12-01"
    # An operation that is not deprecated carries none of it.
    price = await client.get("/v1/mcc/price")
    assert not {"deprecation", "sunset"} & set(price.headers)


def test_a_deprecation_keeps_the_twelve_months() -> None:
    with pytest.raises(ValueError, match="12 months"):
        deprecated(SINCE, date(2027, 6, 1))
