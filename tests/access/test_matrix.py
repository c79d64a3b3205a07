"""The authorization matrix (issue 38): every operation of the app's OpenAPI document, called
by every kind of caller, is let past authentication and authorization exactly where the
operation's declaration (its ``x-callers``, written once per route by ``Callers``) says, and
answered 401 or 403 everywhere else.

"Let past" is any answer but 401 and 403: a made-up id is a 404, an empty body a 422, a route
of this stack that needs the chain a 503, all after the caller was admitted. A 429 or a 500 is
a failure of its own (the matrix gives every request a source of its own and the projects an
enterprise tier, so no budget runs out). An operation without a declaration fails too: a new
route must say who may call it.

The verdict is this module's own reading of the declarations (``admitted``), written from the
rule of docs/access.md, not the product's ``access.callers.admit``: the test compares what the
API does with what the declaration says. One app, tokens made once, requests run concurrently
through ASGI.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI
from joserfc import jwt

from access.scopes import PROJECT_SCOPES as PROJECT_SCOPE_TEXT
from access.scopes import USER_SCOPES, expand
from api.auth.signature import signature_header
from tests.access.conftest import BASE
from tests.factories import World
from tests.security.test_id_tokens import _tokens

ALL_USER_SCOPES = " ".join(USER_SCOPES)
# Projects A and B hold every project scope of the vocabulary (a new one included).
PROJECT_SCOPES = list(PROJECT_SCOPE_TEXT)
MADE_UP = {
    "uid": None,  # the owner's uid (set below): project routes act on a user who consented
    "user_uid": None,
    "project_id": "999999999",
    "application_id": str(uuid.UUID(int=1)),
    "unit_id": "station-999999",
    "mint": "11111111111111111111111111111111",
    "wallet": "11111111111111111111111111111111",
    "address": "11111111111111111111111111111111",
}
FORM = "grant_type=authorization_code&code=made-up&token=made-up"


@dataclass(frozen=True)
class Caller:
    """One kind of caller and what its credential is (for ``admitted``)."""

    name: str
    headers: dict[str, str] = field(default_factory=dict)
    project: str | None = None  # "A" or "B": project credentials ("hmac": signed per request)
    hmac_secret: str | None = None
    token: str | None = None  # "access" | "id": a valid bearer token of that kind
    scopes: frozenset[str] = frozenset()
    first_party: bool = False
    admin: bool = False
    granted: frozenset[str] = frozenset()  # an ID token's client's grant, from the user


def admitted(declared: list[dict[str, Any]], caller: Caller) -> bool:
    """Whether the declaration lets ``caller`` past (the rule of docs/access.md)."""
    for accept in declared:
        kind, needs = accept["kind"], set(accept.get("scopes", ()))
        if kind == "anyone":
            return True
        if kind == "project" and caller.project is not None and needs <= set(PROJECT_SCOPES):
            return True
        admin = caller.admin and caller.first_party
        scoped = caller.token == "access" and (admin or needs <= caller.scopes)
        if kind == "user" and scoped:
            return True
        if kind == "id-token" and (
            scoped or (caller.token == "id" and (caller.first_party or needs <= caller.granted))
        ):
            return True
        if kind == "developer" and caller.token and caller.first_party:
            return True
        if kind == "admin" and caller.token == "access" and admin:
            return True
    return False


def _forged(app: FastAPI, real: str, **changes: Any) -> str:
    """A token signed with the authorization server's own key: ``real``'s claims, changed."""
    keys = app.state.auth_server.keys.signing_keyset()
    claims = dict(jwt.decode(real, keys).claims) | {"jti": secrets.token_hex(8)} | changes
    return jwt.encode({"alg": "RS256", "typ": "at+jwt"}, claims, keys)


async def _callers(app: FastAPI, client: httpx.AsyncClient, world: World) -> list[Caller]:
    owner, admin = await world.user(), await world.user("admin")
    a = await world.project(
        rate_limit_tier="enterprise", owner_uid=owner.uid, allowed_scopes=PROJECT_SCOPES
    )
    b = await world.project(rate_limit_tier="enterprise", allowed_scopes=PROJECT_SCOPES)
    consent = ["openid", *PROJECT_SCOPES]  # project scopes only: no legacy read for an ID token
    for project in (a, b):
        await world.consent(owner.uid, project.project_id, consent)
    everything = [*USER_SCOPES, *PROJECT_SCOPES]
    a_client, _ = await world.oauth_client(a.project_id, public=True, allowed_scopes=everything)
    b_client, _ = await world.oauth_client(b.project_id, public=True, allowed_scopes=everything)
    own_client, _ = await world.oauth_client(
        None, public=True, first_party=True, allowed_scopes=everything
    )
    MADE_UP["uid"] = MADE_UP["user_uid"] = owner.uid

    async def token(uid: str, scope: str, client_id: str, project_id: int | None = None) -> str:
        """A token of ``client_id``; of a project's client, after the user's consent to that
        project for ``scope`` (how such a token comes to be: the sign-in asks for it)."""
        if project_id is not None:
            await world.consent(uid, project_id, scope.split())
        return await world.token(uid, scope, client_id=client_id)

    def bearer(value: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {value}"}

    every = expand(USER_SCOPES)

    def person(name: str, value: str, kind: str = "access", **facts: Any) -> Caller:
        """A user's token of kind ``kind`` ("access" or "id"); ``facts`` as in Caller."""
        return Caller(name, bearer(value), token=kind, **facts)

    async def scoped(scope: str) -> Caller:
        value = await token((await world.user()).uid, scope, a_client, a.project_id)
        return person(f"A's client, {scope} alone", value, scopes=expand([scope]))

    _, third_party = await _tokens(app, world, "openid", owner, a_client)
    _, first_party = await _tokens(app, world, "openid", owner, own_client)
    b_user = await token((await world.user()).uid, ALL_USER_SCOPES, b_client, b.project_id)
    owner_own = await token(owner.uid, ALL_USER_SCOPES, own_client)
    admin_theirs = await token(admin.uid, ALL_USER_SCOPES, a_client, a.project_id)
    admin_own = await token(admin.uid, ALL_USER_SCOPES, own_client)
    revoked = await token(admin.uid, ALL_USER_SCOPES, own_client)
    gone = await client.post("/auth/oauth/revoke", data={"token": revoked, "client_id": own_client})
    assert gone.status_code == 200, gone.text
    past = int(time.time()) - 7200
    a_key = {"X-Project-ID": str(a.project_id), "X-API-Key": a.secret}
    b_key = {"X-Project-ID": str(b.project_id), "X-API-Key": b.secret}
    return [
        Caller("anonymous"),
        Caller("A's key", a_key, "A"),
        Caller("A's HMAC", {"X-Project-ID": str(a.project_id)}, "A", hmac_secret=a.secret),
        Caller("B's key", b_key, "B"),
        *[await scoped(scope) for scope in USER_SCOPES],
        person("B's client, every user scope", b_user, scopes=every),
        person("the owner's ID token of A's client", third_party["id_token"], "id",
               granted=expand(consent)),
        person("the owner's first-party access token", owner_own, scopes=every, first_party=True),
        person("the owner's first-party ID token", first_party["id_token"], "id", first_party=True),
        person("an admin's token of A's client", admin_theirs, scopes=every, admin=True),
        person("an admin's first-party token", admin_own, scopes=every, first_party=True,
               admin=True),
        # What a first-party administrator's token would be, were it valid:
        Caller("a revoked admin token", bearer(revoked)),
        Caller("an expired admin token", bearer(_forged(app, admin_own, iat=past, exp=past))),
        Caller("an admin token for another API",
               bearer(_forged(app, admin_own, aud="https://elsewhere.example"))),
    ]  # fmt: skip


def _request(op: dict[str, Any], method: str, path: str, caller: Caller) -> dict[str, Any]:
    """The request of ``caller`` for the operation: made-up path values, an empty body of the
    operation's media type, and the caller's credentials (an HMAC signed for this request)."""
    target = re.sub(r"\{(\w+)\}", lambda m: MADE_UP.get(m.group(1)) or "1", path)
    media = next(iter((op.get("requestBody") or {}).get("content", {})), None)
    headers = dict(caller.headers)
    content: bytes | None = None
    files = None
    parsed: Any = None
    if media == "application/json":
        content, parsed = b"{}", {}
        headers["Content-Type"] = "application/json"
    elif media == "application/x-www-form-urlencoded":
        content = FORM.encode()
        headers["Content-Type"] = media
    elif media == "multipart/form-data":
        files = {"other": ("x.txt", b"x", "text/plain")}
    if caller.hmac_secret is not None:
        stamp = str(int(time.time()))
        headers["X-Timestamp"] = stamp
        headers["X-Signature"] = signature_header(caller.hmac_secret, method, target, stamp, parsed)
    return {"method": method, "url": target, "headers": headers, "content": content, "files": files}


async def test_every_operation_admits_exactly_its_declared_callers(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    started = time.monotonic()
    document = app.openapi()
    callers = await _callers(app, client, world)
    operations = [
        (method.upper(), path, op)
        for path, item in document["paths"].items()
        for method, op in item.items()
    ]
    undeclared = [f"{m} {p}" for m, p, op in operations if "x-callers" not in op]
    assert not undeclared, f"operations without a declaration of their callers: {undeclared}"

    sources = itertools.count(1)
    gate = asyncio.Semaphore(32)
    wrong: list[str] = []

    async def one(method: str, path: str, op: dict[str, Any], caller: Caller) -> None:
        n = next(sources)  # a source of its own: no request spends another's budget
        transport = httpx.ASGITransport(
            app=app, client=(f"10.{n >> 16}.{n >> 8 & 255}.{n & 255}", 1)
        )
        async with gate, httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            r = await c.request(**_request(op, method, path, caller))
        expected = admitted(op["x-callers"], caller)
        refused = r.status_code in (401, 403)
        if r.status_code == 429 or (r.status_code >= 500 and r.status_code != 503):
            wrong.append(f"{method} {path} by {caller.name}: {r.status_code} {r.text[:160]}")
        elif refused == expected:
            verdict = "admitted" if expected else "refused"
            wrong.append(
                f"{method} {path} by {caller.name}: {r.status_code}, should be {verdict} "
                f"(x-callers {json.dumps(op['x-callers'])}): {r.text[:160]}"
            )

    await asyncio.gather(*(one(m, p, op, caller) for m, p, op in operations for caller in callers))
    elapsed = time.monotonic() - started
    print(f"matrix: {len(operations)} operations x {len(callers)} callers in {elapsed:.1f} s")
    assert not wrong, f"{len(wrong)} wrong answers:\n" + "\n".join(sorted(wrong))
