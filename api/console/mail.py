"""The console's Mail page: the messages the dev stack's SMTP server stored
(``MAIL_CATCHER_DIR``, accounts/mailbox.py), newest first, so an administrator (or a newcomer
trying the stack) can follow a verification or reset link. Where mail goes to a real SMTP
server there is nothing to show, and the page says so."""

from __future__ import annotations

import asyncio

from fastapi import Request
from fastapi.responses import Response

from accounts.mailbox import stored_mail
from api.console import pages
from core.config import Settings

router = pages.console_router()
SHOWN = 50


@router.get("/mail")
async def mail_page(request: Request, to: str = "") -> Response:
    async with pages.sessions(request) as session:
        await pages.admin(request, session)
    settings: Settings = request.app.state.settings
    directory = settings.mail_catcher_dir
    messages = []
    if directory is not None:
        found = await asyncio.to_thread(stored_mail, directory, to.strip() or None)
        messages = found[:SHOWN]
    return pages.render(
        request, "mail.html", nav="mail", messages=messages, to=to,
        catcher=directory is not None, smtp_url=settings.smtp_url.split("@")[-1],
    )  # fmt: skip
