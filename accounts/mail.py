"""Mail: the one way the gateway sends a message, over SMTP with aiosmtplib (``SMTP_URL``,
``MAIL_FROM``), and the messages the account lifecycle sends. Sending is I/O after the commit:
the caller sends once its transaction is done, and a failure is logged, never shown to the
person (a reset answers the same whether or not a message went out)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import parse_qs, unquote, urlsplit

import aiosmtplib

from core.config import Settings

log = logging.getLogger("mccgw.mail")
SEND_TIMEOUT = 15.0


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    username: str | None = None
    password: str | None = None
    use_tls: bool = False  # smtps: TLS from the first byte
    start_tls: bool | None = None  # None: when the server offers it; True: required


def smtp_server(url: str) -> SmtpServer:
    """``smtp://[user:pass@]host[:port][?starttls=required|off]`` or ``smtps://...``."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError(f"SMTP_URL must be smtp://host:port or smtps://host:port, not {url!r}")
    tls = parts.scheme == "smtps"
    starttls = parse_qs(parts.query).get("starttls", [""])[0]
    return SmtpServer(
        host=parts.hostname,
        port=parts.port or (465 if tls else 587),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        use_tls=tls,
        start_tls={"required": True, "off": False}.get(starttls) if not tls else False,
    )


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    text: str


class Mailer:
    def __init__(self, settings: Settings) -> None:
        self.sender = settings.mail_from
        self.server = smtp_server(settings.smtp_url) if settings.smtp_url else None

    def message(self, mail: Mail) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = mail.to
        message["Subject"] = mail.subject
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain="mccgw")
        message.set_content(mail.text)
        return message

    async def send(self, mail: Mail) -> bool:
        """Send ``mail``; False (logged) when no server is configured or it refused."""
        if self.server is None:
            log.warning("mail to %s not sent: SMTP_URL is not set", mail.to)
            return False
        server = self.server
        try:
            await aiosmtplib.send(
                self.message(mail),
                hostname=server.host,
                port=server.port,
                username=server.username,
                password=server.password,
                use_tls=server.use_tls,
                start_tls=server.start_tls,
                timeout=SEND_TIMEOUT,
            )
        except (aiosmtplib.SMTPException, OSError) as exc:
            log.error("mail to %s not sent: %r", mail.to, exc)
            return False
        return True
