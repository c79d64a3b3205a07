"""The SDKs warn when the gateway says an operation is deprecated (``Deprecation``, RFC 9745):
once per operation and client, with its ``Sunset`` date and successor. The Python SDK here,
against the real app with an operation deprecated as a route declares it
(api/versions.deprecated); the TypeScript SDK in sdk/typescript/test/transport.test.ts."""

from __future__ import annotations

import warnings
from datetime import date
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mccgw_client import AsyncClient, DeprecatedOperationWarning

from api.versions import deprecated
from tests.sdk.conftest import BASE

OLD = "/v1/test-only/old-price"


@pytest.fixture
def deprecating(app: FastAPI) -> FastAPI:
    """The package's app with one deprecated operation more (added once)."""
    if not any(getattr(route, "path", None) == OLD for route in app.router.routes):

        async def old_price() -> dict[str, Any]:
            """An operation on its way out."""
            return {"status": "ok"}

        notice = deprecated(date(2026, 12, 1), date(2027, 12, 1), successor="/v1/mcc/price")
        app.add_api_route(OLD, old_price, methods=["GET"], **notice)
    return app


async def test_the_python_sdk_warns_once_per_deprecated_operation(
    deprecating: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    transport = httpx.ASGITransport(deprecating)
    async with AsyncClient(BASE, transport=transport) as gw:
        with pytest.warns(DeprecatedOperationWarning) as seen:
            first = await gw.get(OLD)
            await gw.get(OLD, params={"again": 1})  # the same operation: no second warning
        assert first.status_code == 200
        assert [str(w.message) for w in seen] == [
            f"mccgw: GET {OLD} is deprecated; sunset Wed, 01 Dec 2027 00:00:00 GMT; "
            "successor /v1/mcc/price"
        ]
        assert any("is deprecated" in r.getMessage() for r in caplog.records)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an operation that is not deprecated: silence
            assert (await gw.get("/versions")).status_code == 200
    # Another client warns again: the warning is per client, so a new process sees it too.
    async with AsyncClient(BASE, transport=httpx.ASGITransport(deprecating)) as other:
        with pytest.warns(DeprecatedOperationWarning):
            await other.get(OLD)
