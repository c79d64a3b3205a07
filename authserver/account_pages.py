"""The account pages of the authorization server (sign-up, verification, password reset,
e-mail change confirmation): plain HTML like the sign-in page (authserver/pages.py), escaped."""

from __future__ import annotations

from html import escape

from accounts.passwords import MIN_LENGTH
from authserver.pages import page


def _error(error: str | None) -> str:
    return f"<p class=error role=alert>{escape(error)}</p>" if error else ""


def _hidden(name: str, value: str | None) -> str:
    if not value:
        return ""
    return f"<input type=hidden name={name} value='{escape(value, quote=True)}'>"


def _value(values: dict[str, str], name: str) -> str:
    return escape(values.get(name, ""), quote=True)


def signup(
    *, values: dict[str, str] | None = None, error: str | None = None, next_url: str | None = None
) -> str:
    v = values or {}
    return page(
        "Create an account",
        "<h1>Create an account</h1>"
        f"{_error(error)}<form method=post action='/auth/signup'>{_hidden('next', next_url)}"
        "<label>Username <input name=username autocomplete=username required minlength=3 "
        f"maxlength=32 pattern='[a-z0-9][a-z0-9_.\\-]{{2,31}}' value='{_value(v, 'username')}'>"
        "</label>"
        "<label>E-mail <input name=email type=email autocomplete=email required "
        f"value='{_value(v, 'email')}'></label>"
        "<label>Password <input name=password type=password autocomplete=new-password required "
        f"minlength={MIN_LENGTH}></label>"
        f"<p class=hint>At least {MIN_LENGTH} characters, and not one of the most common "
        "passwords.</p><button>Create account</button></form>"
        "<p><a href='/auth/verify/resend'>Resend the verification mail</a></p>",
    )


def notice(title: str, message: str, link: tuple[str, str] | None = None) -> str:
    extra = f"<p><a href='{escape(link[0], quote=True)}'>{escape(link[1])}</a></p>" if link else ""
    return page(title, f"<h1>{escape(title)}</h1><p>{escape(message)}</p>{extra}")


def confirm(
    *, title: str, message: str, action: str, token: str, button: str,
    next_url: str | None = None, error: str | None = None,
) -> str:  # fmt: skip
    """A page that asks before a link acts (a mail scanner's GET must not spend it)."""
    return page(
        title,
        f"<h1>{escape(title)}</h1>{_error(error)}<p>{escape(message)}</p>"
        f"<form method=post action='{escape(action, quote=True)}'>{_hidden('token', token)}"
        f"{_hidden('next', next_url)}<button>{escape(button)}</button></form>",
    )


def email_form(
    *, title: str, action: str, intro: str, button: str, error: str | None = None
) -> str:
    return page(
        title,
        f"<h1>{escape(title)}</h1>{_error(error)}<p>{escape(intro)}</p>"
        f"<form method=post action='{escape(action, quote=True)}'>"
        "<label>E-mail <input name=email type=email autocomplete=email required></label>"
        f"<button>{escape(button)}</button></form>",
    )


def new_password(*, token: str, error: str | None = None) -> str:
    return page(
        "Choose a new password",
        f"<h1>Choose a new password</h1>{_error(error)}"
        f"<form method=post action='/auth/reset/confirm'>{_hidden('token', token)}"
        "<label>New password <input name=password type=password autocomplete=new-password "
        f"required minlength={MIN_LENGTH}></label>"
        f"<p class=hint>At least {MIN_LENGTH} characters, and not one of the most common "
        "passwords.</p><button>Set the password</button></form>",
    )
