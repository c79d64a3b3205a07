"""The operator's account commands, run as the operator runs them (``mccgw admin ...``,
``mccgw users ...`` in a process of their own): the first administrator, admin grants and
revocations, disabling an account, each with its operator-audit row."""

from __future__ import annotations

import secrets

from authlib.common.security import generate_token
from fastapi import FastAPI
from sqlalchemy import select

from core.config import Settings
from db.models import User
from db.models.access import AuditLog
from tests.access.test_oauth_flow import AUTH, TOKEN_URL, login_and_consent, oauth_client
from tests.accounts.conftest import OPERATOR, mccgw
from tests.factories import PASSWORD, World

GOOD = "plum-orbit-cactus-41"


async def _audit(world: World, uid: str, operation: str) -> AuditLog:
    async with world.sessions() as s:
        row = await s.scalar(
            select(AuditLog).where(AuditLog.user_uid == uid, AuditLog.operation == operation)
        )
    assert row is not None, f"no audit row {operation} for {uid}"
    return row


async def test_admin_create_reads_the_password_from_stdin_and_audits_the_operator(
    app_settings: Settings, world: World
) -> None:
    name = f"root_{secrets.token_hex(3)}"
    email = f"{name}@ops.example"
    refused = await mccgw(app_settings, "admin", "create", "--username", name, "--email", email,
                          "--password", GOOD)  # fmt: skip
    assert refused.code == 2 and "unrecognized arguments" in refused.err  # never an argument

    weak = await mccgw(app_settings, "admin", "create", "--username", name, "--email", email,
                       "--password-stdin", stdin="password123\n")  # fmt: skip
    assert weak.code == 1 and "most common" in weak.err

    made = await mccgw(app_settings, "admin", "create", "--username", name, "--email", email,
                       "--password-stdin", stdin=GOOD + "\n")  # fmt: skip
    assert made.code == 0, made.err
    async with world.sessions() as s:
        user = await s.scalar(select(User).where(User.username == name))
    assert user is not None and user.role == "admin" and user.email_verified
    audit = await _audit(world, user.uid, "accounts.admin.create")
    assert audit.actor == f"operator:{OPERATOR}"
    assert GOOD not in str(audit.request_body) and GOOD not in str(audit.response_body)

    again = await mccgw(app_settings, "admin", "create", "--username", name, "--email", email,
                        "--password-stdin", stdin=GOOD + "\n")  # fmt: skip
    assert again.code == 1 and "already in use" in again.err


async def test_grant_and_revoke_the_admin_role(app_settings: Settings, world: World) -> None:
    user = await world.user()
    granted = await mccgw(app_settings, "admin", "grant", user.username)
    assert granted.code == 0 and "role admin" in granted.out, granted.err
    revoked = await mccgw(app_settings, "admin", "revoke", user.email)
    assert revoked.code == 0 and "role user" in revoked.out, revoked.err
    async with world.sessions() as s:
        assert (await s.get(User, user.uid)).role == "user"  # type: ignore[union-attr]
    for operation in ("accounts.admin.grant", "accounts.admin.revoke"):
        assert (await _audit(world, user.uid, operation)).actor == f"operator:{OPERATOR}"
    unknown = await mccgw(app_settings, "admin", "grant", "nobody-at-all")
    assert unknown.code == 1 and "No user" in unknown.err


async def test_a_disabled_user_cannot_sign_in_and_their_tokens_stop_working(
    app: FastAPI, app_settings: Settings, world: World
) -> None:
    user = await world.user()
    project = await world.project()
    client_id, _ = await world.oauth_client(project.project_id, public=True)
    verifier = generate_token(48)
    async with oauth_client(app, client_id, None) as client:
        location = await login_and_consent(client, user.username, verifier)
        token = await client.fetch_token(
            TOKEN_URL, authorization_response=location, code_verifier=verifier
        )
        assert (await client.get("/v1/users/me")).status_code == 200

        off = await mccgw(app_settings, "users", "disable", user.username)
        assert off.code == 0 and "1 token(s) revoked" in off.out, off.err

        me = await client.get("/v1/users/me")
        assert me.status_code == 401, me.text
        legacy = await client.get(
            "/users/profile", headers={"Authorization": f"Bearer {token['id_token']}"}
        )
        assert legacy.status_code == 401, legacy.text
        refresh = await client.request(
            "POST", TOKEN_URL, withhold_token=True,
            data={"grant_type": "refresh_token", "client_id": client_id,
                  "refresh_token": token["refresh_token"]},
        )  # fmt: skip
        assert refresh.status_code == 400 and refresh.json()["error"] == "invalid_grant"
        url, _ = client.create_authorization_url(AUTH + "/oauth/authorize", code_verifier=verifier)
        signin = await client.request(
            "POST", url, withhold_token=True,
            data={"username": user.username, "password": PASSWORD, "decision": "approve"},
        )  # fmt: skip
        assert signin.status_code == 401
    assert (await _audit(world, user.uid, "accounts.user.disable")).actor == (
        f"operator:{OPERATOR}"
    )
