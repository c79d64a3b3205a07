"""Two-step sign-in in a real headless Chromium (issue 44), on the shared `mccgw dev` stack the
console's browser test uses: a person enrols an authenticator app on the authorization server's
page and keeps the recovery codes; their next sign-in asks for the app's code after the
password; an administrator without a second factor is turned away from the console with a page
that says where to enrol. Screenshots: SIGNIN_SCREENSHOTS_DIR=docs/screens refreshes the ones
docs/access.md shows (otherwise a temporary folder)."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from tests.console.browser_support import (
    Stack,
    chromium,
    on_stack,
    require_browser,
    shot,
    sign_in,
    text,
    until,
)
from tests.factories import PASSWORD, password_hash, totp_code
from tests.shared_stacks import DevStack

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack(shared_dev_stack: DevStack) -> Iterator[Stack]:
    require_browser()
    running = shared_dev_stack
    yield Stack(running.stack, running.state_dir, running.ports)


@pytest.fixture(scope="module")
def browser(stack: Stack) -> Iterator[Any]:
    yield from chromium()


@pytest.fixture(autouse=True)
def _screens(monkeypatch: pytest.MonkeyPatch) -> None:
    if chosen := os.environ.get("SIGNIN_SCREENSHOTS_DIR"):
        monkeypatch.setenv("CONSOLE_SCREENSHOTS_DIR", chosen)


def _person(stack: Stack, role: str) -> str:
    """A new person on the stack (the demo's are left as they are for the console's test)."""
    from db.models import User

    username = f"{role}-{secrets.token_hex(3)}"

    async def work(gateway: Any, sessions: Any, temporal: Any) -> None:
        async with sessions() as s:
            s.add(User(uid=f"u_{secrets.token_hex(8)}", username=username,
                       email=f"{username}@example.com", password_hash=password_hash(),
                       role=role))  # fmt: skip
            await s.commit()

    on_stack(stack, work)
    return username


def test_a_person_enrols_an_authenticator_then_signs_in_with_its_code(
    stack: Stack, browser: Any
) -> None:
    from selenium.webdriver.common.by import By

    username = _person(stack, "admin")
    # Without a second factor the console turns the administrator away, saying where to enrol.
    sign_in(browser, stack, username, PASSWORD)
    until(lambda: "Two-step sign-in required" in text(browser), "the enrol-first page")
    shot(browser, "console-second-factor-required")
    browser.find_element(By.ID, "enrol").click()
    until(lambda: browser.current_url.endswith("/auth/account/totp"), "the enrolment page")

    browser.find_element(By.NAME, "username").send_keys(username)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    shot(browser, "totp-enrol")
    browser.find_element(By.CSS_SELECTOR, "button[value=password]").click()
    until(lambda: browser.find_elements(By.ID, "totp-secret"), "the new authenticator's key")
    secret = browser.find_element(By.ID, "totp-secret").text.replace(" ", "")
    assert (
        browser.find_element(By.ID, "totp-uri").get_attribute("href").startswith("otpauth://totp/")
    )
    shot(browser, "totp-add")
    browser.find_element(By.NAME, "code").send_keys(totp_code(secret))
    browser.find_element(By.CSS_SELECTOR, "button[value=confirm]").click()
    until(lambda: "Two-step sign-in is on" in text(browser), "the recovery codes")
    codes = browser.find_elements(By.CSS_SELECTOR, "#recovery-codes code")
    assert len(codes) == 10 and all(re.fullmatch(r"[0-9a-f]{6}(-[0-9a-f]{6}){2}", c.text)
                                    for c in codes)  # fmt: skip
    shot(browser, "totp-recovery-codes")

    # The next sign-in asks for the code after the password, and the console lets them in.
    browser.delete_all_cookies()
    browser.get(f"{stack.base}/console/")
    until(lambda: "/auth/oauth/authorize" in browser.current_url, "the sign-in page")
    browser.find_element(By.NAME, "username").send_keys(username)
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
    until(lambda: "Two-step sign-in" in text(browser), "the two-step page")
    browser.find_element(By.NAME, "code").send_keys("000000")
    browser.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
    until(lambda: "not right" in text(browser), "the wrong code refused")
    shot(browser, "totp-sign-in")
    browser.find_element(By.NAME, "code").send_keys(totp_code(secret, 1))
    browser.find_element(By.CSS_SELECTOR, "button[value=approve]").click()
    until(lambda: browser.current_url.endswith("/console/overview"), "the console")


def test_an_administrator_adds_a_passkey_then_signs_in_with_it_alone(
    stack: Stack, browser: Any
) -> None:
    """Chromium's virtual authenticator (CTAP2, built in, user verified) holds the passkey.
    WebAuthn wants a domain: the passkey pages are opened at localhost (the relying party the
    stack's 127.0.0.1 base URL gives), the console stays at 127.0.0.1."""
    from selenium.webdriver.common.by import By

    username = _person(stack, "admin")
    local = stack.base.replace("://127.0.0.1", "://localhost", 1)
    browser.execute_cdp_cmd("WebAuthn.enable", {})
    added = browser.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True}})  # fmt: skip
    try:
        browser.get(f"{local}/auth/account/passkey")
        browser.find_element(By.NAME, "username").send_keys(username)
        browser.find_element(By.NAME, "password").send_keys(PASSWORD)
        browser.find_element(By.CSS_SELECTOR, "button[value=password]").click()
        until(lambda: "Create the passkey" in text(browser), "the page that creates it")
        shot(browser, "passkey-create")
        browser.find_element(By.ID, "passkey-button").click()
        until(lambda: browser.find_elements(By.ID, "passkey-added"), "the passkey added")
        held = browser.execute_cdp_cmd(
            "WebAuthn.getCredentials", {"authenticatorId": added["authenticatorId"]}
        )["credentials"]
        assert len(held) == 1 and held[0]["isResidentCredential"]

        # Signed out (no console session), the passkey alone signs the administrator in.
        browser.get(f"{stack.base}/console/")
        browser.delete_all_cookies()
        browser.get(f"{stack.base}/console/")
        until(lambda: "/auth/oauth/authorize" in browser.current_url, "the sign-in page")
        browser.get(browser.current_url.replace("://127.0.0.1", "://localhost", 1))
        until(lambda: browser.find_elements(By.ID, "passkey-button"), "the passkey button")
        shot(browser, "passkey-sign-in")
        browser.find_element(By.ID, "passkey-button").click()
        until(lambda: browser.current_url.endswith("/console/overview"), "the console")
        assert "Two-step sign-in required" not in text(browser)
        assert username in text(browser)
    finally:
        browser.execute_cdp_cmd(
            "WebAuthn.removeVirtualAuthenticator", {"authenticatorId": added["authenticatorId"]}
        )
