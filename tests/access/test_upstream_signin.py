"""Sign-in through an upstream OpenID Connect provider (issue 44, item 5), against a real one:
a second instance of our own authorization server, in a process of its own (uvicorn) with its
own database, issuer, secret key and signing keys. The gateway is its OAuth client."""

from __future__ import annotations

import base64
import os
import secrets
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from authlib.common.security import generate_token
from fastapi import FastAPI
from joserfc import jwt
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from authserver.upstream import Upstream, UpstreamError, link
from core.config import Settings
from core.embedded import free_port
from core.security import hash_api_secret
from db.models import User
from db.models.access import OAuthClient
from db.models.factors import UpstreamIdentity
from tests.access.conftest import BASE
from tests.access.test_oauth_flow import AUTH, TOKEN_URL, _claims, oauth_client
from tests.factories import PASSWORD, World, password_hash
from tests.services import migrated_database
from tests.stack import ROOT, asgi_client, running_app

NAME = "Upstream Test IdP"


@dataclass(frozen=True)
class Provider:
    base: str
    client_id: str
    client_secret: str
    username: str
    uid: str

    @property
    def issuer(self) -> str:
        return self.base + "/auth"


def _seed(url: str, client_id: str, secret: str, username: str) -> str:
    """The provider's person, and its client: the gateway's upstream sign-in."""
    uid = f"up_{secrets.token_hex(6)}"
    engine = create_engine(url)
    with Session(engine) as s, s.begin():
        s.add(User(uid=uid, username=username, email=f"{username}@idp.example",
                   password_hash=password_hash(), role="user"))  # fmt: skip
        s.add(OAuthClient(
            client_id=client_id, project_id=None, name="mccgw gateway",
            client_secret_hash=hash_api_secret(secret),
            redirect_uris=[BASE + "/auth/upstream/callback"],
            allowed_scopes=["openid", "profile", "email"], grant_types=["authorization_code"],
            access_token_format="jwt", first_party=False,
        ))  # fmt: skip
    engine.dispose()
    return uid


@pytest.fixture(scope="module")
def provider(settings: Settings) -> Iterator[Provider]:
    with migrated_database(settings.database_url, "mccgw_upstream") as url:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        client_id, secret = "gw_" + secrets.token_hex(4), secrets.token_urlsafe(24)
        username = f"carol_{secrets.token_hex(3)}"
        uid = _seed(url, client_id, secret, username)
        env = {**os.environ, "ENVIRONMENT": "test", "LOG_JSON": "false", "DATABASE_URL": url,
               "REDIS_URL": settings.redis_url, "BASE_URL": base, "AUTH_URL": base + "/auth",
               "SECRET_KEY": secrets.token_hex(32), "MASTER_KEY_ID": "idp",
               "MASTER_KEY": base64.b64encode(os.urandom(32)).decode()}  # fmt: skip
        argv = [sys.executable, "-m", "uvicorn", "api.main:app", "--host", "127.0.0.1",
                "--port", str(port)]  # fmt: skip
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(base + "/auth/.well-known/openid-configuration").is_success:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, "no provider"
                time.sleep(0.2)
            yield Provider(base, client_id, secret, username, uid)
        finally:
            proc.terminate()
            proc.wait(15)


@pytest.fixture
async def gateway(app_settings: Settings, provider: Provider) -> AsyncIterator[FastAPI]:
    configured = app_settings.model_copy(update={
        "upstream_oidc_discovery_url": provider.issuer + "/.well-known/openid-configuration",
        "upstream_oidc_client_id": provider.client_id,
        "upstream_oidc_client_secret": provider.client_secret,
        "upstream_oidc_name": NAME,
    })  # fmt: skip
    async with running_app(configured) as app:
        yield app


async def _through_provider(
    web: httpx.AsyncClient, idp: httpx.AsyncClient, start: str, provider: Provider
) -> str:
    """From our authorize page, through the provider's sign-in, back to our authorize URL
    signed in; returns that URL."""
    page = await web.get(start)
    assert page.status_code == 200 and f"Sign in with {NAME}" in page.text
    link_path = page.text.split("id=upstream-sign-in class=button href='")[1].split("'")[0]
    out = await web.get(link_path.replace("&amp;", "&"))
    assert out.status_code == 303, out.text
    there = out.headers["location"]
    assert there.startswith(provider.issuer + "/oauth/authorize?")
    assert "code_challenge_method=S256" in there and "nonce=" in there and "state=" in there
    form = {"username": provider.username, "password": PASSWORD, "decision": "approve"}
    back = await idp.post(there, data=form)
    assert back.status_code == 302, back.text
    assert back.headers["location"].startswith(BASE + "/auth/upstream/callback?code=")
    returned = await web.get(back.headers["location"])
    assert returned.status_code == 303, returned.text
    assert returned.headers["location"] == start.removeprefix(BASE)
    return str(returned.headers["location"])


async def test_a_person_signs_in_through_the_provider_and_gets_a_linked_local_account(
    gateway: FastAPI, provider: Provider, world: World
) -> None:
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    uids = []
    for _ in range(2):  # the second sign-in finds the account the first one made
        async with (
            asgi_client(gateway) as web,
            httpx.AsyncClient(timeout=20) as idp,
            oauth_client(gateway, client_id, None) as oauth,
        ):
            verifier = generate_token(48)
            start, _ = oauth.create_authorization_url(
                AUTH + "/oauth/authorize", code_verifier=verifier
            )
            back = await _through_provider(web, idp, start, provider)
            consent = await web.get(back)
            assert consent.status_code == 200 and "Signed in as" in consent.text
            assert "name=password" not in consent.text  # no password of ours is asked
            approved = await web.post(back, data={"via": "upstream", "decision": "approve"})
            assert approved.status_code == 302, approved.text
            token = await oauth.fetch_token(
                TOKEN_URL, authorization_response=approved.headers["location"],
                code_verifier=verifier,
            )  # fmt: skip
            claims = _claims(token["access_token"])
            assert claims["amr"] == ["fed"]
            uids.append(claims["sub"])
            # The upstream sign-in is spent once decided.
            again = await web.post(back, data={"via": "upstream", "decision": "approve"})
            assert again.status_code == 401
    assert uids[0] == uids[1] and uids[0] != provider.uid
    async with world.sessions() as s:
        person = await s.get(User, uids[0])
        linked = (await s.scalars(select(UpstreamIdentity).where(
            UpstreamIdentity.user_uid == uids[0]))).all()  # fmt: skip
    assert person is not None and person.password_hash is None
    # Our provider does not say email_verified: the e-mail it sent is not taken.
    assert person.email.endswith("@upstream.invalid")
    assert person.username == provider.username
    assert [(x.issuer, x.subject) for x in linked] == [(provider.issuer, provider.uid)]


async def test_a_callback_that_did_not_start_here_or_a_forged_id_token_signs_no_one_in(
    gateway: FastAPI, provider: Provider
) -> None:
    async with asgi_client(gateway) as web:
        forged = await web.get("/auth/upstream/callback", params={"code": "x", "state": "y"})
        assert forged.status_code == 400
        refused = await web.get("/auth/upstream/callback", params={"error": "access_denied"})
        assert refused.status_code == 401
    upstream = Upstream(gateway.state.settings)
    now = int(time.time())
    claims: dict[str, Any] = {"iss": provider.issuer, "aud": provider.client_id, "sub": "x",
                              "nonce": "n", "iat": now, "exp": now + 300}  # fmt: skip
    # Signed with our own keys, not the provider's: the provider's JWKS does not verify it.
    ours = gateway.state.auth_server.keys.signing_keyset()
    token = jwt.encode({"alg": "RS256", "kid": ours.keys[0].kid}, claims, ours)
    with pytest.raises(UpstreamError) as caught:
        await upstream.verify(token, "n")
    assert caught.value.status == 401


async def test_the_e_mail_is_taken_only_when_the_provider_verified_it(
    gateway: FastAPI, world: World
) -> None:
    store = gateway.state.auth_server.store
    issuer = "https://idp.example"
    mail = f"{secrets.token_hex(4)}@idp.example"
    unverified = link(store, issuer, {"sub": "s1", "email": mail, "email_verified": False})
    assert unverified.email != mail and unverified.email.endswith("@upstream.invalid")
    verified = link(store, issuer, {"sub": "s2", "email": mail, "email_verified": True})
    assert verified.email == mail
    existing = await world.user()
    with pytest.raises(UpstreamError) as caught:  # no taking over a local account by e-mail
        link(store, issuer, {"sub": "s3", "email": existing.email, "email_verified": True})
    assert caught.value.status == 409
    # The first person's provider verifies their address later: now it is taken.
    later = link(store, issuer, {"sub": "s1", "email": f"x{mail}", "email_verified": True})
    assert later.uid == unverified.uid and later.email == f"x{mail}"
