"""Mail as a real part: the gateway's mailer speaks SMTP (aiosmtplib) to the dev stack's SMTP
server (aiosmtpd), which stores the message; the console shows it to an administrator."""

from __future__ import annotations

import secrets

import httpx
import pytest

from accounts.mail import Mail, Mailer, smtp_server
from core.config import Settings
from tests.accounts.conftest import mail_to
from tests.console.test_console_http import sign_in
from tests.factories import World


def test_smtp_url_names_the_server_its_credentials_and_tls() -> None:
    plain = smtp_server("smtp://mail.example:2525")
    assert (plain.host, plain.port, plain.username, plain.start_tls) == (
        "mail.example", 2525, None, None,
    )  # fmt: skip
    authed = smtp_server("smtp://ops%40example:p%2Fss@mail.example?starttls=required")
    assert (authed.port, authed.username, authed.password, authed.start_tls) == (
        587, "ops@example", "p/ss", True,
    )  # fmt: skip
    tls = smtp_server("smtps://mail.example")
    assert (tls.port, tls.use_tls, tls.start_tls) == (465, True, False)
    with pytest.raises(ValueError, match="SMTP_URL"):
        smtp_server("http://mail.example")


async def test_a_message_goes_through_smtp_into_the_server_and_the_console(
    app_settings: Settings, web: httpx.AsyncClient, world: World
) -> None:
    to = f"newcomer-{secrets.token_hex(3)}@example.org"
    link = f"http://127.0.0.1:8000/auth/verify?token={secrets.token_hex(8)}"
    sent = await Mailer(app_settings).send(Mail(to, "Verify your e-mail", f"Open {link}\n"))
    assert sent
    stored = await mail_to(to, "Verify your e-mail")
    assert stored.links() == [link] and "mccgw" in stored.sender

    # Unreachable server: the mailer says so, it does not raise into its caller.
    dead = app_settings.model_copy(update={"smtp_url": "smtp://127.0.0.1:9"})
    assert not await Mailer(dead).send(Mail(to, "lost", "lost"))

    anonymous = await web.get("/console/mail")
    assert anonymous.status_code == 303 and "/console/login" in anonymous.headers["location"]
    admin = await world.user("admin")
    secret, _ = await world.totp(admin.uid)  # the console admits an admin with a second factor
    await sign_in(web, admin.username, secret)
    page = await web.get("/console/mail", params={"to": to})
    assert page.status_code == 200, page.text
    assert to in page.text and "Verify your e-mail" in page.text and link in page.text


async def test_a_user_who_is_not_admin_sees_no_mail(web: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    refused = await sign_in(web, user.username)  # the console keeps no session for them
    assert refused.status_code == 403 and "Administrators only" in refused.text
    assert (await web.get("/console/mail")).status_code == 303
