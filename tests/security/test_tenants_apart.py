"""Issue 38 (security review 2026-11-28), the authorization half: tokens bound to their
audience (H1, L6), budgets no one else can spend (M1, M2), sign-in throttling that never shuts
out a shared address (L5), no 500 from a non-ASCII digit (L1), the e-mail rule on the profile
PATCH, and a /readyz that a flood cannot fan out onto the chain RPC. Each test fails on the
code before the issue (the report says with what)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.access.conftest import BASE
from tests.factories import World


def _from(app: FastAPI, address: str) -> httpx.AsyncClient:
    """A client whose requests come from ``address`` (a source with budgets of its own)."""
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url=BASE)


async def test_l1_a_non_ascii_digit_in_project_headers_is_a_401(
    client: httpx.AsyncClient, world: World
) -> None:
    project = await world.project()
    for headers in (
        {"X-Project-ID": b"\xb2", "X-API-Key": "x"},
        {
            "X-Project-ID": str(project.project_id),
            "X-Timestamp": b"\xb2",
            "X-Signature": "sha256=" + "0" * 64,
        },
    ):
        r = await client.get("/v1/projects/oauth-client", headers=headers)  # type: ignore[arg-type]
        assert r.status_code == 401, r.text
        assert r.headers["content-type"] == "application/problem+json"


def test_l1_the_sdk_refuses_a_non_ascii_webhook_timestamp() -> None:
    from mccgw_client.webhooks import StaleWebhook, verify_webhook

    headers = {"X-Service-Timestamp": "\u00b2", "X-Service-Signature": "sha256=00"}
    with pytest.raises(StaleWebhook):
        verify_webhook("secret", headers, b"{}")
