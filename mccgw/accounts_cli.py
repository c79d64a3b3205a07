"""``mccgw admin ...`` and ``mccgw users ...``: the operator's account commands, an adapter of
``accounts.operators`` (the rules and the audit live there). Each command opens a session on
``DATABASE_URL``, runs one action, commits, and then publishes the tokens it revoked to
``REDIS_URL`` so the API refuses them at once. A password is never an argument: it is asked
for twice at a prompt, or read from standard input with ``--password-stdin``."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from events.audit import Actor


def operator_name() -> str:
    """Who typed the command: the OS user (the one behind sudo, when there is one)."""
    return os.environ.get("SUDO_USER") or getpass.getuser()


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Password (again): ") != first:
        raise SystemExit("mccgw: the two passwords differ")
    return first


Action = Callable[["AsyncSession", "Actor"], Awaitable[tuple[str, list[Any]]]]


def _run(command: str, action: Action) -> int:
    """Run one action in one transaction; print its line; publish what it revoked."""
    import asyncio

    import redis

    from access.revocation import publish
    from accounts.operators import operator
    from core.config import get_settings
    from core.errors import DomainError
    from db.session import create_db_engine, create_session_maker

    settings = get_settings()

    async def run() -> tuple[str, list[Any]]:
        engine = create_db_engine(settings)
        try:
            async with create_session_maker(engine)() as session:
                line, revoked = await action(session, operator(operator_name()))
                await session.commit()
                return line, revoked
        finally:
            await engine.dispose()

    try:
        line, revoked = asyncio.run(run())
    except DomainError as exc:
        print(f"mccgw {command}: {exc.detail}", file=sys.stderr)
        return 1
    if revoked:
        client = redis.Redis.from_url(settings.redis_url)
        try:
            publish(client, revoked)
        finally:
            client.close()
    print(line)
    return 0


def _admin_create(args: argparse.Namespace) -> int:
    from accounts.operators import create_admin

    password = read_password(args.password_stdin)

    async def action(session: AsyncSession, actor: Actor) -> tuple[str, list[Any]]:
        user = await create_admin(session, actor, args.username, args.email, password)
        return f"administrator {user.username} created: uid {user.uid}", []

    return _run("admin create", action)


def _role(admin: bool) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        from accounts.operators import set_role

        async def action(session: AsyncSession, actor: Actor) -> tuple[str, list[Any]]:
            user = await set_role(session, actor, args.user, admin)
            return f"{user.username} ({user.uid}): role {user.role}", []

        return _run("admin grant" if admin else "admin revoke", action)

    return command


def _disable(args: argparse.Namespace) -> int:
    from accounts.operators import disable

    async def action(session: AsyncSession, actor: Actor) -> tuple[str, list[Any]]:
        user, revoked = await disable(session, actor, args.user)
        return f"{user.username} ({user.uid}) disabled; {len(revoked)} token(s) revoked", revoked

    return _run("users disable", action)


def _invite(args: argparse.Namespace) -> int:
    from accounts.operators import invite

    async def action(session: AsyncSession, actor: Actor) -> tuple[str, list[Any]]:
        return f"{await invite(session, actor, args.email)} may sign up", []

    return _run("users invite", action)


def add_commands(sub: Any) -> None:
    """The ``admin`` and ``users`` command groups (mccgw/cli.py)."""
    admin = sub.add_parser("admin", help="administrators: create, grant, revoke (audited)")
    verbs = admin.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser("create", help="create an administrator (e.g. the first one)")
    create.add_argument("--username", required=True)
    create.add_argument("--email", required=True)
    create.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    create.set_defaults(func=_admin_create)
    for verb, admin_role in (("grant", True), ("revoke", False)):
        what = "give USER the admin role" if admin_role else "take the admin role from USER"
        role = verbs.add_parser(verb, help=what)
        role.add_argument("user", metavar="USER", help="uid, username or e-mail")
        role.set_defaults(func=_role(admin_role))
    users = sub.add_parser("users", help="accounts: disable, invite (audited)")
    user_verbs = users.add_subparsers(dest="verb", required=True)
    off = user_verbs.add_parser("disable", help="USER cannot sign in; their tokens are revoked")
    off.add_argument("user", metavar="USER", help="uid, username or e-mail")
    off.set_defaults(func=_disable)
    invited = user_verbs.add_parser("invite", help="EMAIL may sign up (SIGNUP_MODE=invite)")
    invited.add_argument("email", metavar="EMAIL")
    invited.set_defaults(func=_invite)
