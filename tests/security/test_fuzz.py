"""The hostile-input suite: schemathesis over every operation of /openapi.json.

Generic over the document (no per-route list), so routes added later are fuzzed too. The app
runs in-process (ASGI) on the real PostgreSQL and Redis, in its own event loop on a background
thread (hypothesis drives the cases synchronously). Each operation is tried anonymously, with
project credentials and with a user's bearer token (every scope), with a fixed seed and a
bounded number of examples. A case fails on any 5xx and on any response that breaks the schema
the document declares for it (the error bodies included: api.openapi).
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import hypothesis
import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import response_schema_conformance
from temporalio.testing import WorkflowEnvironment

from access.scopes import USER_SCOPES
from core.config import Settings
from tests.access.conftest import build_app
from tests.factories import World, clear_rate_windows

T = TypeVar("T")
BASE = "http://127.0.0.1:8000"
EXAMPLES = 8  # per operation and credential kind: ~70 operations x 3 kinds take ~1 minute
SEED = 20261123
CHECKS = [not_a_server_error, response_schema_conformance]


class Loop:
    """An event loop on a thread, for the app and everything bound to it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@dataclass
class Target:
    app: FastAPI
    loop: Loop
    client: httpx.AsyncClient
    credentials: dict[str, dict[str, str]]

    def send(self, case: Any, headers: dict[str, str]) -> httpx.Response:
        kwargs = case.as_transport_kwargs(base_url=BASE, headers=headers)
        kwargs.pop("cookies", None)
        url = kwargs.pop("url")
        method = kwargs.pop("method")
        request = self.client.build_request(method, url, **_httpx_kwargs(kwargs))
        # A multipart body is a stream: read it now, so the checks can look at what was sent.
        request.read()
        return self.loop.run(self.client.send(request))


def _httpx_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """schemathesis speaks `requests`; the few arguments that differ for httpx."""
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key == "data" and isinstance(value, (bytes, str)):
            out["content"] = value
        elif key == "files":
            out[key] = [(name, _part(part)) for name, part in value]
        elif key in ("json", "params", "headers", "data", "content"):
            out[key] = value
    return out


def _part(part: tuple[Any, ...]) -> tuple[Any, ...]:
    """A multipart field's (filename, value, ...): requests sends a number or None as its text;
    httpx takes only str, bytes or a file, so a generated extra field of another type is given
    as requests would send it."""
    filename, value, *rest = part
    if not isinstance(value, (str, bytes)) and not hasattr(value, "read"):
        value = "" if value is None else str(value)
    return (filename, value, *rest)


@pytest.fixture(scope="module")
def target(
    settings: Settings, temporal_env: WorkflowEnvironment, chain_node: tuple[str, Path]
) -> Iterator[Target]:
    rpc_url, keys_dir = chain_node
    settings = settings.model_copy(
        update={
            "temporal_address": temporal_env.client.service_client.config.target_host,
            "solana_rpc_url": rpc_url,
            "chain_keys_dir": keys_dir,
        }
    )
    loop = Loop()
    app = build_app(settings)
    lifespan = app.router.lifespan_context(app)
    loop.run(lifespan.__aenter__())
    app.state.project_authenticator.cache_seconds = 0.0
    # Workflows the fuzzed writes start go to a queue no worker of another test listens on.
    queue = f"fuzz-{uuid.uuid4().hex[:8]}"
    app.state.task_queue = queue

    async def prepare() -> tuple[httpx.AsyncClient, dict[str, dict[str, str]]]:
        world = World(app.state.session_maker, settings, app)
        project = await world.project(rate_limit_tier="enterprise")
        user = await world.user()
        await world.consent(user.uid, project.project_id)
        token = await world.token(user.uid, " ".join(USER_SCOPES))
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)
        return client, {
            "anonymous": {},
            "project": {"X-Project-ID": str(project.project_id), "X-API-Key": project.secret},
            "user": {"Authorization": f"Bearer {token}"},
        }

    client, credentials = loop.run(prepare())
    try:
        yield Target(app, loop, client, credentials)
    finally:
        loop.run(client.aclose())
        loop.run(lifespan.__aexit__(None, None, None))
        loop.stop()


def _fuzz(target: Target, operation: Any, headers: dict[str, str]) -> int:
    """Run the bounded, seeded examples of one operation; the number of requests sent."""
    sent = 0

    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @hypothesis.seed(SEED)
    @given(case=operation.as_strategy())
    def check(case: Any) -> None:
        nonlocal sent
        response = target.send(case, headers)
        sent += 1
        case.validate_response(response, checks=CHECKS)

    check()
    return sent


def test_fuzz_every_operation_no_5xx_and_schema_conformance(target: Target) -> None:
    document = target.app.openapi()
    schema = schemathesis.openapi.from_dict(document)
    operations = []
    for result in schema.get_all_operations():
        # An operation schemathesis cannot even read is a broken document: fail on it.
        assert isinstance(result, Ok), result.err()
        operations.append(result.ok())
    assert len(operations) >= 50, "the document lost its operations"
    failures: list[str] = []
    started = time.monotonic()
    sent = 0

    for operation in operations:
        target.loop.run(clear_rate_windows(target.app.state.redis))
        for kind, headers in target.credentials.items():
            try:
                sent += _fuzz(target, operation, headers)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # one report per operation and credential kind
                failures.append(f"{operation.label} [{kind}]: {str(exc)[:1500]}")

    elapsed = time.monotonic() - started
    print(f"fuzz: {len(operations)} operations, {sent} requests, {elapsed:.1f} s")
    assert not failures, "\n\n".join(failures)
