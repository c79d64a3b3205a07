"""Passkeys (issue 44): enrolment on the authorization server's page, a password-less sign-in
and the second step after a password, ``amr`` in the tokens, and the refusals a relying party
owes: an answered challenge answered again, another site's origin, a counter that went back.
The browser side (Chromium's virtual authenticator) is tests/console/test_signin_browser.py."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from fastapi import FastAPI

from authserver.passkeys import relying_party
from tests.access.soft_passkey import SoftPasskey, b64url
from tests.access.test_oauth_flow import AUTH, TOKEN_URL, _claims
from tests.access.test_second_factor import _authorize, _field, _password
from tests.factories import PASSWORD, World

ENROL = AUTH + "/account/passkey"


def _ceremony(html: str) -> tuple[dict[str, Any], str]:
    found = re.search(r"<script type=application/json>(.*?)</script>", html)
    assert found, html
    return json.loads(found.group(1)), _field(html, "passkey_ticket")


def _origin(app: FastAPI) -> str:
    return relying_party(app.state.auth_server.settings).origin


async def _enrol(app: FastAPI, client: httpx.AsyncClient, username: str) -> SoftPasskey:
    started = await client.post(
        ENROL, data={"username": username, "password": PASSWORD, "step": "password"}
    )
    assert started.status_code == 200, started.text
    options, ticket = _ceremony(started.text)
    assert options["rp"]["id"] == "localhost"  # BASE_URL's host is an IP: localhost
    assert options["authenticatorSelection"]["userVerification"] == "required"
    key = SoftPasskey()
    form = {"step": "confirm", "passkey_ticket": ticket,
            "passkey": key.create(options, _origin(app))}  # fmt: skip
    done = await client.post(ENROL, data=form)
    assert done.status_code == 200 and "Passkey added" in done.text, done.text
    again = await client.post(ENROL, data=form)  # the same challenge, answered twice
    assert again.status_code == 400
    return key


async def _with_passkey(oauth: Any, url: str, page: str, answer: str) -> Any:
    _, ticket = _ceremony(page)
    form = {"decision": "approve", "passkey_ticket": ticket, "passkey": answer}
    if "name=username value=" in page:
        form["username"] = _field(page, "username")
    return await oauth.request("POST", url, data=form, withhold_token=True)


async def test_a_passkey_signs_in_without_a_password_once_per_challenge_and_origin(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    wrong = await client.post(ENROL, data={"username": user.username, "password": "nope",
                                           "step": "password"})  # fmt: skip
    assert wrong.status_code == 401
    key = await _enrol(app, client, user.username)

    oauth, url, verifier = await _authorize(app, world)
    async with oauth:
        page = (await oauth.request("GET", url, withhold_token=True)).text
        options, _ = _ceremony(page)
        assert "allowCredentials" not in options or not options["allowCredentials"]
        other_site = await _with_passkey(oauth, url, page, key.get(options, "https://evil.example"))
        assert other_site.status_code == 401 and "did not sign you in" in other_site.text

        page = (await oauth.request("GET", url, withhold_token=True)).text
        options, _ = _ceremony(page)
        answer = key.get(options, _origin(app))
        passed = await _with_passkey(oauth, url, page, answer)
        assert passed.status_code == 302, passed.text
        replayed = await _with_passkey(oauth, url, page, answer)
        assert replayed.status_code == 401

        page = (await oauth.request("GET", url, withhold_token=True)).text
        options, _ = _ceremony(page)
        cloned = await _with_passkey(oauth, url, page, key.get(options, _origin(app),
                                                                counter_step=0))  # fmt: skip
        assert cloned.status_code == 401  # the counter did not grow

        token = await oauth.fetch_token(
            TOKEN_URL, authorization_response=passed.headers["location"], code_verifier=verifier
        )
        assert _claims(token["access_token"])["amr"] == ["hwk", "user", "mfa"]
        assert _claims(token["id_token"])["sub"] == user.uid


async def test_a_passkey_is_the_second_step_after_a_password(
    app: FastAPI, client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    key = await _enrol(app, client, user.username)
    oauth, url, verifier = await _authorize(app, world)
    async with oauth:
        asked = await _password(oauth, url, user.username)
        assert asked.status_code == 200 and "Two-step sign-in" in asked.text
        options, _ = _ceremony(asked.text)
        allowed = [c["id"] for c in options["allowCredentials"]]
        assert allowed == [b64url(key.credential_id)]  # only this user's passkey
        passed = await _with_passkey(oauth, url, asked.text, key.get(options, _origin(app)))
        assert passed.status_code == 302, passed.text
        token = await oauth.fetch_token(
            TOKEN_URL, authorization_response=passed.headers["location"], code_verifier=verifier
        )
        assert _claims(token["access_token"])["amr"] == ["pwd", "hwk", "mfa"]
