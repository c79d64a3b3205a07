"""The operator console in a real headless Chromium (Debian's chromium + chromedriver, driven
by Selenium) against a `mccgw dev` stack started here on free ports with its own state dir.

Sign in through our authorization server as the seeded admin; approve bob's application and
see its whitelist entry; cancel a transfer that never reached the chain; make another one stuck
by stopping the chain node (SIGSTOP), see the console refuse to cancel it (it could still land)
and retry it once the node runs again; and check that a non-admin (alice) is refused.

Each page's screenshot is written to docs/console/ (the README and docs/console.md show them).
Under CI (CI=true) a missing browser or driver fails the test instead of skipping it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import shutil
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psutil
import pytest
from solders.keypair import Keypair

from core.embedded import free_port
from tests.conftest import traversable_tmp
from tests.test_dev_stack import _Stack

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "console"
WAIT = 30.0


def _require_browser() -> None:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        message = f"headless Chromium is needed: missing {', '.join(missing)} (apt: chromium, "
        message += "chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


class Stack:
    def __init__(self, stack: _Stack, state_dir: Path, ports: dict[str, int]) -> None:
        self.stack = stack
        self.state_dir = state_dir
        self.base = f"http://127.0.0.1:{ports['api']}"
        self.demo: dict[str, Any] = json.loads((state_dir / "demo.json").read_text())

    def child(self, marker: list[str]) -> psutil.Process:
        for p in psutil.Process(self.stack.proc.pid).children(recursive=True):
            cmdline = p.cmdline()
            if all(m in cmdline for m in marker):
                return p
        raise AssertionError(f"no stack process with {marker}")

    @property
    def node(self) -> psutil.Process:
        return self.child(["-m", "chain.node"])

    @property
    def worker(self) -> psutil.Process:
        return self.child(["-m", "worker"])


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    _require_browser()
    root = traversable_tmp("mccgw-console-")
    state_dir = root / "dev"
    ports = {name: free_port() for name in ("api", "temporal", "ui", "rpc")}
    running = _Stack(state_dir, ports)
    try:
        running.wait_ready(f"http://127.0.0.1:{ports['api']}")
        yield Stack(running, state_dir, ports)
        for p in psutil.Process(running.proc.pid).children(recursive=True):
            try:
                if p.status() == psutil.STATUS_STOPPED:
                    p.resume()  # never leave a paused process behind
            except psutil.NoSuchProcess:
                pass
        out = running.stop()
        assert "Traceback" not in out
    finally:
        running.kill()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(stack: Stack) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1360,900", "--disable-extensions", "--no-first-run"):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


# -- helpers -----------------------------------------------------------------------------------


def shot(driver: Any, name: str) -> None:
    """The whole page (not just the window) as docs/console/<name>.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    metrics = {"width": 1360, "height": max(600, min(height, 2400)), "deviceScaleFactor": 1,
               "mobile": False}  # fmt: skip
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        png = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    (SHOTS / f"{name}.png").write_bytes(base64.b64decode(png))


def until(check: Any, what: str, timeout: float = WAIT) -> Any:
    """Poll ``check`` until it gives something truthy. While a form's POST reloads the page,
    the element looked for is briefly missing or stale: that counts as "not yet"."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except (NoSuchElementException, StaleElementReferenceException):
            value = None
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def text(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)


def sign_in(driver: Any, stack: Stack, username: str, password: str) -> None:
    """From the console through our authorization server's login page, as a person does."""
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(f"{stack.base}/console/")
    until(lambda: "/auth/oauth/authorize" in driver.current_url, "the sign-in page")
    assert "client_id=mccgw-console" in driver.current_url
    assert "code_challenge_method=S256" in driver.current_url
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
    until(lambda: "/auth/" not in driver.current_url, "the redirect back to the console")


def submit(driver: Any, css: str, accept: bool = True) -> None:
    """Click a form button; accept the confirm() dialog of a destructive form."""
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, css).click()
    time.sleep(0.2)
    try:
        alert = driver.switch_to.alert
        alert.accept() if accept else alert.dismiss()
    except NoAlertPresentException:
        pass


def id_token(stack: Stack, user: dict[str, Any]) -> str:
    """An ID token for ``user`` from the demo project's OAuth client (this also records the
    user's consent to the demo project, as a real sign-in there does)."""
    project = stack.demo["projects"][0]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode()
    params = {
        "response_type": "code", "client_id": project["oauth_client_id"],
        "redirect_uri": project["redirect_uri"], "scope": "openid profile",
        "state": "s", "code_challenge": challenge.rstrip("="), "code_challenge_method": "S256",
    }  # fmt: skip
    with httpx.Client(base_url=stack.base, timeout=20) as http:
        resp = http.post(
            "/auth/oauth/authorize",
            params=params,
            data={"username": user["username"], "password": user["password"],
                  "decision": "approve"},
        )  # fmt: skip
        assert resp.status_code == 302, resp.text
        code = parse_qs(urlsplit(resp.headers["location"]).query)["code"][0]
        token = http.post(
            "/auth/oauth/token",
            data={
                "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": project["redirect_uri"], "client_id": project["oauth_client_id"],
                "client_secret": project["oauth_client_secret"],
            },
        )  # fmt: skip
        assert token.status_code == 200, token.text
        return str(token.json()["id_token"])


def project_call(stack: Stack, method: str, path: str, body: dict[str, Any] | None = None,
                 timeout: float = 30) -> httpx.Response:  # fmt: skip
    project = stack.demo["projects"][0]
    headers = {"X-Project-ID": project["project_id"], "X-API-Key": project["api_secret"]}
    if body is not None:
        body = {"idempotency_key": uuid.uuid4().hex, **body}
    return httpx.request(method, f"{stack.base}{path}", json=body, headers=headers,
                         timeout=timeout)  # fmt: skip


def transfer_status(stack: Stack, transfer_id: str) -> str:
    resp = project_call(stack, "GET", f"/v1/transfer/{transfer_id}")
    assert resp.status_code == 200, resp.text
    return str(resp.json()["data"]["attributes"]["status"])


def request_transfer(stack: Stack, amount: str) -> str:
    alice, bob = stack.demo["users"]
    resp = project_call(
        stack, "POST", "/v1/transfer/request",
        {"transfer_type": "console_test", "from_uid": alice["uid"], "to_uid": bob["uid"],
         "currency": "MCC", "amount": amount},
    )  # fmt: skip
    assert resp.status_code in (200, 201, 202), resp.text
    return str(resp.json()["data"]["id"])


# -- the tests, in order, on one stack and one browser -----------------------------------------


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
    sign_in(browser, stack, admin["username"], admin["password"])
    until(lambda: browser.current_url.endswith("/console/applications"), "the applications page")
    assert "Console Arena" in text(browser)
    shot(browser, "applications")

    browser.find_element(By.LINK_TEXT, "Console Arena").click()
    until(lambda: application_id in browser.current_url, "the application page")
    shot(browser, "application")
    submit(browser, "#approve")
    if browser.find_elements(By.CSS_SELECTOR, ".spinner"):
        shot(browser, "approving")
    # The page polls the progress fragment until the chain has finalized the whitelist entry.
    until(lambda: browser.find_elements(By.ID, "reveal"), "the approval to finish", 60)
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

    _fund_alice(stack)
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

    def completed() -> bool:
        browser.refresh()
        return browser.find_element(By.ID, "transfer-status").text == "completed"

    until(completed, "the retried transfer to complete", 60)
    assert "completed" in text(browser)
    shot(browser, "transfer-completed")
    assert transfer_status(stack, never) == "cancelled"


def test_d_drifts_projects_and_csrf(stack: Stack, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    run_id = _drift_and_reconcile(stack)
    bob = stack.demo["users"][1]["uid"]
    browser.get(f"{stack.base}/console/drifts?currency=MCC&q={bob}")
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


def _on_stack(stack: Stack, work: Callable[[Any, Any, Any], Awaitable[Any]]) -> Any:
    """Run ``work(gateway, sessions, temporal)`` against the stack's own database, chain keys
    and Temporal (read from its worker's environment), on a loop in a thread of its own:
    asyncio.run would reset this thread's event loop, which pytest-asyncio's session keeps."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from solana.rpc.async_api import AsyncClient
    from temporalio.client import Client

    from chain.gateway import ChainGateway
    from chain.keys import load_or_create_keys
    from core.config import Settings
    from db.session import create_db_engine, create_session_maker

    env = stack.worker.environ()
    settings = Settings(
        _env_file=None,
        database_url=env["DATABASE_URL"],
        redis_url=env["REDIS_URL"],
        solana_rpc_url=env["SOLANA_RPC_URL"],
        chain_keys_dir=Path(env["CHAIN_KEYS_DIR"]),
        environment="dev",
    )

    async def run() -> Any:
        engine = create_db_engine(settings)
        client = AsyncClient(settings.solana_rpc_url, timeout=10)
        try:
            sessions = create_session_maker(engine)
            keys = load_or_create_keys(settings.chain_keys_dir)
            gateway = ChainGateway(settings, client, keys, sessions)
            temporal = await Client.connect(env["TEMPORAL_ADDRESS"])
            return await work(gateway, sessions, temporal)
        finally:
            await client.close()
            await engine.dispose()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def _fund_alice(stack: Stack) -> None:
    """Mint MCC to alice and credit her ledger, exactly as the engine's tests fund users."""
    from engine.funding import fund_user

    async def work(gateway: Any, sessions: Any, temporal: Any) -> None:
        await fund_user(
            gateway, sessions, uid=stack.demo["users"][0]["uid"], currency="MCC",
            amount=100 * 10**9, op_key="console-test-fund",
        )  # fmt: skip

    _on_stack(stack, work)


def _drift_and_reconcile(stack: Stack) -> str:
    """Mint 1 MCC to bob's custody on chain only (the ledger does not know), then run one
    reconciliation pass on the stack's worker; returns the pass's run id."""
    from core.queues import MAIN_TASK_QUEUE
    from workflows.reconcile import ReconcileInput, ReconcileWorkflow

    async def work(gateway: Any, sessions: Any, temporal: Any) -> str:
        await gateway.mint("console-test-drift", stack.demo["users"][1]["uid"], 10**9, "MCC")
        handle = await temporal.start_workflow(
            ReconcileWorkflow.run, ReconcileInput("console test"),
            id=f"console-reconcile-{uuid.uuid4().hex[:8]}", task_queue=MAIN_TASK_QUEUE,
        )  # fmt: skip
        report = await handle.result()
        assert report.drifts, report
        return str(handle.result_run_id)

    return str(_on_stack(stack, work))
