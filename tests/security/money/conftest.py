"""Money-moving security tests: the engine package's real app, worker and chain."""

from __future__ import annotations

from tests.engine.conftest import api, app, deps, engine_settings, queue, worker

__all__ = ["api", "app", "deps", "engine_settings", "queue", "worker"]
