"""Issue 44's "done when", on the production topology (deploy/topology.py, ``make prod-local``:
the wheel installed outside the checkout, two API processes, two workers, the SMTP server):
an operator creates the first administrator from the command line, the console turns the
administrator away until they enrol an authenticator, then admits them with a password and a
TOTP code; a new person signs up, verifies their e-mail from the mail server, authorizes a
project (OAuth consent) and resets their password, all against the real services."""

from __future__ import annotations

import base64
import json
import re
import secrets
import subprocess
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from accounts.mailbox import StoredMail, stored_mail
from deploy.topology import Topology
from tests.factories import totp_code

pytestmark = pytest.mark.slow

ADMIN_PASSWORD = "granite-harbor-19-willow"
PASSWORD = "saffron-meteor-27-kettle"
NEW_PASSWORD = "cobalt-tundra-64-meadow"


class Console:
    """The administrator's browser on the console. In production the console's cookies are
    Secure (api/console/session.py), which a cookie jar keeps off plain http://127.0.0.1: this
    one sends them back itself, as a browser does over the HTTPS a deployment serves."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.cookies: dict[str, str] = {}

    def _kept(self, response: httpx.Response) -> httpx.Response:
        for header in response.headers.get_list("set-cookie"):
            name, _, value = header.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        return response

    def _headers(self) -> dict[str, str]:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items() if v)}

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self._kept(self.client.get(url, headers=self._headers(), **kwargs))

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self._kept(self.client.post(url, headers=self._headers(), **kwargs))


@pytest.fixture
def web(topology: Topology) -> Iterator[Console]:
    """The administrator's browser: keeps cookies, follows no redirect by itself."""
    with httpx.Client(base_url=topology.base_url, timeout=30) as client:
        yield Console(client)


def _local(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _mail(topology: Topology, to: str, subject: str, wait: float = 20.0) -> StoredMail:
    """The newest message to ``to`` the topology's SMTP server stored with ``subject``."""
    deadline = time.monotonic() + wait
    while True:
        found = [m for m in stored_mail(topology.mail_dir, to) if subject in m.subject]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no mail {subject!r} to {to}"
        time.sleep(0.1)


def _claims(jwt: str) -> dict[str, Any]:
    """A JWT's claims, read without verification (the API verified the access token)."""
    payload = jwt.split(".")[1]
    decoded: dict[str, Any] = json.loads(
        base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    )
    return decoded


def _token_of(link: str) -> str:
    return parse_qs(urlsplit(link).query)["token"][0]


def operator_creates_the_first_administrator(topology: Topology, name: str) -> None:
    """``mccgw admin create`` of the installed wheel, the password on standard input."""
    done = subprocess.run(
        [str(topology.installed.mccgw), "admin", "create", "--username", name,
         "--email", f"{name}@ops.example", "--password-stdin"],
        input=ADMIN_PASSWORD + "\n", env=topology.env, capture_output=True, text=True,
        cwd=topology.logs,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "administrator" in done.stdout and "created" in done.stdout


def _field(html: str, name: str) -> str:
    found = re.search(rf"name={name} value='([^']*)'", html)
    assert found, html
    return found.group(1)


def administrator_enrols_an_authenticator(web: Console, name: str) -> str:
    """The TOTP enrolment page (password, then a code from the new secret); the secret."""
    enrol = "/auth/account/totp"
    started = web.post(enrol, data={"username": name, "password": ADMIN_PASSWORD,
                                    "step": "password"})  # fmt: skip
    assert started.status_code == 200, started.text
    shown = re.search(r"<code id=totp-secret>([A-Z2-7 ]+)</code>", started.text)
    assert shown, started.text
    secret = shown.group(1).replace(" ", "")
    # The code of the step before: the sign-in that follows within 30 s takes the current one
    # (a code is accepted once, and one step either side of now).
    form = {"enrol_ticket": _field(started.text, "enrol_ticket"), "code": totp_code(secret, -1),
            "step": "confirm"}  # fmt: skip
    done = web.post(enrol, data=form)
    assert done.status_code == 200 and "recovery" in done.text.lower(), done.text
    return secret


def _console_sign_in(web: Console, name: str) -> tuple[str, httpx.Response]:
    start = web.get("/console/login", params={"next": "/console/mail"})
    assert start.status_code == 303
    authorize = _local(start.headers["location"])
    assert web.get(authorize).status_code == 200
    answer = web.post(
        authorize, data={"username": name, "password": ADMIN_PASSWORD, "decision": "approve"}
    )
    return authorize, answer


def administrator_without_a_second_factor_is_turned_away(web: Console, name: str) -> None:
    _, answer = _console_sign_in(web, name)
    assert answer.status_code == 302, answer.text  # the password alone signs in ...
    refused = web.get(_local(answer.headers["location"]))
    assert refused.status_code == 403 and "/auth/account/totp" in refused.text  # ... not here


def administrator_signs_in_to_the_console(web: Console, name: str, secret: str) -> None:
    authorize, asked = _console_sign_in(web, name)
    assert asked.status_code == 200 and "Two-step sign-in" in asked.text, asked.text
    form = {"username": _field(asked.text, "username"),
            "mfa_ticket": _field(asked.text, "mfa_ticket"), "code": totp_code(secret),
            "decision": "approve"}  # fmt: skip
    answer = web.post(authorize, data=form)
    assert answer.status_code == 302, answer.text
    done = web.get(_local(answer.headers["location"]))
    assert done.status_code == 303 and done.headers["location"] == "/console/mail"


def _authorize_url(project: dict[str, Any], verifier: str) -> str:
    query = {
        "response_type": "code", "client_id": project["oauth_client_id"],
        "redirect_uri": project["redirect_uri"], "scope": "openid profile user:read",
        "state": secrets.token_hex(8), "code_challenge_method": "S256",
        "code_challenge": create_s256_code_challenge(verifier),
    }  # fmt: skip
    return "/auth/oauth/authorize?" + urlencode(query)


def _sign_in_and_consent(
    web: httpx.Client, project: dict[str, Any], url: str, verifier: str, user: str, password: str
) -> dict[str, Any] | int:
    """The tokens of a sign-in and consent on the project's authorization page (or the
    answer's status when the sign-in failed)."""
    answer = web.post(url, data={"username": user, "password": password, "decision": "approve"})
    if answer.status_code != 302:
        return answer.status_code
    code = parse_qs(urlsplit(answer.headers["location"]).query)["code"][0]
    token = web.post(
        "/auth/oauth/token",
        data={"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
              "redirect_uri": project["redirect_uri"], "client_id": project["oauth_client_id"],
              "client_secret": project["oauth_client_secret"]},
    )  # fmt: skip
    assert token.status_code == 200, token.text
    tokens: dict[str, Any] = token.json()
    return tokens


def test_first_administrator_then_a_newcomer_signs_up_verifies_authorizes_and_resets(
    topology: Topology, web: Console, demo: dict[str, Any]
) -> None:
    admin = f"root{secrets.token_hex(3)}"
    operator_creates_the_first_administrator(topology, admin)
    administrator_without_a_second_factor_is_turned_away(web, admin)
    secret = administrator_enrols_an_authenticator(web, admin)
    administrator_signs_in_to_the_console(web, admin, secret)

    # A newcomer meets the project's authorization page, and signs up from its link.
    person = httpx.Client(base_url=topology.base_url, timeout=30)
    project = demo["projects"][0]
    verifier = secrets.token_urlsafe(48)
    url = _authorize_url(project, verifier)
    page = person.get(url)
    assert page.status_code == 200
    signup = re.search(r"href='(/auth/signup\?next=[^']+)'", page.text)
    assert signup, page.text
    form = person.get(signup.group(1).replace("&amp;", "&"))
    assert form.status_code == 200 and "Create an account" in form.text
    name = f"newcomer{secrets.token_hex(3)}"
    email = f"{name}@example.org"
    next_field = re.search(r"name=next value='([^']+)'", form.text)
    assert next_field
    made = person.post("/auth/signup", data={
        "username": name, "email": email, "password": PASSWORD,
        "next": next_field.group(1).replace("&amp;", "&"),
    })  # fmt: skip
    assert made.status_code == 200 and "Check your mail" in made.text, made.text
    assert _sign_in_and_consent(person, project, url, verifier, name, PASSWORD) == 401

    # The verification link, from the mail server (the console shows the administrator too).
    mail = _mail(topology, email, "Verify your e-mail address")
    (link,) = mail.links()
    assert link.startswith(topology.base_url + "/auth/verify?token=")
    shown = web.get("/console/mail", params={"to": email})
    assert shown.status_code == 200 and link.replace("&", "&amp;") in shown.text
    assert person.get(_local(link)).status_code == 200
    verified = person.post("/auth/verify", data={
        "token": _token_of(link), "next": parse_qs(urlsplit(link).query)["next"][0],
    })  # fmt: skip
    assert verified.status_code == 200 and "verified" in verified.text
    back = re.search(r"href='([^']+)'>Continue", verified.text)
    assert back and back.group(1).replace("&amp;", "&") == url

    # The project's consent, and its tokens speak for the newcomer.
    tokens = _sign_in_and_consent(person, project, url, verifier, name, PASSWORD)
    assert isinstance(tokens, dict)
    bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
    me = person.get("/v1/users/me", headers=bearer)
    assert me.status_code == 200, me.text
    claims = _claims(tokens["id_token"])  # the ID token names the newcomer
    assert claims["preferred_username"] == name and claims["sub"] == me.json()["data"]["id"]
    grants = person.get("/v1/users/me/authorizations", headers=bearer)
    assert grants.status_code == 200, grants.text
    assert str(project["project_id"]) in grants.text

    # The password reset: the same answer for a stranger, the link from the mail server.
    stranger = person.post("/auth/reset", data={"email": f"x{secrets.token_hex(4)}@example.org"})
    asked = person.post("/auth/reset", data={"email": email})
    assert asked.status_code == stranger.status_code == 200 and asked.text == stranger.text
    reset = _mail(topology, email, "Reset your password")
    token = _token_of(reset.links()[0])
    assert person.get(_local(reset.links()[0])).status_code == 200
    changed = person.post("/auth/reset/confirm", data={"token": token, "password": NEW_PASSWORD})
    assert changed.status_code == 200 and "Password changed" in changed.text
    assert person.get("/v1/users/me", headers=bearer).status_code == 401  # signed out
    verifier = secrets.token_urlsafe(48)
    url = _authorize_url(project, verifier)
    assert _sign_in_and_consent(person, project, url, verifier, name, PASSWORD) == 401
    again = _sign_in_and_consent(person, project, url, verifier, name, NEW_PASSWORD)
    assert isinstance(again, dict) and again["access_token"]
    person.close()
