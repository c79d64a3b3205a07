"""Every problem slug maps to its own exception class, carrying slug, status, title, detail and
the whole body; the real app's problems arrive typed."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from mccgw_client import ApiKeyAuth, AsyncClient, HmacAuth, ProblemError
from mccgw_client import errors as E

from tests.factories import World
from tests.sdk.conftest import BASE, Consented

ROOT = Path(__file__).resolve().parents[2]

# The table "Status codes and error slugs" of shared/spec/decisions.md (plus invalid-amount
# from its "Money and amounts"), with the status each slug is answered with.
DECISIONS = {
    "malformed-request": 400,
    "unsupported-media-type": 415,
    "validation-error": 422,
    "unauthorized": 401,
    "insufficient-scope": 403,
    "invalid-signature": 401,
    "stale-timestamp": 401,
    "unknown-project": 401,
    "invalid-api-key": 401,
    "user-not-authorized-for-project": 403,
    "admin-required": 403,
    "not-found": 404,
    "idempotency-key-reused": 409,
    "idempotency-key-in-use": 409,
    "invalid-state": 409,
    "pending-application-exists": 409,
    "insufficient-funds": 422,
    "amount-limit-exceeded": 422,
    "daily-limit-exceeded": 422,
    "payload-too-large": 413,
    "rate-limit-exceeded": 429,
    "service-unavailable": 503,
    "invalid-amount": 422,
}


def slugs_in_access_doc() -> set[str]:
    table = (ROOT / "docs" / "access.md").read_text().split("## Error slugs", 1)[1]
    return set(re.findall(r"`([a-z]+(?:-[a-z]+)+)`", table.split("## For route authors")[0]))


def slugs_in_gateway_source() -> set[str]:
    """Slugs the gateway's code can answer with (literal slug arguments and tables)."""
    found: set[str] = set()
    packages = ["api", "engine", "onboarding", "mining", "ledger", "events", "core"]
    packages += ["organizations", "profiles", "tokens", "views", "chain"]
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            if path.is_relative_to(ROOT / "api" / "console"):
                continue  # the operator console answers HTML pages, not the JSON API
            text = path.read_text()
            found |= set(re.findall(r"slug\s*=\s*\"([a-z]+(?:-[a-z]+)+)\"", text))
            found |= set(re.findall(r"_refuse\([^)]*?\"([a-z]+(?:-[a-z]+)+)\"", text, re.S))
            found |= set(re.findall(r"\d{3}: \"([a-z]+(?:-[a-z]+)+)\"", text))  # _HTTP_SLUGS
            found |= set(re.findall(r"\"internal-error\"", text) and ["internal-error"])
    return found


@pytest.mark.parametrize("slug", sorted(DECISIONS))
def test_every_decided_slug_has_its_class(slug: str) -> None:
    status = DECISIONS[slug]
    body = {
        "type": f"{BASE}/errors/{slug}",
        "title": "A title",
        "status": status,
        "detail": "What went wrong",
        "instance": "/v1/x",
        "errors": [{"field": "amount", "message": "bad"}],
    }
    exc = E.problem_from(status, body, {"X-Request-ID": "req-1", "Retry-After": "2"})
    cls = E.PROBLEM_CLASSES[slug]
    assert type(exc) is cls and cls is not ProblemError and cls.slug_name == slug
    assert (exc.slug, exc.status, exc.title, exc.detail) == (
        slug,
        status,
        "A title",
        "What went wrong",
    )
    assert exc.body == body and exc.request_id == "req-1" and exc.retry_after == 2.0
    assert exc.errors == [{"field": "amount", "message": "bad"}]
    assert isinstance(exc, E.MccgwError)


def test_one_class_per_slug() -> None:
    classes = list(E.PROBLEM_CLASSES.values())
    assert len(classes) == len(set(classes))
    assert set(DECISIONS) <= set(E.PROBLEM_CLASSES)


def test_documented_and_implemented_slugs_are_all_mapped() -> None:
    documented = slugs_in_access_doc()
    assert {"unknown-project", "ip-not-allowed", "project-suspended"} <= documented
    assert documented <= set(E.PROBLEM_CLASSES), documented - set(E.PROBLEM_CLASSES)
    implemented = slugs_in_gateway_source()
    assert {"invalid-api-key", "insufficient-funds", "admin-required"} <= implemented
    assert implemented <= set(E.PROBLEM_CLASSES), implemented - set(E.PROBLEM_CLASSES)


def test_unknown_and_legacy_bodies() -> None:
    exc = E.problem_from(418, {"type": f"{BASE}/errors/teapot-brewing", "detail": "no"})
    assert type(exc) is ProblemError and exc.slug == "teapot-brewing" and exc.title
    legacy = E.problem_from(401, {"error": "unauthorized", "message": "bad token", "code": 401})
    assert isinstance(legacy, E.Unauthorized) and legacy.detail == "bad token"
    bare = E.problem_from(502, None)
    assert type(bare) is ProblemError and bare.slug == "http-502"


async def test_real_problems_arrive_typed(app: FastAPI, world: World, consented: Consented) -> None:
    transport = httpx.ASGITransport(app=app)
    creds = consented.creds
    uid = consented.uid
    good = AsyncClient(BASE, HmacAuth(creds.project_id, creds.secret), transport=transport)
    cases: list[tuple[AsyncClient, str, str, dict[str, object] | None, type[ProblemError]]] = [
        (
            AsyncClient(BASE, ApiKeyAuth(987654321, "x"), transport=transport),
            "GET", "/v1/_probe/funds", None, E.UnknownProject,
        ),
        (
            AsyncClient(BASE, ApiKeyAuth(creds.project_id, "wrong"), transport=transport),
            "GET", "/v1/_probe/funds", None, E.InvalidApiKey,
        ),
        (
            AsyncClient(BASE, HmacAuth(creds.project_id, "wrong"), transport=transport),
            "GET", "/v1/_probe/funds", None, E.InvalidSignature,
        ),
        (
            AsyncClient(
                BASE,
                HmacAuth(creds.project_id, creds.secret, clock=lambda: 1_000_000_000),
                transport=transport,
            ),
            "GET", "/v1/_probe/funds", None, E.StaleTimestamp,
        ),
        (
            AsyncClient(
                BASE, None, transport=transport, headers={"X-Project-ID": str(creds.project_id)}
            ),
            "GET", "/v1/_probe/funds", None, E.Unauthorized,  # a project id, no credentials
        ),
        (good, "POST", f"/v1/users/{uid}/attributes", {"attribute_value": 1}, E.ValidationError),
        (good, "GET", "/v1/no-such-route", None, E.NotFound),
    ]  # fmt: skip
    for gw, method, path, body, cls in cases:
        with pytest.raises(cls) as raised:
            await gw.request(method, path, json=body)
        exc = raised.value
        assert exc.slug == cls.slug_name and exc.body["type"].endswith("/" + exc.slug)
        assert exc.status == exc.body["status"] and exc.detail and exc.request_id
    stranger = await world.user()  # has not authorized the project
    with pytest.raises(E.UserNotAuthorizedForProject):
        await good.post(
            f"/v1/users/{stranger.uid}/attributes",
            json={"attribute_key": "k", "attribute_value": 1},
        )
    with pytest.raises(E.ValidationError) as invalid:
        await good.post(f"/v1/users/{uid}/attributes", json={"attribute_value": 1})
    assert invalid.value.errors and invalid.value.errors[0]["field"] == "attribute_key"
