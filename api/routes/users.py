"""The current user, their profile, and public user info."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema
from starlette.datastructures import UploadFile

from access.fresh import require_fresh_signin
from api.auth.principal import UserPrincipal
from api.callers import PUBLIC, UserRead, UserWrite, actor_of
from api.deps import GatewayDep, SessionDep
from api.envelope import single
from api.errors import invalid_field
from api.idempotency import OptionalIdempotencyKey, write_context
from api.openapi import problems
from api.schemas.users import (
    BaseProfileAttributes,
    PublicUserAttributes,
    UserAttributes,
    UserProfileAttributes,
)
from api.starts import signal_withdrawals
from api.typed import Attributes, One
from core.errors import DomainError, NotFound, ServiceUnavailable
from db.models import User
from engine import wallets
from events.audit import audit_action
from profiles import avatar
from profiles.storage import AvatarStorage, StorageError

router = APIRouter(prefix="/v1/users", tags=["users"])


_PROBLEMS = problems(401, 403, 429)


class ProfileUpdate(BaseModel):
    # Optional since wallet_address may come alone, but never null: still a string to 1.0.0
    # clients (the contract, docs/versioning.md).
    display_name: str | SkipJsonSchema[None] = Field(
        None, min_length=1, max_length=50, examples=["Alice"]
    )
    wallet_address: str | None = Field(
        None,
        max_length=64,
        description="The Solana wallet your withdrawals go to (null removes it). Changing it "
        "needs a sign-in with the gateway's own client within FRESH_SIGNIN_SECONDS, starts a "
        "cooling-off during which withdrawals wait, and cancels the pending ones",
        examples=["9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"],
    )
    idempotency_key: OptionalIdempotencyKey = None


async def _load(session: SessionDep, uid: str) -> User:
    user = await session.get(User, uid)
    if user is None:
        raise NotFound(f"User {uid} does not exist")
    return user


@router.get("/me", response_model=One[UserAttributes], responses=_PROBLEMS)
async def me(user: UserRead, session: SessionDep) -> dict[str, Any]:
    """The current user (scope user:read; `profile` also counts; `email` shows the e-mail)."""
    row = await _load(session, user.uid)
    return single("user", user.uid, UserAttributes.of(row, show_email=_sees_email(user)))


def _sees_email(user: UserPrincipal) -> bool:
    """The e-mail address only for a token holding the ``email`` scope (or an admin's)."""
    return "email" in user.scopes or user.is_admin


@router.get("/me/profile", response_model=One[UserProfileAttributes], responses=_PROBLEMS)
async def my_profile(user: UserRead, session: SessionDep) -> dict[str, Any]:
    """The current user's detailed profile."""
    row = await _load(session, user.uid)
    attributes = UserProfileAttributes.of(row, show_email=_sees_email(user))
    return single("user_profile", user.uid, attributes)


@router.patch(
    "/me/profile",
    response_model=One[UserProfileAttributes],
    responses=problems(
        403, 409, 429,
        s401="`unauthorized`; `fresh-sign-in-required` (a wallet change needs a fresh "
        "sign-in with the gateway's own client: sign in again and repeat)",
        s422="`validation-error` (nothing to change, or not a wallet address)",
        s503="The chain is unreachable to check a new wallet (`service-unavailable`)",
    ),
)  # fmt: skip
async def update_my_profile(
    payload: ProfileUpdate, user: UserWrite, request: Request, gateway: GatewayDep
) -> Any:
    """Change the display name or the wallet withdrawals go to (scope user:write).
    A wallet change needs a sign-in with the gateway's own client within the last
    FRESH_SIGNIN_SECONDS (401 `fresh-sign-in-required` otherwise). Naturally idempotent:
    `idempotency_key` is optional (with one, a retry within 24 h is replayed)."""
    changes = payload.model_fields_set - {"idempotency_key"}
    if not changes or (payload.display_name is None and "wallet_address" not in changes):
        raise invalid_field("display_name", "give display_name or wallet_address to change")
    owner = None
    if "wallet_address" in changes:
        settings = request.app.state.settings
        require_fresh_signin(
            user, settings.fresh_signin_seconds, action="Changing the wallet withdrawals go to"
        )
        if payload.wallet_address is not None:
            owner = await wallets.check_wallet(gateway, payload.wallet_address)
    cancelled: list[str] = []
    async with write_context(
        request, user, operation="users.profile.update", user_uid=user.uid, key_optional=True
    ) as ctx:
        row = await ctx.session.get(User, user.uid, with_for_update=True)
        if row is None:
            raise NotFound(f"User {user.uid} does not exist")
        if payload.display_name is not None:
            row.display_name = payload.display_name
        if "wallet_address" in changes:
            now = datetime.now(UTC)
            decimals = gateway.token_decimals()
            change = await wallets.change_wallet(ctx.session, user.uid, owner, now, decimals)
            cancelled = [w.workflow_id for w in change.cancelled if w.workflow_id]
        await ctx.session.flush()
        await ctx.session.refresh(row)
        # The same e-mail rule as the GET: only a token holding `email` sees the address.
        attributes = UserProfileAttributes.of(row, show_email=_sees_email(user))
        response = ctx.respond(200, single("user_profile", user.uid, attributes))
    signal_withdrawals(request, cancelled, "cancelled")
    return response


@router.get(
    "/{uid}",
    response_model=One[PublicUserAttributes],
    responses=problems(422, subject="user"),
    dependencies=[Depends(PUBLIC)],
)
async def public_user(uid: str, session: SessionDep) -> dict[str, Any]:
    """Public information about a user (no authentication)."""
    return single("user_public", uid, PublicUserAttributes.of(await _load(session, uid)))


@router.get(
    "/{uid}/profile",
    response_model=One[BaseProfileAttributes],
    responses=problems(401, 403, 429, subject="user"),
)
async def user_profile(uid: str, user: UserRead, session: SessionDep) -> dict[str, Any]:
    """A user's base profile (scope user:read): no e-mail, no project attributes."""
    row = await _load(session, uid)
    return single("user_profile", row.uid, BaseProfileAttributes.of(row))


class AvatarAttributes(Attributes):
    avatar_url: str
    content_type: str
    width: int
    height: int
    bytes: int


_AVATAR_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "string",
                            "format": "binary",
                            "description": "JPEG, PNG, GIF or WebP; at most 2 MB",
                        }
                    },
                }
            }
        },
    }
}
# Room for the multipart framing around a file of the maximum size.
_MULTIPART_SLACK = 16 * 1024


def _avatar_problem(exc: avatar.AvatarRejected) -> DomainError:
    return DomainError(exc.detail, status=exc.status, slug=exc.slug)


async def _upload(request: Request) -> bytes:
    length = request.headers.get("content-length")
    if (
        length
        and length.isascii()
        and length.isdecimal()
        and int(length) > avatar.MAX_BYTES + _MULTIPART_SLACK
    ):
        raise _avatar_problem(
            avatar.too_large(f"The upload is larger than {avatar.MAX_BYTES} bytes")
        )
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise _avatar_problem(
            avatar.unsupported("Send the image as multipart/form-data, field file")
        )
    try:
        form = await request.form(max_files=1, max_fields=4)
    except Exception as exc:  # malformed multipart
        raise DomainError(
            "The multipart body is malformed", status=400, slug="malformed-request"
        ) from exc
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise invalid_field(
            "file", "required", "The image is missing: send it in the multipart field `file`"
        )
    data = await upload.read(avatar.MAX_BYTES + 1)
    await form.close()
    return data


@router.post(
    "/me/avatar",
    response_model=One[AvatarAttributes],
    openapi_extra=_AVATAR_BODY,
    responses=_PROBLEMS
    | problems(
        s400="Malformed multipart body (`malformed-request`)",
        s413="More than 2 MB or 4096 px a side (`payload-too-large`)",
        s415="Not a JPEG, PNG, GIF or WebP image (`unsupported-media-type`)",
        s422="No `file` field (`validation-error`)",
        s503="The avatar storage is unavailable (`service-unavailable`)",
    ),
)
async def upload_avatar(user: UserWrite, request: Request, session: SessionDep) -> dict[str, Any]:
    """Upload an avatar (multipart field `file`; jpg, png, gif or webp; at most 2 MB).

    Verified by decoding, re-encoded without metadata, stored; its URL becomes `avatar_url`
    for every project at once."""
    data = await _upload(request)
    try:
        image = await asyncio.to_thread(avatar.clean, data)
    except avatar.AvatarRejected as exc:
        raise _avatar_problem(exc) from exc
    storage: AvatarStorage = request.app.state.avatar_storage
    # Content-addressed: repeating the upload stores nothing new and answers the same URL.
    try:
        url = await storage.put(image.name, image.data, image.content_type)
    except StorageError as exc:
        raise ServiceUnavailable(
            "The avatar storage is unavailable; retry later", headers={"Retry-After": "5"}
        ) from exc
    row = await session.get(User, user.uid, with_for_update=True)
    if row is None:
        raise NotFound(f"User {user.uid} does not exist")
    row.avatar_url = url
    attributes = {
        "avatar_url": url,
        "content_type": image.content_type,
        "width": image.width,
        "height": image.height,
        "bytes": len(image.data),
    }
    audit_action(
        session, actor_of(request, user.uid, "user"), "users.avatar.upload", None, user.uid,
        {"bytes": len(data), "stored": image.name}, attributes,
    )  # fmt: skip
    await session.commit()
    return single("user_avatar", user.uid, attributes)
