"""The plain HTML login + consent page (no template engine: one small page, escaped)."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from access.scopes import USER_SCOPES

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}"
    "label{display:block;margin:.6rem 0}input{width:100%;padding:.4rem}"
    "button{padding:.5rem 1rem;margin-right:.5rem}.error{color:#b00020}"
)


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{escape(title)}</title>"
        f"<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )


def page(title: str, body: str) -> str:
    """A page of the authorization server (the account pages use it too)."""
    return _page(title, body)


def authorize(
    *,
    client_name: str,
    project_name: str,
    scope: str,
    action: str,
    error: str | None = None,
    after: str = "",
) -> str:
    """The sign-in and consent page; ``after``: more ways to sign in (already HTML)."""
    items = "".join(
        f"<li><code>{escape(s)}</code> — {escape(USER_SCOPES.get(s, s))}</li>"
        for s in scope.split()
    )
    problem = f"<p class=error>{escape(error)}</p>" if error else ""
    return _page(
        "Sign in and authorize",
        f"<h1>Authorize {escape(project_name)}</h1>"
        f"<p><strong>{escape(client_name)}</strong> asks to act on your behalf with:</p>"
        f"<ul>{items or '<li>basic access</li>'}</ul>{problem}"
        f"<form method=post action='{escape(action, quote=True)}'>"
        "<label>Username or e-mail <input name=username autocomplete=username required></label>"
        "<label>Password <input name=password type=password autocomplete=current-password>"
        "</label><button name=decision value=approve>Authorize</button>"
        f"<button name=decision value=deny formnovalidate>Deny</button></form>{after}"
        f"{_account_links(action)}",
    )


def _account_links(action: str) -> str:
    """Sign-up and password reset, for a person without an account or without its password
    (authserver/accounts.py); sign-up comes back to this authorization request."""
    back = escape(quote(action, safe=""), quote=True)
    return (
        f"<p class=links><a href='/auth/signup?next={back}'>Create an account</a> · "
        "<a href='/auth/reset'>Forgot your password?</a></p>"
    )


def error(message: str) -> str:
    return _page("Authorization error", f"<h1>Authorization error</h1><p>{escape(message)}</p>")
