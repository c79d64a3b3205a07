"""Every `mccgw` command finds the running dev stack through the env file `mccgw dev` writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mccgw.cli import use_dev_stack


def test_commands_read_the_dev_stack_env_and_explicit_variables_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / ".dev"
    state.mkdir()
    (state / "env").write_text(
        "DATABASE_URL=postgresql://postgres:@/mccgw?host=/x/.dev/pg\n"
        "SOLANA_RPC_URL=http://127.0.0.1:8899\n"
        "REDIS_URL=unix:///x/.dev/redis/redis.sock\n"
    )
    for name in ("DATABASE_URL", "SOLANA_RPC_URL", "REDIS_URL", "MCCGW_DEV_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://elsewhere:6379/0")  # set by the user: it wins
    monkeypatch.chdir(tmp_path)  # ./.dev/env by default
    assert use_dev_stack() == Path(".dev/env")
    assert os.environ["DATABASE_URL"] == "postgresql://postgres:@/mccgw?host=/x/.dev/pg"
    assert os.environ["SOLANA_RPC_URL"] == "http://127.0.0.1:8899"
    assert os.environ["REDIS_URL"] == "redis://elsewhere:6379/0"

    # Another state directory through MCCGW_DEV_DIR; none at all leaves everything alone.
    monkeypatch.setenv("MCCGW_DEV_DIR", str(tmp_path / "nowhere"))
    assert use_dev_stack() is None
