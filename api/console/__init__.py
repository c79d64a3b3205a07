"""The operator console (server-rendered HTML at /console); see docs/console.md."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from api.console.routes import router


def install_console(app: FastAPI) -> None:
    app.include_router(router)
    static = Path(__file__).parent / "static"
    app.mount("/console/static", StaticFiles(directory=str(static)), name="console-static")
