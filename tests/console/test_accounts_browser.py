"""The authorization server's account pages in a real headless Chromium, against the shared
`mccgw dev` stack (its SMTP server included): a newcomer meets a project's sign-in page, signs
up from its link (a common password refused first), an administrator finds the verification
mail on the console's Mail page, the newcomer follows its link, verifies, goes back to the
project and authorizes it; then forgets the password and resets it from the mailed link.

Each page's screenshot is taken; with ACCOUNTS_SCREENSHOTS_DIR=docs/screens they refresh the
ones docs/access.md shows (otherwise they go to a temporary folder)."""

from __future__ import annotations

import secrets
import time
from typing import Any
from urllib.parse import urlencode

import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from accounts.mailbox import StoredMail, stored_mail
from tests.console.browser_support import Stack, shot, sign_in, text, until

pytestmark = pytest.mark.slow
SHOTS = "ACCOUNTS_SCREENSHOTS_DIR"


def _mail(stack: Stack, to: str, subject: str) -> StoredMail:
    """The newest message to ``to`` that the dev stack's SMTP server stored."""

    def found() -> StoredMail | None:
        hits = [m for m in stored_mail(stack.state_dir / "mail", to) if subject in m.subject]
        return hits[0] if hits else None

    mail: StoredMail = until(found, f"the mail {subject!r} to {to}")
    return mail


def _fill(driver: Any, **fields: str) -> None:
    from selenium.webdriver.common.by import By

    for name, value in fields.items():
        box = driver.find_element(By.NAME, name)
        box.clear()
        box.send_keys(value)


def _press(driver: Any, css: str = "form button") -> None:
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, css).click()
    time.sleep(0.2)


def test_sign_up_verify_authorize_and_reset_in_chromium(stack: Stack, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    project = stack.demo["projects"][0]
    query = {
        "response_type": "code", "client_id": project["oauth_client_id"],
        "redirect_uri": project["redirect_uri"], "scope": "openid profile user:read",
        "state": secrets.token_hex(8), "code_challenge_method": "S256",
        "code_challenge": create_s256_code_challenge(secrets.token_urlsafe(48)),
    }  # fmt: skip
    authorize = f"{stack.base}/auth/oauth/authorize?{urlencode(query)}"
    browser.delete_all_cookies()
    browser.get(authorize)
    assert "Create an account" in text(browser) and "Forgot your password?" in text(browser)
    shot(browser, "signin-with-account-links", SHOTS)

    browser.find_element(By.LINK_TEXT, "Create an account").click()
    until(lambda: "/auth/signup" in browser.current_url, "the sign-up page")
    name = f"newcomer{secrets.token_hex(3)}"
    email = f"{name}@example.org"
    _fill(browser, username=name, email=email, password="password1234")  # a common one
    # The browser's own checks pass (long enough); the server's deny list refuses it.
    _press(browser)
    until(lambda: "most common" in text(browser), "the common password refused")
    shot(browser, "signup-common-password-refused", SHOTS)
    _fill(browser, password="harbor-lantern-58-quince")
    shot(browser, "signup", SHOTS)
    _press(browser)
    until(lambda: "Check your mail" in text(browser), "the sign-up answer")
    shot(browser, "signup-check-your-mail", SHOTS)

    # The administrator sees the mail on the console; the newcomer follows its link.
    admin = stack.demo["admin"]
    sign_in(browser, stack, admin["username"], admin["password"], admin["totp_secret"])
    browser.get(f"{stack.base}/console/mail?{urlencode({'to': email})}")
    until(lambda: "Verify your e-mail address" in text(browser), "the mail on the console")
    shot(browser, "console-mail", SHOTS)
    (link,) = _mail(stack, email, "Verify your e-mail address").links()
    browser.find_element(By.CSS_SELECTOR, f"a[href='{link}']").click()
    until(lambda: "/auth/verify" in browser.current_url, "the verification page")
    shot(browser, "verify", SHOTS)
    _press(browser)
    until(lambda: "is verified" in text(browser), "the verified page")
    shot(browser, "verified", SHOTS)
    browser.find_element(By.LINK_TEXT, "Continue").click()
    until(lambda: "/auth/oauth/authorize" in browser.current_url, "back to the project")
    _fill(browser, username=name, password="harbor-lantern-58-quince")
    _press(browser, "button[value=approve]")
    until(lambda: "code=" in browser.current_url, "the project's redirect with a code")
    assert browser.current_url.startswith(project["redirect_uri"])

    # Forgotten password: the reset page, the mailed link, the new password.
    browser.get(f"{stack.base}/auth/reset")
    shot(browser, "reset", SHOTS)
    _fill(browser, email=email)
    _press(browser)
    until(lambda: "Check your mail" in text(browser), "the reset answer")
    (reset,) = _mail(stack, email, "Reset your password").links()
    browser.get(reset)
    until(lambda: "Choose a new password" in text(browser), "the new-password page")
    _fill(browser, password="quartz-meadow-33-falcon")
    shot(browser, "reset-new-password", SHOTS)
    _press(browser)
    until(lambda: "Password changed" in text(browser), "the changed page")
    shot(browser, "reset-done", SHOTS)
    browser.get(reset)
    _fill(browser, password="another-quartz-91-falcon")
    _press(browser)
    until(lambda: "not valid" in text(browser), "a used link refused")
