"""The verifier remembers verified JWTs (api.auth.tokens): never past the token's exp, never
for a token that differs by a byte (never past a revocation: test_tokens.py, item 11)."""

from __future__ import annotations

import time

import httpx
from fastapi import FastAPI

from api.auth.tokens import TokenVerifier, _Verified
from tests.factories import World
from tests.security.conftest import bearer, slug


async def _verified_once(client: httpx.AsyncClient, world: World) -> tuple[str, str]:
    """(uid, token) of a user whose token the verifier has just verified (and remembers)."""
    uid = (await world.user()).uid
    token = await world.token(uid, "user:read")
    assert (await client.get("/v1/users/me", headers=bearer(token))).status_code == 200
    return uid, token


async def test_a_changed_byte_is_verified_afresh(client: httpx.AsyncClient, world: World) -> None:
    _, token = await _verified_once(client, world)
    head, payload, signature = token.split(".")
    forged = f"{head}.{payload}.{signature[:-4]}{'AAAA' if signature[-4:] != 'AAAA' else 'BBBB'}"
    r = await client.get("/v1/users/me", headers=bearer(forged))
    assert r.status_code == 401 and slug(r) == "unauthorized"


async def test_a_remembered_token_is_verified_afresh_after_its_exp(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    uid, token = await _verified_once(client, world)
    verifier: TokenVerifier = app.state.token_verifier
    entry = (verifier.audience, token)
    kept = verifier._verified[entry]
    # A stale entry carrying other claims: were it served, the caller would be someone else.
    stale = dict(kept.claims, sub="u_somebody_else")
    verifier._verified[entry] = _Verified(stale, kept.key, kept.kid, time.time() - 1)
    me = await client.get("/v1/users/me", headers=bearer(token))
    assert me.status_code == 200 and me.json()["data"]["id"] == uid
    assert verifier._verified[entry].claims["sub"] == uid
