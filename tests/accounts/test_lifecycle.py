"""An account's life on the authorization server's pages and the API, against the real app,
PostgreSQL, Redis and the package's SMTP server: sign-up, verification by a signed, expiring,
single-use link read from the mail server, sign-in and consent, the password reset that answers
the same for any address, the sign-up modes and limits, the e-mail change and the deletion."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from authlib.common.security import generate_token
from fastapi import FastAPI
from sqlalchemy import select, update

from accounts.mailbox import stored_mail
from core.config import Settings
from db.models import LedgerAccount, User
from db.models.accounts import AccountLink
from tests.access.test_oauth_flow import AUTH, TOKEN_URL, oauth_client
from tests.accounts.conftest import MAIL_DIR, mail_to, mccgw
from tests.factories import REDIRECT, World

STRONG = "velvet-quarry-81-lantern"


def _path(link: str) -> str:
    parts = urlsplit(link)
    return f"{parts.path}?{parts.query}"


def _token(link: str) -> str:
    found = re.search(r"token=([^&\s]+)", link)
    assert found, link
    return found.group(1)


async def sign_up(web: httpx.AsyncClient, username: str, email: str, password: str = STRONG,
                  **extra: str) -> httpx.Response:  # fmt: skip
    return await web.post(
        "/auth/signup", data={"username": username, "email": email, "password": password, **extra}
    )


async def verify(web: httpx.AsyncClient, email: str) -> httpx.Response:
    """Follow the verification link of the newest mail to ``email``: the page, then its form."""
    mail = await mail_to(email, "Verify your e-mail address")
    (link,) = mail.links()
    page = await web.get(_path(link))
    assert page.status_code == 200 and "Verify" in page.text, page.text
    return await web.post("/auth/verify", data={"token": _token(link)})


async def authorize(app: FastAPI, world: World, username: str, password: str) -> int:
    """Sign in on the authorization page of a project's client and approve: the status of the
    answer (302 with a code when the sign-in held); a code is exchanged for tokens."""
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    verifier = generate_token(48)
    async with oauth_client(app, client_id, None) as client:
        url, _ = client.create_authorization_url(AUTH + "/oauth/authorize", code_verifier=verifier)
        page = await client.request("GET", url, withhold_token=True)
        assert "Create an account" in page.text and "Forgot your password?" in page.text
        answer = await client.request(
            "POST", url, withhold_token=True,
            data={"username": username, "password": password, "decision": "approve"},
        )  # fmt: skip
        if answer.status_code == 302:
            location = answer.headers["location"]
            assert location.startswith(REDIRECT) and "code=" in location
            token = await client.fetch_token(
                TOKEN_URL, authorization_response=location, code_verifier=verifier
            )
            assert (await client.get("/v1/users/me")).status_code == 200
            assert token["id_token"]
        return answer.status_code


def _newcomer() -> tuple[str, str]:
    name = f"new{secrets.token_hex(4)}"
    return name, f"{name}@example.org"


async def test_sign_up_verify_by_the_mailed_link_then_sign_in_and_authorize(
    app: FastAPI, web: httpx.AsyncClient, world: World
) -> None:
    name, email = _newcomer()
    form = await web.get("/auth/signup")
    assert form.status_code == 200 and "Create an account" in form.text

    weak = await sign_up(web, name, email, "password123")
    assert weak.status_code == 422 and "most common" in weak.text
    short = await sign_up(web, name, email, "Tr0ub4d!")
    assert short.status_code == 422 and "at least 10 characters" in short.text
    assert (await sign_up(web, "x", email)).status_code == 422  # not a username

    made = await sign_up(web, name, email, next="https://evil.example/auth/oauth/authorize?x")
    assert made.status_code == 200 and "Check your mail" in made.text, made.text
    again = await sign_up(web, name, f"other-{email}")
    assert again.status_code == 409 and "already in use" in again.text
    async with world.sessions() as s:
        user = await s.scalar(select(User).where(User.username == name))
    assert user is not None and not user.email_verified and user.role == "user"
    # Not verified yet: the sign-in is refused like a wrong password.
    assert await authorize(app, world, name, STRONG) == 401

    mail = await mail_to(email, "Verify your e-mail address")
    (link,) = mail.links()
    assert "next=" not in link  # only an authorization request of this server comes back
    token = _token(link)
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert (await web.post("/auth/verify", data={"token": tampered})).status_code == 400
    page = await web.get(_path(link))  # a mail scanner's GET spends nothing
    assert page.status_code == 200
    async with world.sessions() as s:
        assert not (await s.get(User, user.uid)).email_verified  # type: ignore[union-attr]
    done = await web.post("/auth/verify", data={"token": token})
    assert done.status_code == 200 and "verified" in done.text
    twice = await web.post("/auth/verify", data={"token": token})
    assert twice.status_code == 400 and "already used" in twice.text

    assert await authorize(app, world, name, STRONG) == 302


async def test_a_link_expires(web: httpx.AsyncClient, world: World) -> None:
    name, email = _newcomer()
    assert (await sign_up(web, name, email)).status_code == 200
    mail = await mail_to(email, "Verify your e-mail address")
    async with world.sessions() as s:  # the row's clock runs out (the signed expiry is later)
        uid = await s.scalar(select(User.uid).where(User.email == email))
        await s.execute(
            update(AccountLink)
            .where(AccountLink.user_uid == uid)
            .values(expires_at=AccountLink.created_at)
        )
        await s.commit()
    expired = await web.post("/auth/verify", data={"token": _token(mail.links()[0])})
    assert expired.status_code == 400

    resend = await web.post("/auth/verify/resend", data={"email": email})
    assert resend.status_code == 200
    assert (await verify(web, email)).status_code == 200


async def test_password_reset_answers_the_same_for_any_address_and_its_link_works_once(
    app: FastAPI, web: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    stranger = f"nobody-{secrets.token_hex(4)}@example.org"
    earlier = await world.token(user.uid, "openid user:read")
    bearer = {"Authorization": f"Bearer {earlier}"}
    assert (await web.get("/v1/users/me", headers=bearer)).status_code == 200

    known = await web.post("/auth/reset", data={"email": user.email})
    unknown = await web.post("/auth/reset", data={"email": stranger})
    assert known.status_code == unknown.status_code == 200
    assert known.text == unknown.text
    mail = await mail_to(user.email, "Reset your password")
    assert stored_mail(MAIL_DIR, stranger) == []
    link = mail.links()[0]
    form = await web.get(_path(link))
    assert form.status_code == 200 and "new password" in form.text.lower()

    token = _token(link)
    weak = await web.post("/auth/reset/confirm", data={"token": token, "password": "qwerty123"})
    assert weak.status_code == 422 and "most common" in weak.text
    done = await web.post("/auth/reset/confirm", data={"token": token, "password": STRONG})
    assert done.status_code == 200 and "Password changed" in done.text
    reused = await web.post("/auth/reset/confirm", data={"token": token, "password": STRONG})
    assert reused.status_code == 400

    assert (await web.get("/v1/users/me", headers=bearer)).status_code == 401  # signed out
    assert await authorize(app, world, user.username, "correct horse battery") == 401
    assert await authorize(app, world, user.username, STRONG) == 302


@pytest.fixture
def own_settings(app: FastAPI) -> Iterator[None]:
    """A test that changes the app's settings gets them back afterwards."""
    before = app.state.settings
    yield
    app.state.settings = before


async def test_signup_modes_off_and_invite(
    app: FastAPI, app_settings: Settings, web: httpx.AsyncClient, own_settings: None
) -> None:
    name, email = _newcomer()
    app.state.settings = app_settings.model_copy(update={"signup_mode": "off"})
    assert (await web.get("/auth/signup")).status_code == 403
    assert (await sign_up(web, name, email)).status_code == 403

    app.state.settings = app_settings.model_copy(update={"signup_mode": "invite"})
    refused = await sign_up(web, name, email)
    assert refused.status_code == 403 and "invitation" in refused.text
    invited = await mccgw(app_settings, "users", "invite", email.upper())
    assert invited.code == 0, invited.err
    assert (await sign_up(web, name, email)).status_code == 200


async def test_sign_up_and_reset_are_limited_per_source(
    app: FastAPI, app_settings: Settings, web: httpx.AsyncClient, own_settings: None
) -> None:
    app.state.settings = app_settings.model_copy(update={"signup_per_hour": 2})
    for _ in range(2):
        assert (await web.post("/auth/reset", data={"email": "a@example.org"})).status_code == 200
    limited = await web.post("/auth/reset", data={"email": "a@example.org"})
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
    name, email = _newcomer()
    assert (await sign_up(web, name, email)).status_code == 200  # its own window
    assert (await sign_up(web, *_newcomer())).status_code == 200
    assert (await sign_up(web, *_newcomer())).status_code == 429


async def test_e_mail_change_is_confirmed_from_the_new_address(
    web: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    bearer = {"Authorization": f"Bearer {await world.token(user.uid, 'openid user:read')}"}
    new = f"moved-{secrets.token_hex(4)}@example.org"
    taken = await web.post("/v1/users/me/email", json={"email": (await world.user()).email},
                           headers=bearer)  # fmt: skip
    assert taken.status_code == 409 and taken.json()["type"].endswith("account-exists")
    asked = await web.post("/v1/users/me/email", json={"email": new}, headers=bearer)
    assert asked.status_code == 202, asked.text
    assert asked.json()["data"]["attributes"] == {"email": new, "status": "verification_sent"}
    async with world.sessions() as s:
        assert (await s.get(User, user.uid)).email == user.email  # type: ignore[union-attr]
    mail = await mail_to(new, "Confirm your new e-mail address")
    link = mail.links()[0]
    assert (await web.get(_path(link))).status_code == 200
    done = await web.post("/auth/email/confirm", data={"token": _token(link)})
    assert done.status_code == 200 and new in done.text
    async with world.sessions() as s:
        row = await s.get(User, user.uid)
    assert row is not None and row.email == new and row.email_verified

    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id)
    third_party = await world.token(user.uid, "openid user:read", client_id=client_id)
    refused = await web.post("/v1/users/me/email", json={"email": f"x-{new}"},
                             headers={"Authorization": f"Bearer {third_party}"})  # fmt: skip
    assert refused.status_code == 403  # only the person's own sign-in


async def test_deletion_needs_zero_balances_then_erases_the_profile_and_keeps_the_ledger(
    web: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    bearer = {"Authorization": f"Bearer {await world.token(user.uid, 'openid user:read')}"}
    async with world.sessions() as s:
        s.add(LedgerAccount(user_uid=user.uid, currency="MCC", balance=5, held=0, pending_out=0))
        await s.commit()
    confirm = {"password": "correct horse battery"}
    wrong = await web.post("/v1/users/me/delete", json={"password": STRONG}, headers=bearer)
    assert wrong.status_code == 422 and wrong.json()["type"].endswith("wrong-password")
    refused = await web.post("/v1/users/me/delete", json=confirm, headers=bearer)
    assert refused.status_code == 409
    assert refused.headers["content-type"].startswith("application/problem+json")
    problem = refused.json()
    assert problem["type"].endswith("balances-not-zero")
    assert problem["balances"] == [{"currency": "MCC", "balance": "5", "held": "0",
                                    "pending_out": "0"}]  # fmt: skip

    async with world.sessions() as s:
        await s.execute(update(LedgerAccount).where(LedgerAccount.user_uid == user.uid)
                        .values(balance=0))  # fmt: skip
        await s.commit()
    gone = await web.post("/v1/users/me/delete", json=confirm, headers=bearer)
    assert gone.status_code == 204, gone.text
    async with world.sessions() as s:
        row = await s.get(User, user.uid)
        ledger = await s.get(LedgerAccount, (user.uid, "MCC"))
    assert row is not None and row.deleted_at is not None and row.disabled_at is not None
    assert row.username != user.username and user.email != row.email
    assert row.password_hash is None and row.display_name is None
    assert ledger is not None  # the ledger keeps its rows
    assert (await web.get("/v1/users/me", headers=bearer)).status_code == 401
    # The username and the address are free again.
    assert (
        await sign_up(web, user.username.replace("user_", "reuse"), user.email)
    ).status_code == 200
