"""Found by the chaos suite: during a PostgreSQL restart a request that needed a new connection
("the database system is starting up", or its socket gone) was answered 500. It is a 503 with
Retry-After, as a lost pooled connection already was: nothing was written, a retry will do."""

from __future__ import annotations

import httpx
import psycopg
from fastapi import FastAPI
from sqlalchemy.exc import OperationalError

from api.errors import answered_status, install_error_handlers
from core.config import Settings

STARTING_UP = OperationalError(
    "connect", {}, psycopg.OperationalError("FATAL:  the database system is starting up")
)


async def test_a_database_that_refuses_new_connections_is_a_503_with_retry_after() -> None:
    app = FastAPI()
    install_error_handlers(app)  # the app's own handlers (api.app installs the same)
    app.state.settings = Settings(environment="test", log_json=False)

    @app.post("/write")
    async def write() -> None:
        raise STARTING_UP

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        answer = await client.post("/write")
    assert answer.status_code == 503, answer.text
    assert answer.headers["retry-after"] == "1"
    assert answer.json()["type"].endswith("/service-unavailable")
    assert answered_status(STARTING_UP) == (503, "service-unavailable")  # what the audit records
