"""Settings: DSN normalisation and refusal of default secrets outside development."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from core.config import Settings
from mining.reward import RewardFormula, reward_units
from mining.verify import ProofWindow


@pytest.mark.parametrize(
    "given",
    [
        "postgres://u:p@h:5432/db",
        "postgresql://u:p@h:5432/db",
        "postgresql+psycopg2://u:p@h:5432/db",
        "postgresql+psycopg://u:p@h:5432/db",
    ],
)
def test_dsn_is_normalised_to_psycopg3(given: str) -> None:
    s = Settings(_env_file=None, database_url=given)
    assert s.database_url == "postgresql+psycopg://u:p@h:5432/db"


def test_production_refuses_default_secrets() -> None:
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(_env_file=None, environment="production")


def test_production_accepts_real_secrets() -> None:
    s = Settings(
        _env_file=None,
        environment="production",
        secret_key="a-real-secret",
        master_key="cmVhbC1tYXN0ZXIta2V5LTMyLWJ5dGVzLWxvbmchISE=",
    )
    assert s.environment == "production"


def test_cors_origins_from_a_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORS_ORIGINS", "https://a.example, http://localhost:3000")
    s = Settings(_env_file=None)
    assert s.cors_origins == ["https://a.example", "http://localhost:3000"]


def test_default_cors_has_the_local_front_ends() -> None:
    s = Settings(_env_file=None)
    assert "http://localhost:3000" in s.cors_origins
    assert "http://localhost:3001" in s.cors_origins


def test_webhook_settings_keep_their_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "WEBHOOK_RETRY_SCHEDULE": "0, 0.5,2",
        "WEBHOOK_DISABLE_AFTER_SECONDS": "60",
        "WEBHOOK_TIMEOUT_SECONDS": "3",
        "WEBHOOK_POLL_SECONDS": "0.1",
        "WEBHOOK_BATCH": "7",
        "WEBHOOK_CONCURRENCY": "8",
        "WEBHOOK_HTTP_CLIENT": "HTTPX",
        "WEBHOOK_ALLOWED_HOSTS": "Hooks.Example, 10.0.0.0/8",
        "WEBHOOK_ALLOW_LOOPBACK": "true",
    }.items():
        monkeypatch.setenv(name, value)
    w = Settings(_env_file=None).webhooks
    assert w.retry_schedule == (0.0, 0.5, 2.0)
    assert (w.disable_after_seconds, w.timeout_seconds, w.poll_seconds) == (60.0, 3.0, 0.1)
    assert (w.batch, w.concurrency, w.http_client) == (7, 8, "httpx")
    assert w.allowed_hosts == ("hooks.example", "10.0.0.0/8") and w.allow_loopback


def test_a_negative_retry_delay_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_RETRY_SCHEDULE", "0,-1")
    with pytest.raises(ValidationError, match="WEBHOOK_RETRY_SCHEDULE"):
        Settings(_env_file=None)


def test_mining_settings_keep_their_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reward formula and the proof window come from the one Settings, read once, under
    the names docs/mining.md gives (no module reads them from the environment itself)."""
    monkeypatch.setenv("MINING_REWARD_BASE", "2")
    monkeypatch.setenv("MINING_REWARD_PER_TRADE", "0.5")
    monkeypatch.setenv("MINING_PROOF_MAX_AGE_SECONDS", "30")
    settings = Settings(_env_file=None)
    formula = RewardFormula.of(settings)
    assert (formula.base, formula.per_trade) == (Decimal("2"), Decimal("0.5"))
    # 2 + 0.5 * 4 trades = 4 MCD, with the bonus multiplier 1, in 9-decimal base units.
    assert reward_units({"trade_count": 4}, Decimal(1), 9, formula) == 4 * 10**9
    assert ProofWindow.of(settings) == ProofWindow(max_age=30.0, max_skew=60.0)
