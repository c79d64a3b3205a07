"""The console's cookie sealing and its Secure rule (pure: no services needed)."""

from __future__ import annotations

import time

from api.console.session import SESSION_COOKIE, ConsoleSession, seal, secure_cookies, unseal
from core.config import Settings


def _settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


def test_sealed_cookie_round_trips_and_resists_tampering() -> None:
    settings = _settings(secret_key="k" * 40)
    payload = ConsoleSession.new("u_1", "admin", time.time() + 60).payload()
    value = seal(settings, SESSION_COOKIE, payload)
    assert "admin" not in value  # encrypted, not just signed
    assert unseal(settings, SESSION_COOKIE, value) == payload
    flipped = value[:-2] + ("A" if value[-2] != "A" else "B") + value[-1]
    assert unseal(settings, SESSION_COOKIE, flipped) is None
    # Another key, or the same bytes presented as another cookie, do not open it.
    assert unseal(_settings(secret_key="x" * 40), SESSION_COOKIE, value) is None
    assert unseal(settings, "mccgw_console_login", value) is None
    assert unseal(settings, SESSION_COOKIE, "not-base64!") is None


def test_expired_cookie_is_refused() -> None:
    settings = _settings()
    value = seal(settings, SESSION_COOKIE, {"uid": "u", "exp": time.time() - 1})
    assert unseal(settings, SESSION_COOKIE, value) is None


def test_csrf_compare() -> None:
    console = ConsoleSession.new("u_1", "admin", time.time() + 60)
    assert console.csrf_ok(console.csrf)
    assert not console.csrf_ok(None) and not console.csrf_ok("") and not console.csrf_ok("x")


def test_secure_flag_only_off_for_plain_http_loopback_dev() -> None:
    assert not secure_cookies(_settings(environment="dev", base_url="http://127.0.0.1:8000"))
    assert not secure_cookies(_settings(environment="test", base_url="http://localhost:8000"))
    assert secure_cookies(_settings(environment="dev", base_url="https://127.0.0.1:8000"))
    assert secure_cookies(_settings(environment="dev", base_url="http://10.0.0.5:8000"))
    assert secure_cookies(
        _settings(environment="production", base_url="http://127.0.0.1:8000",
                  secret_key="s" * 40, master_key="bWFzdGVyLWtleS0zMi1ieXRlcy1sb25nLWVub3VnaCE=")
    )  # fmt: skip
