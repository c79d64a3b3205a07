"""The second step of a sign-in (issue 44): after the right password, a user with an
authenticator or a passkey is asked for its code (or a recovery code), or the passkey, before
the grant is made; a passkey also signs in alone (authserver.passkeys).

Between the two steps the browser carries a sealed ticket (core.sealed: encrypted and
authenticated under SECRET_KEY, five minutes): the user whose password was right, and the
login it was typed as, so the throttle counts the code's failures on the same account.
The tokens of a two-step sign-in say so in ``amr``: pwd, otp, mfa (RFC 8176); with a passkey
pwd, hwk, mfa, or hwk, user, mfa without the password.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from authserver import mfa_pages, passkey_pages
from authserver import passkeys as pk
from authserver.factors import Factors
from authserver.store import UserInfo
from core import sealed

if TYPE_CHECKING:
    from authserver.server import AuthServer

TICKET = "mfa_ticket"
TICKET_TTL = 300
TWO_STEP_AMR = ("pwd", "otp", "mfa")
_PURPOSE = "mccgw-authserver-signin"


def factors(server: AuthServer) -> Factors:
    return Factors(server.store, server.settings)


def passkeys(server: AuthServer) -> pk.Passkeys:
    return pk.Passkeys(server.store, server.settings)


def ask_second_factor(server: AuthServer, user: UserInfo, action: str, login: str) -> str | None:
    """The second step's page when ``user`` (whose password was right) has an authenticator
    or a passkey (offered as its own form); None when the password is all they sign in with."""
    has_totp = factors(server).has_totp(user.uid)
    keys = passkeys(server)
    if not (has_totp or keys.credential_ids(user.uid)):
        return None
    offer = ""
    if keys.credential_ids(user.uid):
        ceremony = keys.authentication(user.uid, login=login)
        username = mfa_pages._hidden("username", login)
        offer = passkey_pages.sign_in_button(action, ceremony, username)
    if not has_totp:
        return mfa_pages.passkey_step(username=login, offer=offer)
    payload = {"uid": user.uid, "login": login, "exp": time.time() + TICKET_TTL}
    ticket = sealed.seal(server.settings.secret_key, _PURPOSE, TICKET, payload)
    return mfa_pages.code_step(action=action, username=login, ticket=ticket, after=offer)


def passkey_step(
    server: AuthServer, form: dict[str, str], action: str
) -> tuple[UserInfo | None, str]:
    """(the user signed in by a passkey, "") or (None, the page to answer with): password-less
    when the ticket names no user, else the second step of ``uid``'s sign-in."""
    keys = passkeys(server)
    ticket = keys.ticket(form.get(pk.TICKET))
    if ticket is None or ticket.get("login", "") != form.get("username", ""):
        return None, mfa_pages.expired()
    uid = keys.authenticate(ticket, form.get(pk.CREDENTIAL, ""))
    user = server.store.user_by_uid(uid) if uid is not None else None
    if user is None:
        return None, mfa_pages.passkey_refused()
    amr = pk.SIGN_IN_AMR if ticket.get("uid") is None else pk.SECOND_STEP_AMR
    return replace(user, auth_time=int(time.time()), amr=amr), ""


def second_step(
    server: AuthServer, form: dict[str, str], action: str
) -> tuple[UserInfo | None, str]:
    """(the user, signed in with two steps, "") when the form's code is right; else (None, the
    page to answer with)."""
    login = form.get("username", "")
    ticket = sealed.unseal(server.settings.secret_key, _PURPOSE, TICKET, form.get(TICKET))
    if ticket is None or ticket.get("login") != login:
        return None, mfa_pages.expired()
    uid = str(ticket["uid"])
    code = form.get("code", "")
    found = factors(server)
    if not (found.check_totp(uid, code) or found.use_recovery_code(uid, code)):
        error = "That code is not right (or was already used); try the next one"
        page = mfa_pages.code_step(
            action=action, username=login, ticket=form.get(TICKET, ""), error=error
        )
        return None, page
    user = server.store.user_by_uid(uid)
    if user is None:
        return None, mfa_pages.expired()
    return replace(user, auth_time=int(time.time()), amr=TWO_STEP_AMR), ""
