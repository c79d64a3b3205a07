"""The console over HTTP in process (no browser): sign-in through our authorization server,
the admin-only rule, cookies, CSRF, every page, problem pages, and an approval end to end."""

from __future__ import annotations

import asyncio
import re
import uuid

import httpx
from fastapi import FastAPI
from solders.keypair import Keypair
from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from activities.deps import WorkerDeps
from core.security import hash_api_secret
from db.models import Project, User
from db.models.access import AuditLog
from db.models.onboarding import McdWhitelistEntry, ProjectApplication
from events.audit import new_audit
from tests.engine.withdrawing import UNIT, holder
from tests.factories import PASSWORD, World, totp_code


async def sign_in(web: httpx.AsyncClient, username: str, totp: str | None = None) -> httpx.Response:
    """Console -> authorize page -> login (and the code of the user's authenticator, whose
    secret is ``totp``) -> callback, following redirects by hand."""
    start = await web.get("/console/login", params={"next": "/console/whitelist"})
    assert start.status_code == 303
    authorize = start.headers["location"]
    assert "client_id=mccgw-console" in authorize and "code_challenge_method=S256" in authorize
    page = await web.get(authorize)
    assert page.status_code == 200 and "mccgw operator console" in page.text
    decided = await web.post(
        authorize, data={"username": username, "password": PASSWORD, "decision": "approve"}
    )
    if totp is not None:
        assert decided.status_code == 200 and "Two-step sign-in" in decided.text, decided.text
        ticket = re.search(r"name=mfa_ticket value='([^']+)'", decided.text)
        assert ticket, decided.text
        decided = await web.post(authorize, data={
            "username": username, "mfa_ticket": ticket.group(1), "code": totp_code(totp),
            "decision": "approve",
        })  # fmt: skip
    assert decided.status_code == 302, decided.text
    callback = decided.headers["location"]
    assert callback.startswith("http://127.0.0.1:8000/console/callback?")
    return await web.get(callback)


def csrf(html: str) -> str:
    found = re.search(r'name=csrf_token value="([^"]+)"', html)
    assert found, html
    return found.group(1)


async def admin_web(web: httpx.AsyncClient, world: World) -> str:
    admin = await world.user("admin")
    secret, _ = await world.totp(admin.uid)
    done = await sign_in(web, admin.username, secret)
    assert done.status_code == 303 and done.headers["location"] == "/console/whitelist"
    page = await web.get("/console/applications")
    assert page.status_code == 200
    return csrf(page.text)


async def application(sessions: async_sessionmaker[AsyncSession], world: World) -> uuid.UUID:
    developer = await world.user()
    row = ProjectApplication(
        id=uuid.uuid4(), developer_uid=developer.uid, developer_email=developer.email,
        status="pending", project_name=f"Console {uuid.uuid4().hex[:6]}",
        mcd_wallet_address=str(Keypair().pubkey()),
    )  # fmt: skip
    async with sessions() as s:
        s.add(row)
        await s.commit()
    return row.id


async def test_without_a_session_every_page_sends_to_sign_in(web: httpx.AsyncClient) -> None:
    for path in ("/console/applications", "/console/transfers?view=failed", "/console/drifts"):
        resp = await web.get(path)
        assert resp.status_code == 303
        assert resp.headers["location"].startswith("/console/login?next=%2Fconsole%2F")
    login = await web.get("/console/login")
    cookie = login.headers["set-cookie"]
    assert "mccgw_console_login=" in cookie and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie and "Path=/console" in cookie
    assert "Secure" not in cookie  # plain-HTTP loopback dev/test only
    # A progress poll without a session stops with a short fragment, not a login page.
    poll = await web.get(
        f"/console/applications/{uuid.uuid4()}/progress", headers={"X-Console-Fragment": "1"}
    )
    assert poll.status_code == 401 and "Signed out" in poll.text and "data-poll" not in poll.text
    # A POST without a session is not acted on either.
    resp = await web.post("/console/whitelist/1/suspend", data={"csrf_token": "x"})
    assert resp.status_code == 303 and "/console/login" in resp.headers["location"]


async def test_admin_signs_in_and_every_page_renders(web: httpx.AsyncClient, world: World) -> None:
    await admin_web(web, world)
    cookie = next(c for c in web.cookies.jar if c.name == "mccgw_console")
    assert cookie.path == "/console" and cookie.has_nonstandard_attr("HttpOnly")
    for path, expect in (
        ("/console/applications?status=all&q=x", "Project applications"),
        ("/console/whitelist?status=all", "MCD whitelist"),
        ("/console/transfers?view=failed&page=2", "Transfers"),
        ("/console/drifts?currency=MCC", "Reconciliation drifts"),
        ("/console/projects?status=active", "Projects"),
        ("/console/withdrawals?view=stuck&currency=MCC", "Withdrawals"),
        ("/console/withdrawals?view=held&q=u_x&page=2", "Outflow breaker"),
    ):
        resp = await web.get(path)
        assert resp.status_code == 200, (path, resp.text)
        assert expect in resp.text and "Sign out" in resp.text


async def test_a_user_who_is_not_admin_gets_a_403_page(
    web: httpx.AsyncClient, world: World
) -> None:
    user = await world.user()
    resp = await sign_in(web, user.username)
    assert resp.status_code == 403
    assert "Administrators only" in resp.text
    assert "mccgw_console=" not in resp.headers.get("set-cookie", "")
    assert (await web.get("/console/applications")).status_code == 303


async def test_an_admin_without_a_second_factor_is_sent_to_enrol(
    web: httpx.AsyncClient, world: World
) -> None:
    """The console admits an administrator only after a two-step sign-in (issue 44): with the
    password alone they get a page that says where to enrol, and no session."""
    admin = await world.user("admin")
    resp = await sign_in(web, admin.username)
    assert resp.status_code == 403
    assert "Two-step sign-in required" in resp.text and 'href="/auth/account/totp"' in resp.text
    assert "mccgw_console=" not in resp.headers.get("set-cookie", "")
    assert (await web.get("/console/applications")).status_code == 303


async def test_a_demoted_admin_loses_access_at_once(
    web: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    admin = await world.user("admin")
    secret, _ = await world.totp(admin.uid)
    assert (await sign_in(web, admin.username, secret)).status_code == 303
    assert (await web.get("/console/projects")).status_code == 200
    async with session_maker() as s:
        await s.execute(update(User).where(User.uid == admin.uid).values(role="user"))
        await s.commit()
    resp = await web.get("/console/projects")  # same cookie, role read afresh
    assert resp.status_code == 403 and "Administrators only" in resp.text


async def test_a_callback_that_did_not_start_here_is_refused(web: httpx.AsyncClient) -> None:
    resp = await web.get("/console/callback", params={"code": "x", "state": "forged"})
    assert resp.status_code == 400
    assert "Sign-in failed" in resp.text and "Traceback" not in resp.text


async def test_posts_need_the_sessions_csrf_token_and_reject_works(
    web: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    token = await admin_web(web, world)
    app_id = await application(session_maker, world)
    path = f"/console/applications/{app_id}/reject"
    for forged in ({}, {"csrf_token": "forged"}):
        resp = await web.post(path, data={"reason": "no", **forged})
        assert resp.status_code == 403 and "CSRF check failed" in resp.text
    async with session_maker() as s:
        assert (await s.get(ProjectApplication, app_id)).status == "pending"  # type: ignore[union-attr]

    resp = await web.post(path, data={"reason": "Incomplete details", "csrf_token": token})
    assert resp.status_code == 303
    async with session_maker() as s:
        row = await s.get(ProjectApplication, app_id)
        assert row is not None and row.status == "rejected"
        assert row.rejection_reason == "Incomplete details"
    # The same service refuses a second review: the problem's title and detail, no trace.
    again = await web.post(path, data={"reason": "again", "csrf_token": token})
    assert again.status_code == 409
    assert "Invalid state" in again.text and "cannot be rejected" in again.text
    assert "Traceback" not in again.text
    missing = await web.get("/console/transfers/tr_missing")
    assert missing.status_code == 404 and "Transfer tr_missing not found" in missing.text


async def test_approval_shows_progress_then_the_secret_once(
    web: httpx.AsyncClient,
    world: World,
    session_maker: async_sessionmaker[AsyncSession],
    worker: str,
) -> None:
    token = await admin_web(web, world)
    app_id = await application(session_maker, world)
    started = await web.post(f"/console/applications/{app_id}/approve", data={"csrf_token": token})
    assert started.status_code == 303
    # Approving again before the secret is shown joins the approval: same workflow id.
    again = await web.post(f"/console/applications/{app_id}/approve", data={"csrf_token": token})
    assert again.status_code == 303
    page = await web.get(started.headers["location"])
    assert page.status_code == 200 and "project-approval-" in page.text  # Temporal UI link
    # The keys exist at once: the one-time secret is offered while the whitelist is written.
    assert "Show the one-time api_secret" in page.text
    for _ in range(240):
        fragment = await web.get(
            f"/console/applications/{app_id}/progress", headers={"X-Console-Fragment": "1"}
        )
        if 'data-whitelist="active"' in fragment.text:
            break
        assert 'data-whitelist="pending"' in fragment.text and "data-poll" in fragment.text
        await asyncio.sleep(0.25)
    else:
        raise AssertionError("the whitelist entry was not written")
    assert "data-poll" not in fragment.text and "/console/chain/tx/" in fragment.text
    shown = await web.post(f"/console/applications/{app_id}/secret", data={"csrf_token": token})
    assert shown.status_code == 200 and shown.headers["cache-control"] == "no-store"
    secret = re.search(r"id=api-secret>(sk_[^<]+)<", shown.text)
    assert secret, shown.text
    again = await web.post(f"/console/applications/{app_id}/secret", data={"csrf_token": token})
    assert again.status_code == 409 and secret.group(1) not in again.text
    async with session_maker() as s:
        row = await s.get(ProjectApplication, app_id)
        assert row is not None and row.status == "approved" and row.api_secret_encrypted is None
    assert row.whitelist_tx is not None
    tx = await web.get(f"/console/chain/tx/{row.whitelist_tx}")
    assert tx.status_code == 200 and row.whitelist_tx in tx.text
    assert re.search(r"fee paid:\s*<strong>\d+ lamports</strong> \(compute-unit price \d+", tx.text)
    whitelist = await web.get("/console/whitelist", params={"q": row.mcd_wallet_address})
    assert f'data-project="{row.project_id}"' in whitelist.text
    # Remove it: chain first, then the stored entry; the removal signature is shown.
    removed = await web.post(
        f"/console/whitelist/{row.project_id}/remove", data={"csrf_token": token}
    )
    assert removed.status_code == 303
    listed = await web.get(
        "/console/whitelist", params={"status": "removed", "q": row.mcd_wallet_address}
    )
    assert f'data-project="{row.project_id}"' in listed.text and "removed" in listed.text
    async with session_maker() as s:
        entry = await s.scalar(
            select(McdWhitelistEntry).where(McdWhitelistEntry.project_id == row.project_id)
        )
        assert entry is not None and entry.status == "removed" and entry.remove_tx
    # A removed entry cannot be reactivated: the service's refusal, as a problem page.
    refused = await web.post(
        f"/console/whitelist/{row.project_id}/activate", data={"csrf_token": token}
    )
    assert refused.status_code == 409 and "was removed from the whitelist" in refused.text


async def test_overview_and_its_lists(
    web: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    """The front page draws the last hour as inline SVG (no script), each chart linking to its
    list; an audited call of the hour shows in the operations chart and in the audit list."""
    await admin_web(web, world)
    project = await world.project()
    async with session_maker() as s:
        # The chart shows the hour's busiest operations: ours outnumbers what earlier tests of
        # the session did, so it is drawn whatever ran before.
        busiest = await s.scalar(
            select(func.count())
            .select_from(AuditLog)
            .where(AuditLog.created_at > func.now() - text("interval '1 hour'"))
            .group_by(AuditLog.operation)
            .order_by(func.count().desc())
            .limit(1)
        )
        for n in range((busiest or 0) + 1):
            s.add(
                new_audit(
                    actor=f"project:{project.project_id}", operation="console.test.op",
                    project_id=project.project_id, user_uid=None, request_body={"n": n},
                    idempotency_key=None, client_ip=None, request_id=None, status="failed",
                )
            )  # fmt: skip
        await s.commit()
    home = await web.get("/console")
    assert home.status_code == 303 and home.headers["location"] == "/console/overview"
    page = await web.get("/console/overview")
    assert page.status_code == 200, page.text
    for chart in ("operations", "latency", "webhooks", "drifts", "deposits"):
        assert f"id=chart-{chart}" in page.text
    assert page.text.count("<svg class=chart") >= 2 and "<script>" not in page.text
    assert 'href="/console/audit?operation=console.test.op&amp;hours=1"' in page.text
    assert 'href="/console/deliveries?status=pending"' in page.text
    listed = await web.get("/console/audit", params={"operation": "console.test.op", "hours": 1})
    assert listed.status_code == 200 and "console.test.op" in listed.text
    assert f"project:{project.project_id}" in listed.text
    for path in ("/console/deliveries?status=failed", "/console/deposits?currency=MCC&hours=1"):
        resp = await web.get(path)
        assert resp.status_code == 200 and "Sign out" in resp.text, path


async def test_project_settings_and_roll_from_the_console(
    web: httpx.AsyncClient, world: World, session_maker: async_sessionmaker[AsyncSession]
) -> None:
    """The console's project page changes tier, limits and allow-list with the admin API's
    service (audited with the reason) and rolls the api_secret (shown once, no-store)."""
    token = await admin_web(web, world)
    project = await world.project(rate_limit_tier="free")
    path = f"/console/projects/{project.project_id}"
    bad = await web.post(
        f"{path}/settings", data={"csrf_token": token, "ip_allowlist": "not-an-ip"}
    )
    assert bad.status_code == 422 and "not an IP address" in bad.text
    saved = await web.post(
        f"{path}/settings",
        data={
            "csrf_token": token,
            "rate_limit_tier": "enterprise",
            "limits": '{"mining": {"MCD": {"per_day": "50"}}}',
            "ip_allowlist": "10.0.0.0/8\n192.0.2.1",
            "reason": "console contract",
        },
    )
    assert saved.status_code == 303
    page = await web.get(saved.headers["location"])
    assert "enterprise (10000 requests a minute)" in page.text
    assert "10.0.0.0/8, 192.0.2.1/32" in page.text and "console contract" in page.text
    async with session_maker() as s:
        row = await s.get(Project, project.project_id)
        assert row is not None and row.rate_limit_tier == "enterprise"
        assert row.limits == {"mining": {"MCD": {"per_day": "50"}}}
        audit = (
            await s.scalars(
                select(AuditLog).where(
                    AuditLog.project_id == project.project_id,
                    AuditLog.operation == "admin.projects.update",
                )
            )
        ).one()
        assert audit.request_body["reason"] == "console contract"

    rolled = await web.post(
        f"{path}/roll", data={"csrf_token": token, "expire_previous_in_seconds": "3600"}
    )
    assert rolled.status_code == 200 and rolled.headers["cache-control"] == "no-store"
    secret = re.search(r"id=api-secret>(sk_[^<]+)<", rolled.text)
    assert secret and "id=previous-expires" in rolled.text
    async with session_maker() as s:
        row = await s.get(Project, project.project_id)
        assert row is not None and row.api_secret_hash == hash_api_secret(secret.group(1))
        assert row.previous_api_secret_hash == hash_api_secret(project.secret)
    page = await web.get(path)
    assert "projects.api_secret.roll" in page.text and secret.group(1) not in page.text


async def test_a_copied_cookie_dies_with_the_sign_out(
    web: httpx.AsyncClient, world: World, app: FastAPI
) -> None:
    """Issue 31, L8: the console session ends on the server at sign-out; a copy of the cookie
    taken before (another browser, a stolen one) is signed out too."""
    token = await admin_web(web, world)
    copied = dict(web.cookies)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=str(web.base_url), cookies=copied
    ) as thief:
        assert (await thief.get("/console/projects")).status_code == 200
        out = await web.post("/console/logout", data={"csrf_token": token})
        assert out.status_code == 303
        after = await thief.get("/console/projects")
        assert after.status_code == 303 and "/console/login" in after.headers["location"]


async def test_withdrawal_approvals_from_the_console(
    web: httpx.AsyncClient, world: World, deps: WorkerDeps, worker: str
) -> None:
    """The approval page: a decision needs its reason; approve and reject are the admin API's,
    audited with the admin's uid and reason; the list shows the queue."""
    token = await admin_web(web, world)
    user = await holder(world, deps, web, 2_500 * UNIT)
    first = (await user.withdraw("1200")).json()["data"]["id"]  # above 1,000: one approval
    second = (await user.withdraw("1100")).json()["data"]["id"]
    queue = await web.get("/console/withdrawals")  # the approvals queue by default
    assert queue.status_code == 200 and first in queue.text and second in queue.text
    page = await web.get(f"/console/withdrawals/{first}")
    assert page.status_code == 200 and "id=approve" in page.text and "0 of 1" in page.text
    path = f"/console/withdrawals/{first}/approve"
    refused = await web.post(path, data={"reason": " ", "csrf_token": token})
    assert refused.status_code == 422 and "reason" in refused.text
    done = await web.post(path, data={"reason": "known customer", "csrf_token": token})
    assert done.status_code == 303 and done.headers["location"].endswith("?done=approve")
    assert (await user.until(first))["status"] == "completed"
    rejected = await web.post(
        f"/console/withdrawals/{second}/reject", data={"reason": "flagged", "csrf_token": token}
    )
    assert rejected.status_code == 303
    assert (await user.get(second))["status"] == "rejected"
    page = await web.get(f"/console/withdrawals/{second}?done=reject")
    assert "Rejected:" in page.text and "flagged" in page.text
    async with deps.sessions() as s:
        rows = list(
            await s.scalars(
                select(AuditLog).where(
                    AuditLog.operation.in_(["admin.withdrawal.approve", "admin.withdrawal.reject"]),
                    AuditLog.request_body["withdrawal_id"].astext.in_([first, second]),
                )
            )
        )
    assert sorted(r.request_body["reason"] for r in rows) == ["flagged", "known customer"]
    assert {r.actor for r in rows} == {rows[0].actor} and rows[0].actor.startswith("user:")
