"""The operator console in a real headless Chromium (Debian's chromium + chromedriver, driven
by Selenium) against a `mccgw dev` stack on free ports with its own state dir: the one the
quickstart runs on just before (tests/shared_stacks.py).

Sign in through our authorization server as the seeded admin; approve bob's application and
see its whitelist entry; cancel a transfer that never reached the chain; make another one stuck
by stopping the chain node (SIGSTOP), see the console refuse to cancel it (it could still land)
and retry it once the node runs again; and check that a non-admin (alice) is refused. Then
alice's withdrawals: one the paused worker never sent, found from the stuck-operations page and
cancelled; one above the approval threshold, approved from its page, that reaches her wallet.

Each page's screenshot is taken; with CONSOLE_SCREENSHOTS_DIR=docs/console they refresh the ones
the README and docs/console.md show (otherwise they go to a temporary folder).
Under CI (CI=true) a missing browser or driver fails the test instead of skipping it.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from solders.keypair import Keypair

from tests.console.browser_support import (
    Stack,
    cli_token,
    drift_and_reconcile,
    fund_alice,
    id_token,
    project_call,
    refreshed,
    request_transfer,
    shot,
    sign_in,
    submit,
    text,
    transfer_status,
    until,
    withdraw,
    withdrawal,
)

pytestmark = pytest.mark.slow


def test_a_non_admin_cannot_enter(stack: Stack, browser: Any) -> None:
    alice = stack.demo["users"][0]
    sign_in(browser, stack, alice["username"], alice["password"])
    assert "/console/callback" in browser.current_url
    assert "Administrators only" in text(browser)
    shot(browser, "forbidden")
    # No session was made: the console still sends her to sign in.
    browser.get(f"{stack.base}/console/applications")
    until(lambda: "/auth/oauth/authorize" in browser.current_url, "the sign-in page again")
    shot(browser, "sign-in")


def test_b_admin_approves_an_application(stack: Stack, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    bob = stack.demo["users"][1]
    wallet = str(Keypair().pubkey())
    applied = httpx.post(
        f"{stack.base}/v1/projects/apply",
        headers={"Authorization": f"Bearer {id_token(stack, bob)}"},
        json={"project_name": "Console Arena", "company_name": "Arena Ltd",
              "website_url": "https://arena.example", "mcd_wallet_address": wallet},
        timeout=20,
    )  # fmt: skip
    assert applied.status_code == 201, applied.text
    application_id = applied.json()["data"]["id"]

    admin = stack.demo["admin"]
    sign_in(browser, stack, admin["username"], admin["password"], admin["totp_secret"])
    # The console opens on its front page (the last hour); then the applications.
    until(lambda: browser.current_url.endswith("/console/overview"), "the front page")
    browser.get(f"{stack.base}/console/applications")
    assert "Console Arena" in text(browser)
    shot(browser, "applications")

    browser.find_element(By.LINK_TEXT, "Console Arena").click()
    until(lambda: application_id in browser.current_url, "the application page")
    shot(browser, "application")
    submit(browser, "#approve")
    if browser.find_elements(By.CSS_SELECTOR, ".spinner"):
        shot(browser, "approving")
    # The keys exist at once: the one-time secret is offered while the page polls the progress
    # fragment until the chain has finalized the whitelist entry.
    until(lambda: browser.find_elements(By.ID, "reveal"), "the approval", 60)
    until(
        lambda: browser.find_elements(By.CSS_SELECTOR, "#progress[data-whitelist='active']"),
        "the whitelist entry",
        60,
    )
    shot(browser, "approved")
    submit(browser, "#reveal")
    secret = until(lambda: browser.find_elements(By.ID, "api-secret"), "the one-time secret")
    api_secret = secret[0].text.strip()
    assert api_secret.startswith("sk_"), api_secret
    shot(browser, "secret")
    # Shown once: the application page no longer offers it.
    browser.get(f"{stack.base}/console/applications/{application_id}")
    assert "cannot be shown again" in text(browser)
    assert not browser.find_elements(By.ID, "reveal")

    browser.get(f"{stack.base}/console/whitelist")
    row = until(
        lambda: [r for r in browser.find_elements(By.CSS_SELECTOR, "tr[data-project]")
                 if "Console Arena" in r.text],
        "the whitelist entry",
    )[0]  # fmt: skip
    assert "active" in row.text
    project_id = row.get_attribute("data-project")
    shot(browser, "whitelist")
    # The signature links to the RPC's view of the transaction.
    row.find_element(By.CSS_SELECTOR, "a[href^='/console/chain/tx/']").click()
    until(lambda: "Transaction" in text(browser), "the transaction page")
    assert '"err":null' in browser.page_source.replace(" ", "") or "err" in text(browser)
    shot(browser, "transaction")

    # Suspend and reactivate it: each change is written on chain first, then stored.
    browser.get(f"{stack.base}/console/whitelist")
    row_css = f"tr[data-project='{project_id}']"
    browser.find_element(By.CSS_SELECTOR, f"{row_css} button.warn").click()
    until(lambda: "suspended" in browser.find_element(By.CSS_SELECTOR, row_css).text,
          "the suspension")  # fmt: skip
    shot(browser, "whitelist-suspended")
    browser.find_element(
        By.XPATH, f"//tr[@data-project='{project_id}']//button[text()='Reactivate']"
    ).click()
    until(lambda: "active" in browser.find_element(By.CSS_SELECTOR, row_css).text.split(),
          "the reactivation")  # fmt: skip

    # The credentials shown once work: the new project calls the API with them.
    status = httpx.get(f"{stack.base}/v1/projects/{project_id}/status", timeout=10)
    assert status.json()["data"]["attributes"]["status"] == "active"

    browser.get(f"{stack.base}/console/projects/{project_id}")
    assert "Console Arena" in text(browser)
    shot(browser, "project")

    # The record's link opens its workflow in the Temporal UI (the dev stack's UI address).
    link = browser.find_element(By.LINK_TEXT, "ApprovalWorkflow").get_attribute("href")
    assert link.startswith(stack.demo["temporal_ui_url"]), link
    assert f"project-approval-{application_id}" in link
    browser.get(link)
    until(lambda: "Completed" in text(browser) or "COMPLETED" in text(browser),
          "the workflow in the Temporal UI", 45)  # fmt: skip
    assert "ApprovalWorkflow" in text(browser)
    shot(browser, "temporal-ui")


def test_c_cancel_and_retry_stuck_transfers(stack: Stack, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    fund_alice(stack)
    # 1. A transfer that never reaches the chain (the worker is paused): cancel it.
    worker = stack.worker
    worker.suspend()
    try:
        never = request_transfer(stack, "1")
        assert transfer_status(stack, never) == "pending"
        browser.get(f"{stack.base}/console/transfers?view=stuck&older_than=0")
        until(lambda: never in text(browser), "the pending transfer in the stuck list")
        browser.get(f"{stack.base}/console/transfers/{never}")
        submit(browser, "#cancel")
        until(lambda: "Cancelled:" in text(browser), "the cancel to be confirmed")
        assert browser.find_element(By.ID, "transfer-status").text == "cancelled"
        shot(browser, "transfer-cancelled")
    finally:
        worker.resume()

    # 2. A transfer made stuck by stopping the chain node.
    node = stack.node
    node.suspend()
    try:
        stuck = request_transfer(stack, "2")
        until(lambda: transfer_status(stack, stuck) == "pending_onchain", "pending_onchain", 60)
        browser.get(f"{stack.base}/console/transfers?view=stuck&older_than=0")
        until(lambda: stuck in text(browser), "the stuck transfer in the list")
        shot(browser, "transfers")
        browser.get(f"{stack.base}/console/transfers/{stuck}")
        shot(browser, "transfer-stuck")
        # Its write may still land: the API's safety rule refuses the cancel, shown as a problem.
        submit(browser, "#cancel")
        until(lambda: browser.find_elements(By.CSS_SELECTOR, ".problem"), "the refusal")
        # 409 "being signed right now" (no write recorded yet: signing waits on the node), or
        # 503 if the chain had to be asked; either way the problem, never a trace.
        refusal = text(browser)
        assert "Invalid state" in refusal or "Service unavailable" in refusal, refusal
        assert "Traceback" not in browser.page_source
        assert transfer_status(stack, stuck) == "pending_onchain"
        shot(browser, "cancel-refused")
    finally:
        node.resume()
    browser.get(f"{stack.base}/console/transfers/{stuck}")
    submit(browser, "#retry")
    until(lambda: "Retry done" in text(browser), "the retry to be confirmed")

    until(
        refreshed(browser, "transfer-status", "completed"), "the retried transfer to complete", 60
    )
    assert "completed" in text(browser)
    shot(browser, "transfer-completed")
    assert transfer_status(stack, never) == "cancelled"


def test_d_drifts_projects_and_csrf(stack: Stack, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    run_id = drift_and_reconcile(stack)
    bob = stack.demo["users"][1]["uid"]
    # This run's drift (the stack's scheduled reconciliation may have found it again since).
    browser.get(f"{stack.base}/console/drifts?currency=MCC&q={bob}&run_id={run_id}")
    row = until(lambda: browser.find_elements(By.CSS_SELECTOR, "tbody tr"), "the drift")[0]
    assert bob in row.text and "MCC" in row.text
    assert row.find_element(By.TAG_NAME, "strong").text == "1"  # chain 1 MCC ahead of ledger
    link = row.find_element(By.LINK_TEXT, "ReconcileWorkflow").get_attribute("href")
    assert "RunId" in link and run_id in link
    browser.get(f"{stack.base}/console/drifts")
    shot(browser, "drifts")
    browser.get(f"{stack.base}/console/projects")
    shot(browser, "projects")
    # A status change through the project status machine, recorded in the history.
    browser.find_element(By.LINK_TEXT, "Demo Auction House").click()
    until(lambda: browser.find_elements(By.ID, "change-status"), "the project page")
    Select(browser.find_element(By.NAME, "status")).select_by_visible_text("maintenance")
    browser.find_element(By.NAME, "reason").send_keys("console test: DB upgrade")
    submit(browser, "#change-status")
    until(lambda: browser.find_element(By.ID, "project-status").text == "maintenance",
          "the status change")  # fmt: skip
    assert "console test: DB upgrade" in text(browser)
    shot(browser, "project-status")
    session = next(c for c in browser.get_cookies() if c["name"] == "mccgw_console")
    # HTTP-only, SameSite; not Secure only because this dev stack is plain HTTP on loopback.
    assert session["httpOnly"] is True and session["sameSite"] == "Lax"
    assert session["path"] == "/console"
    # A POST without the session's CSRF token is refused, even with the session cookie.
    cookies = {c["name"]: c["value"] for c in browser.get_cookies()}
    resp = httpx.post(
        f"{stack.base}/console/whitelist/1000/suspend",
        cookies=cookies,
        data={"csrf_token": "forged"},
        timeout=10,
    )
    assert resp.status_code == 403 and "CSRF" in resp.text


def test_e_front_page_demo_whitelist_and_project_control(stack: Stack, browser: Any) -> None:
    """The front page's charts (inline SVG, each a link to its list); the demo project
    whitelisted on chain by its approval at start-up and the price's on-chain signature; and a
    project's tier, limits and key roll changed from its console page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    project = stack.demo["projects"][0]
    price = httpx.get(f"{stack.base}/v1/mcc/price", timeout=10).json()["data"]["attributes"]
    assert price["tx_signature"] and price["tx_signature"] == stack.demo["price_signature"]

    browser.get(f"{stack.base}/console/overview")
    until(lambda: browser.find_elements(By.ID, "chart-operations"), "the front page")
    charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert len(charts) >= 3, text(browser)  # operations, latency (this process) and deposits
    links = [a.get_dom_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "svg a")]
    assert any("/console/audit?operation=" in (h or "") for h in links), links
    assert any("/console/deposits?currency=MCC" in (h or "") for h in links), links
    assert "Webhook backlog" in text(browser) and "Reconciliation drift" in text(browser)
    shot(browser, "overview")
    browser.find_element(By.CSS_SELECTOR, "#chart-operations svg a").click()
    until(lambda: "/console/audit" in browser.current_url, "the audit list")
    assert browser.find_elements(By.CSS_SELECTOR, "tbody tr td.mono")
    shot(browser, "audit")
    browser.get(f"{stack.base}/console/deposits?hours=1")
    assert "credited" in text(browser)
    shot(browser, "deposits")

    # The demo project: whitelisted on chain at start-up through its approval.
    browser.get(f"{stack.base}/console/whitelist")
    row = browser.find_element(By.CSS_SELECTOR, f"tr[data-project='{project['project_id']}']")
    assert "active" in row.text.split() and "Demo Auction House" in row.text

    browser.get(f"{stack.base}/console/projects/{project['project_id']}")
    until(lambda: browser.find_elements(By.ID, "settings-form"), "the project page")
    Select(browser.find_element(By.NAME, "rate_limit_tier")).select_by_value("enterprise")
    limits = browser.find_element(By.NAME, "limits")
    limits.clear()
    limits.send_keys('{"transfer": {"MCC": {"per_operation": "2500"}}}')
    browser.find_element(By.CSS_SELECTOR, "#settings-form input[name=reason]").send_keys(
        "console test: partner contract"
    )
    submit(browser, "#save-settings")
    until(lambda: browser.find_elements(By.ID, "settings-saved"), "the saved settings")
    assert "enterprise (10000 requests a minute)" in text(browser)
    assert "console test: partner contract" in text(browser)
    shot(browser, "project-settings")
    # The project's calls run under the new tier (at once where the project cache is evicted
    # on change; within the cache's 5 s otherwise).
    until(
        lambda: (
            project_call(stack, "GET", "/v1/projects/oauth-client").headers.get("x-ratelimit-limit")
            == "10000"
        ),
        "the enterprise tier in force",
        10,
    )
    # Roll the api_secret with an hour's overlap: the new one is shown once, both work.
    Select(browser.find_element(By.NAME, "expire_previous_in_seconds")).select_by_value("3600")
    submit(browser, "#roll-secret")
    secret = until(lambda: browser.find_elements(By.ID, "api-secret"), "the new secret")
    new = secret[0].text.strip()
    assert new.startswith("sk_") and new != project["api_secret"]
    shot(browser, "rolled")

    def works(key: str) -> bool:
        resp = httpx.get(
            f"{stack.base}/v1/projects/oauth-client",
            headers={"X-Project-ID": project["project_id"], "X-API-Key": key},
            timeout=10,
        )
        return resp.status_code == 200

    # Both work (the new one once the process's project cache has it: at once with eviction
    # on change, within 5 s otherwise); the previous one for the hour of overlap.
    until(lambda: works(new), "the new secret in force", 10)
    assert works(project["api_secret"])


def test_f_withdrawals_stuck_cancel_and_approval(stack: Stack, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    alice = stack.demo["users"][0]
    token = cli_token(stack, alice["username"], "funds:withdraw")
    # 1. Never sent (the worker is paused): the stuck-operations page points at it; cancel it.
    worker = stack.worker
    worker.suspend()
    try:
        small = withdraw(stack, token, "1")
        browser.get(f"{stack.base}/console/transfers?view=stuck&older_than=0")
        notice = until(lambda: browser.find_elements(By.ID, "stuck-withdrawals"), "the notice")
        notice[0].find_element(By.TAG_NAME, "a").click()
        until(lambda: small in text(browser), "the stuck withdrawal in its list")
        shot(browser, "withdrawals-stuck")
        browser.get(f"{stack.base}/console/withdrawals/{small}")
        submit(browser, "#cancel")
        until(lambda: "Cancelled:" in text(browser), "the cancel to be confirmed")
        assert browser.find_element(By.ID, "withdrawal-status").text == "cancelled"
        shot(browser, "withdrawal-cancelled")
    finally:
        worker.resume()
    assert withdrawal(stack, token, small)["status"] == "cancelled"

    # 2. Above the approval threshold (1,000 MCC by default): it waits for an administrator.
    big = withdraw(stack, token, "1200")
    browser.get(f"{stack.base}/console/withdrawals")  # the approvals queue
    until(lambda: big in text(browser), "the withdrawal in the approvals queue")
    shot(browser, "withdrawals")
    browser.find_element(By.LINK_TEXT, big).click()
    until(lambda: browser.find_elements(By.ID, "approve"), "the approval page")
    assert "0 of 1" in browser.find_element(By.ID, "approvals").text
    assert "approval" in browser.find_element(By.ID, "waiting-for").text
    shot(browser, "withdrawal-approval")
    browser.find_element(By.ID, "approve-reason").send_keys("console test: verified by phone")
    submit(browser, "#approve")
    until(lambda: "Approved:" in text(browser), "the approval to be confirmed")

    until(refreshed(browser, "withdrawal-status", "completed"), "the withdrawal to complete", 60)
    assert "console test: verified by phone" in text(browser)
    shot(browser, "withdrawal-completed")
    # Alice sees it in her own wallet (the public balance of any address).
    shown = withdrawal(stack, token, big)
    balance = httpx.get(f"{stack.base}/v1/mcc/balance/{shown['wallet_address']}", timeout=10)
    assert float(balance.json()["data"]["attributes"]["total_balance"]) >= 1200
