"""The operator console (server-rendered HTML at /console); see docs/console.md.

Sign-in (signin.py) is the authorization-code flow with PKCE against our own authorization
server; only administrators enter, their role read afresh on every request (pages.py). Every
action calls the same services and functions as the admin API (projects.py, operations.py,
withdrawals.py),
so the rules and the audit are the API's. Errors are shown as the problem's title and detail,
never a trace.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from api.console import mail, operations, overview, projects, signin, withdrawals


def install_console(app: FastAPI) -> None:
    for module in (signin, overview, projects, operations, withdrawals, mail):
        app.include_router(module.router)
    static = Path(__file__).parent / "static"
    app.mount("/console/static", StaticFiles(directory=str(static)), name="console-static")
