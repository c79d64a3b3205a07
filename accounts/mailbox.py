"""The messages the dev stack's embedded SMTP server stored (``MAIL_CATCHER_DIR``, a Maildir
written by mccgw/mailserver.py): what the console's Mail page shows an administrator, and what
the tests read a verification link from."""

from __future__ import annotations

import email
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path

_LINK = re.compile(r"https?://[^\s<>\"']+")


@dataclass(frozen=True)
class StoredMail:
    key: str
    to: str
    sender: str
    subject: str
    received: datetime
    text: str

    def links(self) -> list[str]:
        return _LINK.findall(self.text)


def _text(message: Message) -> str:
    part = message
    if message.is_multipart():
        part = next((p for p in message.walk() if p.get_content_type() == "text/plain"), message)
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return payload.decode(part.get_content_charset() or "utf-8", "replace")
    return str(part.get_payload())


def stored_mail(directory: Path, to: str | None = None) -> list[StoredMail]:
    """Every stored message (only those to ``to``, if given), newest first (by when the server
    stored it: the file's time, finer than the Date header's seconds)."""
    found = []
    for path in [*directory.glob("new/*"), *directory.glob("cur/*")]:
        try:
            with path.open("rb") as f:
                message = email.message_from_binary_file(f)
            stored = path.stat().st_mtime
        except FileNotFoundError:
            continue  # moved meanwhile
        rcpt = str(message.get("X-RcptTo") or message.get("To") or "")
        if to is not None and to.lower() not in rcpt.lower():
            continue
        found.append(
            StoredMail(
                key=path.name.split(":")[0],
                to=rcpt,
                sender=str(message.get("From") or ""),
                subject=str(message.get("Subject") or ""),
                received=datetime.fromtimestamp(stored, UTC),
                text=_text(message),
            )
        )
    return sorted(found, key=lambda m: m.received, reverse=True)
