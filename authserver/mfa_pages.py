"""The pages of the second factor (issue 44): the code step of a sign-in and TOTP enrolment.
Plain HTML like authserver.pages, every value escaped."""

from __future__ import annotations

from html import escape

from authserver.pages import _page as page

_CODE_INPUT = (
    "<label>Code from your authenticator app (or a recovery code) "
    "<input name=code autocomplete=one-time-code inputmode=text required autofocus></label>"
)


def _error(error: str | None) -> str:
    return f"<p class=error role=alert>{escape(error)}</p>" if error else ""


def _hidden(name: str, value: str) -> str:
    return f"<input type=hidden name={name} value='{escape(value, quote=True)}'>"


def code_step(
    *, action: str, username: str, ticket: str, error: str | None = None, after: str = ""
) -> str:
    """The sign-in's second step: the password was right, now the code."""
    return page(
        "Two-step sign-in",
        "<h1>Two-step sign-in</h1>"
        f"<p>Signing in as <strong>{escape(username)}</strong>. Enter the 6-digit code your "
        "authenticator app shows now, or one of your recovery codes.</p>"
        f"{_error(error)}<form method=post action='{escape(action, quote=True)}'>"
        f"{_hidden('username', username)}{_hidden('mfa_ticket', ticket)}{_CODE_INPUT}"
        "<button name=decision value=approve>Verify</button>"
        f"<button name=decision value=deny formnovalidate>Cancel</button></form>{after}",
    )


def passkey_step(*, username: str, offer: str) -> str:
    """The second step of a user whose second factor is a passkey only."""
    return page(
        "Two-step sign-in",
        f"<h1>Two-step sign-in</h1><p>Signing in as <strong>{escape(username)}</strong>. "
        f"Confirm with your passkey.</p>{offer}",
    )


def passkey_refused() -> str:
    return page(
        "Sign-in refused",
        "<h1>Sign-in refused</h1><p class=error role=alert>That passkey did not sign you in "
        "(unknown here, used already, or from another site). Go back to the application and "
        "sign in again.</p>",
    )


def enrol_start(*, action: str, error: str | None = None, status: str = "") -> str:
    """Who is enrolling: username and password (and the current code to replace one)."""
    return page(
        "Two-step sign-in: set up",
        "<h1>Set up two-step sign-in</h1>"
        "<p>Signing in will ask for a code from an authenticator app (RFC 6238 TOTP) after "
        "your password. Administrators need it to use the operator console.</p>"
        f"{escape(status)}{_error(error)}<form method=post action='{escape(action, quote=True)}'>"
        "<label>Username or e-mail <input name=username autocomplete=username required></label>"
        "<label>Password <input name=password type=password autocomplete=current-password "
        "required></label><label>Current code (only to replace an authenticator you already "
        "have) <input name=code autocomplete=one-time-code></label>"
        "<button name=step value=password>Continue</button></form>",
    )


def enrol_scan(*, action: str, secret: str, uri: str, ticket: str, error: str | None = None) -> str:
    """The new authenticator's secret, and the field for its first code."""
    spaced = " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))
    return page(
        "Two-step sign-in: add the authenticator",
        "<h1>Add the authenticator</h1>"
        "<p>In your authenticator app, add an account with this key (time-based, 6 digits, "
        f"30 seconds), or open the link on your phone:</p><p><code id=totp-secret>"
        f"{escape(spaced)}</code></p><p><a id=totp-uri href='{escape(uri, quote=True)}'>"
        "Open in an authenticator app</a></p>"
        f"{_error(error)}<form method=post action='{escape(action, quote=True)}'>"
        f"{_hidden('enrol_ticket', ticket)}"
        "<label>The code the app shows now <input name=code autocomplete=one-time-code "
        "inputmode=numeric required autofocus></label>"
        "<button name=step value=confirm>Turn on two-step sign-in</button></form>",
    )


def enrol_done(codes: list[str]) -> str:
    """The recovery codes, shown this once."""
    items = "".join(f"<li><code>{escape(c)}</code></li>" for c in codes)
    return page(
        "Two-step sign-in is on",
        "<h1>Two-step sign-in is on</h1>"
        "<p>Keep these recovery codes somewhere safe: each one signs you in once if you lose "
        "your authenticator. They are shown only now.</p>"
        f"<ol id=recovery-codes>{items}</ol>",
    )


def expired() -> str:
    return page(
        "Sign-in expired",
        "<h1>Sign-in expired</h1><p class=error role=alert>This sign-in took too long or did "
        "not start here. Go back to the application and sign in again.</p>",
    )
