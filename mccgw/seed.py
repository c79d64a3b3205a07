"""Demo data for the dev stack: an admin, two users and one project with real credentials.

Idempotent: a restart keeps existing users and credentials when ``.dev/demo.json`` still holds
secrets that match the database, and rotates them otherwise (nothing shown is a placeholder).
"""

from __future__ import annotations

import json
import secrets
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from solders.keypair import Keypair
from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from access.scopes import USER_SCOPES
from authserver.factors import new_totp, open_secret, seal_secret, totp_uri
from chain import whitelist as wl
from core.config import Settings
from core.security import (
    encrypt_secret,
    hash_api_secret,
    hash_password,
    new_api_key,
    new_api_secret,
    verify_password,
)
from db.models import Project, User
from db.models.access import OAuthClient, OAuthConsent
from db.models.factors import UserFactor
from db.models.onboarding import ProjectApplication
from db.session import create_db_engine, create_session_maker, unit_of_work
from mccgw.seed_orgs import seed_organizations
from onboarding import applications, queries
from onboarding.clients import public_client

PROJECT_SCOPES = [
    "mining:write",
    "mining:read",
    "funds:manage",
    "funds:transfer",
    "funds:read",
    "transfer:write",
    "transfer:read",
    "auction:manage",
]
DEMO_USERS = [
    ("admin", "admin"),
    ("alice", "user"),
    ("bob", "user"),
]
DEMO_PROJECT = "Demo Auction House"
DEMO_REDIRECT_URI = "http://localhost:3000/callback"


T = TypeVar("T")


async def _one_or_none(session: AsyncSession, query: Select[T]) -> T | None:
    """The seeded row, if an earlier run left it (the seed is re-run on every ``mccgw dev``)."""
    return (await session.scalars(query)).one_or_none()


async def _oauth_client(
    session: AsyncSession, project: Project, previous: dict[str, Any] | None
) -> dict[str, Any]:
    """A confidential OAuth client of the project (secret rotated unless demo.json has it)."""
    client = await _one_or_none(
        session, select(OAuthClient).where(OAuthClient.project_id == project.project_id)
    )
    secret = (previous or {}).get("oauth_client_secret")
    if client is None:
        client = OAuthClient(
            client_id=f"cl_{secrets.token_hex(8)}",
            project_id=project.project_id,
            name=f"{project.name} web",
            redirect_uris=[DEMO_REDIRECT_URI, "http://localhost:3001/callback"],
            allowed_scopes=[*USER_SCOPES, *PROJECT_SCOPES],
            grant_types=["authorization_code", "refresh_token"],
            access_token_format="jwt",
        )
        session.add(client)
    if not client.redirect_uris:  # the client approval made: the demo app's callbacks
        client.redirect_uris = [DEMO_REDIRECT_URI, "http://localhost:3001/callback"]
    if not secret or client.client_secret_hash != hash_api_secret(secret):
        secret = secrets.token_urlsafe(32)
        client.client_secret_hash = hash_api_secret(secret)
    await session.flush()
    return {
        "oauth_client_id": client.client_id,
        "oauth_client_secret": secret,
        "redirect_uri": DEMO_REDIRECT_URI,
    }


# The operator console has its own first-party client (authserver.server.CONSOLE_CLIENT_ID).
CLI_CLIENT_ID = "mccgw-cli"


async def _cli_client(session: AsyncSession, settings: Settings) -> str:
    """The gateway's own first-party client for the API docs' OAuth login and `mccgw token`:
    with the console's, the only clients whose tokens carry an administrator's power. It
    belongs to no project, so it can never call as one."""
    client = await session.get(OAuthClient, CLI_CLIENT_ID)
    if client is not None:
        client.allowed_scopes = list(USER_SCOPES)  # a scope added since (funds:withdraw)
    if client is None:
        redirect = settings.base_url.rstrip("/") + "/docs/oauth2-redirect"
        client = public_client(
            CLI_CLIENT_ID,
            None,
            "mccgw docs and CLI",
            [redirect],
            list(USER_SCOPES),
            first_party=True,
        )
        session.add(client)
        await session.flush()
    return CLI_CLIENT_ID


async def _consent(session: AsyncSession, uid: str, project_id: int) -> None:
    """alice has authorized the demo project, so a signed call on her works at once."""
    found = await _one_or_none(
        session,
        select(OAuthConsent).where(
            OAuthConsent.user_uid == uid, OAuthConsent.project_id == project_id
        ),
    )
    if found is None:
        session.add(
            OAuthConsent(
                user_uid=uid,
                project_id=project_id,
                scopes=["profile", *PROJECT_SCOPES],
                source="admin",
            )
        )
    else:
        found.revoked_at = None
        found.scopes = sorted({*found.scopes, "profile", *PROJECT_SCOPES})
    await session.flush()


def _wallet(wallets: Path | None, username: str) -> tuple[Keypair, Path | None]:
    """The demo user's own wallet: a keypair kept in ``wallets/<username>.json`` (Solana CLI
    format, made once), theirs to spend what they withdraw; without a directory, a throwaway."""
    if wallets is None:
        return Keypair(), None
    path = wallets / f"{username}.json"
    if path.exists():
        return Keypair.from_bytes(bytes(json.loads(path.read_text()))), path
    wallets.mkdir(parents=True, exist_ok=True)
    keypair = Keypair()
    path.write_text(json.dumps(list(bytes(keypair))))
    path.chmod(0o600)
    return keypair, path


async def _user(
    session: AsyncSession,
    username: str,
    role: str,
    previous: dict[str, Any] | None,
    wallets: Path | None = None,
) -> dict[str, Any]:
    user = await _one_or_none(session, select(User).where(User.username == username))
    password = (previous or {}).get("password")
    keypair, keypair_file = _wallet(wallets, username)
    if user is None:
        password = secrets.token_urlsafe(12)
        user = User(
            uid=f"u_{secrets.token_hex(8)}",
            username=username,
            email=f"{username}@demo.mccgw.local",
            password_hash=hash_password(password),
            wallet_address=str(keypair.pubkey()),
            role=role,
            display_name=username.capitalize(),
        )
        session.add(user)
    elif not password or not verify_password(password, user.password_hash):
        password = secrets.token_urlsafe(12)
        user.password_hash = hash_password(password)
    if keypair_file is not None:  # registered by the seed: no cooling-off (engine/wallets.py)
        user.wallet_address = str(keypair.pubkey())
    await session.flush()
    shown = {
        "uid": user.uid,
        "email": user.email,
        "username": user.username,
        "password": password,
        "wallet_address": user.wallet_address,
    }
    return shown | ({"wallet_keypair": str(keypair_file)} if keypair_file is not None else {})


async def _admin_totp(
    session: AsyncSession,
    settings: Settings,
    admin: dict[str, Any],
    previous: dict[str, Any] | None,
) -> dict[str, str]:
    """The demo administrator's authenticator (the console admits administrators only with a
    second factor, issue 44): its secret and otpauth URI go to demo.json, for an authenticator
    app (or ``python -c "import pyotp; print(pyotp.TOTP(SECRET).now())"``)."""
    row = await _one_or_none(
        session,
        select(UserFactor).where(UserFactor.user_uid == admin["uid"], UserFactor.kind == "totp"),
    )
    secret = (previous or {}).get("totp_secret")
    if row is None or not secret or open_secret(settings, row.secret_sealed) != secret:
        secret = new_totp(admin["username"]).secret
        if row is None:
            row = UserFactor(user_uid=admin["uid"], kind="totp", secret_sealed="")
            session.add(row)
        row.secret_sealed, row.last_step = seal_secret(settings, secret), None
        row.confirmed_at = datetime.now(UTC)
    await session.flush()
    return {"totp_secret": secret, "totp_uri": totp_uri(admin["username"], secret)}


async def _applied(session: AsyncSession, settings: Settings, owner: dict[str, Any]) -> Project:
    """The demo project made the way any project is: an application, approved with the approve
    call's own service (begin_approval: credentials, the project row, its OAuth client). The
    approval's workflow (the on-chain whitelist) and the one-time secret follow once the worker
    runs (mccgw.demo)."""
    app = ProjectApplication(
        id=uuid.uuid4(),
        project_name=DEMO_PROJECT,
        project_description="Seeded by mccgw dev",
        developer_uid=owner["uid"],
        developer_email=owner["email"],
        company_name="Demo",
        mcd_wallet_address=str(Keypair().pubkey()),
    )
    session.add(app)
    await session.flush()
    await applications.begin_approval(
        session,
        app.id,
        owner["uid"],
        settings.master_key,
        settings.master_key_id,
        wl.program_id(settings),
        PROJECT_SCOPES,
        "standard",
    )
    assert app.project_id is not None
    project = await session.get(Project, app.project_id)
    assert project is not None
    return project


async def _application_of(session: AsyncSession, project: Project, owner_uid: str) -> str:
    """The demo project's application; a project seeded before applications were (an older
    .dev) gets one approved with its whitelist entry pending, so the approval's workflow
    whitelists it too."""
    app = await queries.application_of(session, project.project_id)
    if app is None:
        app = ProjectApplication(
            id=uuid.uuid4(),
            project_name=project.name,
            project_description=project.description,
            developer_uid=owner_uid,
            developer_email=f"{owner_uid}@demo.mccgw.local",
            mcd_wallet_address=project.mcd_wallet_address or str(Keypair().pubkey()),
            status="approved",
            whitelist_status="pending",
            reviewed_by=owner_uid,
            project_id=project.project_id,
            api_key=project.api_key,
            secret_delivered_at=datetime.now(UTC),
        )
        project.mcd_wallet_address = app.mcd_wallet_address
        session.add(app)
        await session.flush()
    return str(app.id)


async def _project(
    session: AsyncSession,
    settings: Settings,
    owner: dict[str, Any],
    previous: dict[str, Any] | None,
) -> dict[str, Any]:
    owner_uid = owner["uid"]
    project = await _one_or_none(session, select(Project).where(Project.name == DEMO_PROJECT))
    secret = (previous or {}).get("api_secret")
    if project is None:
        project = await _applied(session, settings, owner)
        secret = None  # shown once the approval has run (mccgw.demo)
    elif not secret or project.api_secret_hash != hash_api_secret(secret):
        secret = new_api_secret()
        project.api_key = new_api_key()
        project.api_secret_hash = hash_api_secret(secret)
        project.api_secret_encrypted = encrypt_secret(
            secret, settings.master_key, settings.master_key_id
        )
    await session.flush()
    application_id = await _application_of(session, project, owner_uid)
    oauth = await _oauth_client(session, project, previous)
    return {
        **oauth,
        "application_id": application_id,
        "project_id": str(project.project_id),
        "name": project.name,
        "api_key": project.api_key,
        "api_secret": secret,
        "scopes": list(project.allowed_scopes),
        "rate_limit_tier": project.rate_limit_tier,
    }


async def seed(
    settings: Settings,
    previous: dict[str, Any],
    *,
    territory: bool = True,
    wallets: Path | None = None,
) -> dict[str, Any]:
    """Create or refresh the demo data; ``previous`` is the last demo.json (or {}). Without
    ``territory`` the demo territory is left to ``seed_territory`` (its own transaction: the
    ~80,000 rows of mining history take seconds, and ``mccgw dev`` writes them while the
    chain work of the demo goes on). ``wallets``: where the demo users' own wallets (the
    keypairs their profiles name) are kept."""
    old_users = {
        u["username"]: u for u in [previous.get("admin") or {}, *previous.get("users", [])] if u
    }
    old_projects = {p["name"]: p for p in previous.get("projects", [])}

    engine = create_db_engine(settings)
    try:
        async with unit_of_work(create_session_maker(engine)) as session:
            people = [
                await _user(
                    session, name, role, old_users.get(name), wallets if role == "user" else None
                )
                for name, role in DEMO_USERS
            ]
            people[0] |= await _admin_totp(session, settings, people[0], old_users.get("admin"))
            project = await _project(session, settings, people[0], old_projects.get(DEMO_PROJECT))
            await _consent(session, people[1]["uid"], int(project["project_id"]))
            await _cli_client(session, settings)
            if territory:
                await seed_organizations(session, people[1]["uid"], people[2]["uid"])
    finally:
        await engine.dispose()

    admin = {k: people[0][k] for k in ("uid", "username", "password", "totp_secret", "totp_uri")}
    return {"admin": admin, "users": people[1:], "projects": [project]}


async def seed_territory(settings: Settings, demo: dict[str, Any]) -> bool:
    """The demo territory (docs/organizations.md): alice in a lit station, bob not; True when
    created (idempotent: one transaction, skipped when it exists)."""
    alice, bob = (u["uid"] for u in demo["users"][:2])
    engine = create_db_engine(settings)
    try:
        async with unit_of_work(create_session_maker(engine)) as session:
            return await seed_organizations(session, alice, bob)
    finally:
        await engine.dispose()
