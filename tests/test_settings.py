"""Settings: DSN normalisation and refusal of default secrets outside development."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.config import Settings


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
