"""Money-moving security tests: the engine package's real app, worker and chain."""

from __future__ import annotations

from tests.engine.conftest import STACK, api

__all__ = ["api"]

app_settings, queue, deps, worker, app = STACK.fixtures()
