"""What the console's browser test drives: the `mccgw dev` stack it starts, and helpers for
pages, forms, polling and API calls (tests/console/test_console_browser.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psutil
import pytest

from tests.factories import totp_code
from tests.test_dev_stack import _Stack

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT = 30.0


def require_browser() -> None:
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
        return self.child(["-m", "devchain.node"])

    @property
    def worker(self) -> psutil.Process:
        return self.child(["-m", "worker"])


# -- helpers -----------------------------------------------------------------------------------


def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Selenium (Debian's chromium + chromedriver)."""
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


def _shots_dir(env: str) -> Path:
    """A temporary folder, so a test run leaves the work tree as it was; to refresh the
    screenshots the docs show: CONSOLE_SCREENSHOTS_DIR=docs/console (the account pages':
    ACCOUNTS_SCREENSHOTS_DIR=docs/screens) and run the browser test."""
    chosen = os.environ.get(env)
    path = Path(chosen) if chosen else Path(tempfile.gettempdir()) / "mccgw-console-shots"
    path.mkdir(parents=True, exist_ok=True)
    return path


def shot(driver: Any, name: str, env: str = "CONSOLE_SCREENSHOTS_DIR") -> None:
    """The whole page (not just the window) as <screenshots dir>/<name>.png."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    metrics = {"width": 1360, "height": max(600, min(height, 2400)), "deviceScaleFactor": 1,
               "mobile": False}  # fmt: skip
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        png = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    (_shots_dir(env) / f"{name}.png").write_bytes(base64.b64decode(png))


def until(check: Any, what: str, timeout: float = WAIT) -> Any:
    """Poll ``check`` until it gives something truthy. While a form's POST reloads the page,
    the element looked for is briefly missing or stale: that counts as "not yet" (newer
    Chromium reports a node of the page being replaced as an inspector error, not as stale)."""
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
        WebDriverException,
    )

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except (NoSuchElementException, StaleElementReferenceException):
            value = None
        except WebDriverException as exc:
            if "does not belong to the document" not in str(exc):
                raise
            value = None
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def refreshed(driver: Any, element_id: str, wanted: str) -> Callable[[], bool]:
    """For ``until``: the page reloaded shows ``wanted`` in the element ``element_id``."""
    from selenium.webdriver.common.by import By

    def check() -> bool:
        driver.refresh()
        return bool(driver.find_element(By.ID, element_id).text == wanted)

    return check


def text(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.TAG_NAME, "body").text)


def sign_in(
    driver: Any, stack: Stack, username: str, password: str, totp: str | None = None
) -> None:
    """From the console through our authorization server's login page, as a person does (and
    its two-step page, with the code of the authenticator whose secret is ``totp``)."""
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(f"{stack.base}/console/")
    until(lambda: "/auth/oauth/authorize" in driver.current_url, "the sign-in page")
    assert "client_id=mccgw-console" in driver.current_url
    assert "code_challenge_method=S256" in driver.current_url
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
    if totp is not None:
        until(lambda: "Two-step sign-in" in text(driver), "the two-step page")
        # A code is taken once: a sign-in of the same person within the same 30 s (an earlier
        # test's) spent this step's, so the next step's (accepted one step ahead) follows.
        for steps in (0, 1):
            driver.find_element(By.NAME, "code").send_keys(totp_code(totp, steps))
            driver.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
            until(
                lambda: "/auth/" not in driver.current_url or "not right" in text(driver),
                "the code's answer",
            )
            if "/auth/" not in driver.current_url:
                break
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


def _signed_in(
    stack: Stack, user: dict[str, Any], scope: str, *, first_party: bool = False
) -> dict[str, Any]:
    """The token answer of ``user``'s sign-in for ``scope``: at the gateway's own first-party
    client ``mccgw-cli`` (the API docs' sign-in), or at the demo project's OAuth client (which
    also records the user's consent to the demo project, as a real sign-in there does)."""
    if first_party:
        client: dict[str, str] = {"client_id": "mccgw-cli"}
        redirect = f"{stack.base}/docs/oauth2-redirect"
    else:
        project = stack.demo["projects"][0]
        client = {
            "client_id": project["oauth_client_id"],
            "client_secret": project["oauth_client_secret"],
        }
        redirect = project["redirect_uri"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode()
    params = {
        "response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect,
        "scope": scope, "state": "s", "code_challenge": challenge.rstrip("="),
        "code_challenge_method": "S256",
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
                "redirect_uri": redirect, **client,
            },
        )  # fmt: skip
        assert token.status_code == 200, token.text
        answer: dict[str, Any] = token.json()
        return answer


def id_token(stack: Stack, user: dict[str, Any]) -> str:
    """An ID token for ``user`` from the gateway's own sign-in: the only kind the developer
    routes take (issue 38)."""
    return str(_signed_in(stack, user, "openid profile", first_party=True)["id_token"])


def cli_token(stack: Stack, username: str, scope: str) -> str:
    """``mccgw token`` against the stack (its state dir says how to reach it): a token of the
    gateway's own client, as the quickstart gets one."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in _STACK_VARIABLES}
    env["MCCGW_DEV_DIR"] = str(stack.state_dir)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("mccgw")), "token", "--user", username,
         "--scope", scope],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout.strip()


# What `mccgw` would otherwise take from this process instead of the stack's own .dev/env.
_STACK_VARIABLES = ("DATABASE_URL", "REDIS_URL", "TEMPORAL_ADDRESS", "SOLANA_RPC_URL",
                    "CHAIN_KEYS_DIR", "ENVIRONMENT", "BASE_URL", "AUTH_URL")  # fmt: skip


def withdraw(stack: Stack, token: str, amount: str) -> str:
    """A withdrawal of MCC by the user of ``token`` (with funds:withdraw): its id."""
    resp = httpx.post(
        f"{stack.base}/v1/withdrawals",
        json={"currency": "MCC", "amount": amount, "idempotency_key": uuid.uuid4().hex},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert resp.status_code == 202, resp.text
    return str(resp.json()["data"]["id"])


def withdrawal(stack: Stack, token: str, withdrawal_id: str) -> dict[str, Any]:
    resp = httpx.get(
        f"{stack.base}/v1/withdrawals/{withdrawal_id}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert resp.status_code == 200, resp.text
    shown: dict[str, Any] = resp.json()["data"]["attributes"]
    return shown


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


def on_stack(stack: Stack, work: Callable[[Any, Any, Any], Awaitable[Any]]) -> Any:
    """Run ``work(gateway, sessions, temporal)`` against the stack's own database, chain keys
    and Temporal (read from its worker's environment), on a loop in a thread of its own:
    asyncio.run would reset this thread's event loop, which pytest-asyncio's session keeps."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from temporalio.client import Client

    from chain.gateway import ChainGateway
    from chain.keys import load_or_create_keys
    from chain.rpc import ChainRpc
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
        rpc = ChainRpc.of(settings)
        try:
            sessions = create_session_maker(engine)
            keys = load_or_create_keys(settings.chain_keys_dir)
            gateway = ChainGateway(settings, rpc, keys, sessions)
            temporal = await Client.connect(env["TEMPORAL_ADDRESS"])
            return await work(gateway, sessions, temporal)
        finally:
            await rpc.aclose()
            await engine.dispose()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def fund_alice(stack: Stack) -> None:
    """Mint MCC to alice and credit her ledger, exactly as the engine's tests fund users."""
    from devchain.funding import fund_user

    async def work(gateway: Any, sessions: Any, temporal: Any) -> None:
        await fund_user(
            gateway, sessions, uid=stack.demo["users"][0]["uid"], currency="MCC",
            amount=100 * 10**9, op_key="console-test-fund",
        )  # fmt: skip

    on_stack(stack, work)


def drift_and_reconcile(stack: Stack) -> str:
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

    return str(on_stack(stack, work))
