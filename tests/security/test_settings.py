"""Item 13: the public default keys need an explicit ENVIRONMENT of dev or test."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.config import Settings


def test_item13_default_keys_refused_unless_explicitly_dev_or_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ENVIRONMENT", raising=False)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.delenv("MASTER_KEY", raising=False)
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(_env_file=None)
    with pytest.raises(ValidationError, match="MASTER_KEY"):
        Settings(_env_file=None, secret_key="a-real-secret")
    for env in ("dev", "test"):
        monkeypatch.setenv("ENVIRONMENT", env)
        assert Settings(_env_file=None).is_dev
    monkeypatch.setenv("ENVIRONMENT", "production")
    with pytest.raises(ValidationError):
        Settings(_env_file=None)
