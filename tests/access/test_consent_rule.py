"""The consent rule exists once (``access.consent``), and its forms agree: the per-user check,
the set-based clause, the hand-written SQL and the project listing give the same answer for
every state a consent can be in (none, other scope, the scope, revoked)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from access import consent
from db.models.access import OAuthConsent
from tests.factories import World

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = [
    p
    for p in ROOT.glob("*/**/*.py")
    if p.parts[len(ROOT.parts)] not in ("tests", "bench", "migrations", "sdk", ".venv", "db")
]
# Who may name the consent table at all: the rule itself, and the writers of consent (the
# authorization server records a grant, the user's authorization routes list and withdraw
# them through the rule's clause, the demo seed grants one).
WRITERS = {"access/consent.py", "authserver/store.py", "api/routes/authorizations.py"}
SEED = {"mccgw/seed.py"}


def test_no_product_module_spells_the_consent_rule_itself() -> None:
    """Outside ``access/consent.py``, no module filters consents on revocation or scopes: that
    is the rule, and it is asked, never rewritten."""
    rule = re.compile(r"oauth_consents|OAuthConsent\.(revoked_at|scopes)")
    found = []
    for path in PRODUCT:
        name = str(path.relative_to(ROOT))
        if name in WRITERS | SEED:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if rule.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "the consent rule written outside access/consent.py:\n" + "\n".join(found)


async def _answers(session: AsyncSession, project_id: int, uid: str, scope: str) -> set[bool]:
    consent.forget(project_id, uid)
    single = await consent.is_user_authorized(session, project_id, uid, scope)
    batch = uid in await consent.authorized_users(session, project_id, {uid, "u_nobody"}, scope)
    raw = await session.scalar(
        text(f"SELECT {consent.consent_exists_sql(scope)}"),
        {"project_id": project_id, "uid": uid},
    )
    listed = project_id in await consent.authorized_projects(session, uid, {scope})
    return {single, batch, bool(raw), listed}


async def test_every_form_of_the_rule_gives_the_same_answer(
    world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    user = await world.user()
    creds = await world.project()
    pid = creds.project_id
    async with session_maker() as session:
        assert await _answers(session, pid, user.uid, "mining:write") == {False}
    await world.consent(user.uid, pid, ["openid", "funds:read"])
    async with session_maker() as session:
        assert await _answers(session, pid, user.uid, "mining:write") == {False}
        assert await _answers(session, pid, user.uid, "funds:read") == {True}
        await session.execute(
            update(OAuthConsent)
            .where(OAuthConsent.user_uid == user.uid)
            .values(revoked_at=datetime.now(UTC))
        )
        await session.flush()
        assert await _answers(session, pid, user.uid, "funds:read") == {False}
        assert pid not in await consent.authorized_projects(session, user.uid)
