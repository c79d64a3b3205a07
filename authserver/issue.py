"""Issue tokens without the browser flow: ``mccgw token`` and tests.

The token is minted by the same authlib generator and recorded like any other.
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from authserver.models import Client
from authserver.server import CONSOLE_CLIENT_ID, AuthServer


class IssueError(Exception):
    pass


def issue_token(
    server: AuthServer,
    *,
    user: str,
    scope: str,
    client_id: str | None = None,
    refresh: bool = False,
    auth_time: int | None = None,
    amr: tuple[str, ...] = ("pwd",),
) -> dict[str, Any]:
    """A token response (access_token, expires_in, scope, ...) for a user by uid or username.
    Whoever may call this holds the server's keys: the token counts as a sign-in now, unless
    ``auth_time`` (Unix seconds) says when the user signed in."""
    found = server.store.user_by_login(user)
    if found is None:
        raise IssueError(f"no user {user!r}")
    when = int(time.time()) if auth_time is None else auth_time
    signed_in = replace(found[0], auth_time=when, amr=amr)
    client: Client | None
    if client_id:
        client = server.query_client(client_id)
    else:
        # The console's client signs administrators in to the console only; tokens for the CLI
        # and the docs come from the seeded first-party CLI client (or a project's).
        row = server.store.first_client(exclude=(CONSOLE_CLIENT_ID,))
        client = server.query_client(row.client_id) if row else None
    if client is None:
        raise IssueError("no OAuth client (run `mccgw dev` to seed the demo clients)")
    token: dict[str, Any] = server.generate_token(
        "authorization_code", client, user=signed_in, scope=scope, include_refresh_token=refresh
    )
    server.save_token(token, SimpleNamespace(client=client, user=signed_in, refresh_token=None))
    return token
