"""Two-step sign-in (issue 44): TOTP enrolment with recovery codes on the authorization
server's pages, the code asked after the password, and ``amr`` in the tokens."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx
from authlib.common.security import generate_token
from fastapi import FastAPI

from authserver.factors import Factors
from mccgw.seed import _admin_totp
from tests.access.test_oauth_flow import AUTH, TOKEN_URL, _claims, oauth_client
from tests.factories import PASSWORD, World, totp_code

ENROL = AUTH + "/account/totp"


def _field(html: str, name: str) -> str:
    found = re.search(rf"name={name} value='([^']*)'", html)
    assert found, html
    return found.group(1)


async def _authorize(app: FastAPI, world: World) -> tuple[Any, str, str]:
    """A public client's authorization URL (PKCE) and its verifier."""
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    client = oauth_client(app, client_id, None)
    verifier = generate_token(48)
    url, _ = client.create_authorization_url(AUTH + "/oauth/authorize", code_verifier=verifier)
    return client, url, verifier


async def _password(client: Any, url: str, username: str) -> Any:
    form = {"username": username, "password": PASSWORD, "decision": "approve"}
    return await client.request("POST", url, data=form, withhold_token=True)


async def _code(client: Any, url: str, page: str, code: str) -> Any:
    form = {"username": _field(page, "username"), "mfa_ticket": _field(page, "mfa_ticket"),
            "code": code, "decision": "approve"}  # fmt: skip
    return await client.request("POST", url, data=form, withhold_token=True)


async def test_enrolment_then_the_sign_in_asks_for_the_code_and_the_tokens_say_so(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    assert (await client.get(ENROL)).status_code == 200
    wrong = {"username": user.username, "password": "nope", "step": "password"}
    assert (await client.post(ENROL, data=wrong)).status_code == 401
    started = await client.post(ENROL, data=wrong | {"password": PASSWORD})
    assert started.status_code == 200, started.text
    secret = re.search(r"<code id=totp-secret>([A-Z2-7 ]+)</code>", started.text)
    assert secret
    key = secret.group(1).replace(" ", "")
    ticket = _field(started.text, "enrol_ticket")
    bad = await client.post(ENROL, data={"enrol_ticket": ticket, "code": "000000",
                                         "step": "confirm"})  # fmt: skip
    assert bad.status_code == 401 and "not right" in bad.text
    done = await client.post(
        ENROL, data={"enrol_ticket": ticket, "code": totp_code(key, -1), "step": "confirm"}
    )
    assert done.status_code == 200, done.text
    recovery = re.findall(r"<li><code>([0-9a-f-]+)</code></li>", done.text)
    assert len(recovery) == 10 and len(set(recovery)) == 10

    oauth, url, verifier = await _authorize(app, world)
    async with oauth:
        asked = await _password(oauth, url, user.username)
        assert asked.status_code == 200 and "Two-step sign-in" in asked.text  # no code yet
        refused = await _code(oauth, url, asked.text, "123456")
        assert refused.status_code == 401 and "not right" in refused.text
        passed = await _code(oauth, url, asked.text, totp_code(key))
        assert passed.status_code == 302, passed.text
        token = await oauth.fetch_token(
            TOKEN_URL, authorization_response=passed.headers["location"], code_verifier=verifier
        )
        assert _claims(token["access_token"])["amr"] == ["pwd", "otp", "mfa"]
        assert _claims(token["id_token"])["amr"] == ["pwd", "otp", "mfa"]
        refreshed = await oauth.refresh_token(TOKEN_URL, refresh_token=token["refresh_token"])
        assert _claims(refreshed["access_token"])["amr"] == ["pwd", "otp", "mfa"]


async def test_a_password_alone_signs_in_without_an_authenticator_as_pwd(
    app: FastAPI, world: World
) -> None:
    user = await world.user()
    oauth, url, verifier = await _authorize(app, world)
    async with oauth:
        answer = await _password(oauth, url, user.username)
        assert answer.status_code == 302
        token = await oauth.fetch_token(
            TOKEN_URL, authorization_response=answer.headers["location"], code_verifier=verifier
        )
        assert _claims(token["access_token"])["amr"] == ["pwd"]


async def test_a_code_and_a_recovery_code_each_work_once(app: FastAPI, world: World) -> None:
    user = await world.user()
    secret, recovery = await world.totp(user.uid)
    oauth, url, _ = await _authorize(app, world)
    async with oauth:
        code = totp_code(secret)
        first = await _password(oauth, url, user.username)
        assert (await _code(oauth, url, first.text, code)).status_code == 302
        again = await _password(oauth, url, user.username)
        assert (await _code(oauth, url, again.text, code)).status_code == 401  # replayed
        used = await _code(oauth, url, again.text, recovery[0].upper())
        assert used.status_code == 302  # a recovery code, typed in capitals
        third = await _password(oauth, url, user.username)
        assert (await _code(oauth, url, third.text, recovery[0])).status_code == 401
        # The enrolment's own code (the previous step) was spent too.
        assert (await _code(oauth, url, third.text, totp_code(secret, -1))).status_code == 401


async def test_the_ticket_is_bound_to_its_login_and_cannot_be_forged(
    app: FastAPI, world: World
) -> None:
    victim, other = await world.user(), await world.user()
    secret, _ = await world.totp(victim.uid)
    await world.totp(other.uid)
    oauth, url, _ = await _authorize(app, world)
    async with oauth:
        mine = await _password(oauth, url, other.username)
        form = {"username": victim.username, "mfa_ticket": _field(mine.text, "mfa_ticket"),
                "code": totp_code(secret), "decision": "approve"}  # fmt: skip
        swapped = await oauth.request("POST", url, data=form, withhold_token=True)
        assert swapped.status_code == 401 and "Sign-in expired" in swapped.text
        forged = form | {"mfa_ticket": "x" * 60}
        answer = await oauth.request("POST", url, data=forged, withhold_token=True)
        assert answer.status_code == 401


async def test_replacing_an_authenticator_needs_its_current_code(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    secret, _ = await world.totp(user.uid)
    form = {"username": user.username, "password": PASSWORD, "step": "password"}
    assert (await client.post(ENROL, data=form)).status_code == 401
    replaced = await client.post(ENROL, data=form | {"code": totp_code(secret)})
    assert replaced.status_code == 200 and "totp-secret" in replaced.text


async def test_the_demo_administrator_is_seeded_with_an_authenticator(
    app: FastAPI, world: World
) -> None:
    """`mccgw dev` enrols the demo admin (the console would refuse them otherwise) and keeps
    the secret demo.json names across restarts."""
    admin = await world.user("admin")
    shown = {"uid": admin.uid, "username": admin.username}
    async with world.sessions() as s:
        first = await _admin_totp(s, world.settings, shown, None)
        again = await _admin_totp(s, world.settings, shown, first)
        await s.commit()
    assert again == first and first["totp_uri"].startswith("otpauth://totp/")
    factors = Factors(app.state.auth_server.store, world.settings)
    assert await asyncio.to_thread(factors.check_totp, admin.uid, totp_code(first["totp_secret"]))
