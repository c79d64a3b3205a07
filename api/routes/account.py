"""The person's own account through the gateway's own sign-in: change the e-mail address (a
confirmation link goes to the new one) and delete the account (accounts.lifecycle)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from accounts import lifecycle
from accounts.mail import Mailer
from api.callers import Developer, actor_of
from api.deps import SessionDep, SettingsDep
from api.envelope import single
from api.openapi import problems
from api.typed import Attributes, One

router = APIRouter(prefix="/v1/users", tags=["users"])

_PROBLEMS = problems(
    429,
    s401="Missing or invalid token (`unauthorized`)",
    s403="Not a token of the gateway's own sign-in (`first-party-required`)",
)


class EmailChangeIn(BaseModel):
    email: str = Field(min_length=3, max_length=255, examples=["alice@example.org"])


class EmailChangeAttributes(Attributes):
    email: str = Field(description="The new address, not in use until confirmed")
    status: str = Field(description="`verification_sent`: a link went to the new address")


@router.post(
    "/me/email",
    status_code=202,
    response_model=One[EmailChangeAttributes],
    responses=_PROBLEMS
    | problems(
        s409="The address is another account's (`account-exists`)",
        s422="`invalid-email`, `validation-error`",
    ),
)
async def change_email(
    payload: EmailChangeIn,
    user: Developer,
    session: SessionDep,
    settings: SettingsDep,
    request: Request,
    background: BackgroundTasks,
) -> Any:
    """Change your e-mail address: a confirmation link (24 h, single use) goes to the new
    address; the account keeps the old one until the link is followed (`/auth/email/confirm`)."""
    actor = actor_of(request, user.uid, "user")
    mail = await lifecycle.request_email_change(session, settings, actor, payload.email)
    await session.commit()
    background.add_task(Mailer(settings).send, mail)
    attributes = EmailChangeAttributes(email=mail.to, status="verification_sent")
    return JSONResponse(single("email_change", user.uid, attributes), 202, background=background)


class AccountDeletionIn(BaseModel):
    password: str = Field(
        min_length=1, max_length=256, description="Your current password, to confirm"
    )


@router.post(
    "/me/delete",
    status_code=204,
    response_class=Response,
    responses=_PROBLEMS
    | problems(
        s409="A balance is left (`balances-not-zero`, with `balances`: withdraw or transfer "
        "it first), or the account is already deleted (`invalid-state`)",
        s422="`wrong-password`, `validation-error`",
    ),
)
async def delete_me(
    payload: AccountDeletionIn, user: Developer, session: SessionDep, request: Request
) -> Response:
    """Delete your account, confirmed by your password: the profile is erased (username,
    e-mail, password, names, avatar, wallet, per-project attributes), every consent and token
    revoked; the ledger keeps its rows. Every balance must be zero first, held and outgoing
    amounts included."""
    actor = actor_of(request, user.uid, "user")
    revoked = await lifecycle.delete_account(session, actor, payload.password)
    await session.commit()
    server = request.app.state.auth_server
    if revoked and server.store.on_revoked is not None:
        await run_in_threadpool(server.store.on_revoked, revoked)
    return Response(status_code=204)
