"""The password rule of every account (sign-up, reset, an operator's administrator): at least
``MIN_LENGTH`` characters, not one of the most common passwords (``common-passwords.txt``, the
top of public breach corpora, compared case-insensitively), not the username or the e-mail
address, and not one character repeated. NIST SP 800-63B's rule: length and a deny list, no
composition rules."""

from __future__ import annotations

import functools
from importlib import resources

from accounts.errors import WeakPassword

MIN_LENGTH = 10
MAX_LENGTH = 256


@functools.cache
def common_passwords() -> frozenset[str]:
    text = resources.files("accounts").joinpath("common-passwords.txt").read_text()
    return frozenset(
        line.strip().lower() for line in text.splitlines() if line.strip() and line[0] != "#"
    )


def normal_email(email: str) -> str:
    return email.strip().lower()


def password_problem(password: str, *, username: str = "", email: str = "") -> str | None:
    """Why ``password`` is refused, or None."""
    if len(password) < MIN_LENGTH:
        return f"The password must have at least {MIN_LENGTH} characters"
    if len(password) > MAX_LENGTH:
        return f"The password must have at most {MAX_LENGTH} characters"
    lowered = password.lower()
    if lowered in common_passwords():
        return "That password is one of the most common ones; choose another"
    names = {username.strip().lower(), normal_email(email), normal_email(email).split("@")[0]}
    if lowered in names - {""}:
        return "The password must not be your username or e-mail address"
    if len(set(password)) < 4:
        return "The password must not repeat a few characters"
    return None


def check_password(password: str, *, username: str = "", email: str = "") -> None:
    problem = password_problem(password, username=username, email=email)
    if problem is not None:
        raise WeakPassword(problem)
