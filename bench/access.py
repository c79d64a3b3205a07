"""What auth + rate limit + idempotency + audit add to a write, measured in-process.

Runs the real app (ASGI, in this process) on a scratch PostgreSQL database and Redis (from
DATABASE_URL / REDIS_URL, else the embedded ones the tests use) and times, sequentially:

- bare write: the same attribute upsert and commit, no auth, no rate limit, no idempotency;
- full write: POST /v1/users/{uid}/attributes with X-API-Key, and with the HMAC signature.

Prints p50/p99 of each and the difference to the bare write. Bounded: < 2 minutes.

    .venv/bin/python bench/access.py [--requests 1500] [--seconds 25]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import api.ratelimit
from api.app import create_app
from api.auth.signature import signature_header
from bench._procs import pct
from core.config import Settings
from core.security import encrypt_secret, hash_api_secret, new_api_key
from db.models import Project, User
from db.models.access import OAuthConsent, UserProjectAttribute
from tests.services import fresh_database, redis_server

BASE = "http://127.0.0.1:8000"


def add_bare_route(app: FastAPI) -> None:
    api.ratelimit.EXEMPT_PREFIXES = (
        *api.ratelimit.EXEMPT_PREFIXES,
        "/bench/",
    )  # the bare route pays no rate limit either

    @app.post("/bench/bare/{uid}")
    async def bare(uid: str, request: Request) -> dict[str, Any]:
        body = await request.json()
        async with request.app.state.session_maker() as session:
            stmt = insert(UserProjectAttribute).values(
                uid=uid,
                project_id=body["project_id"],
                attribute_key=body["attribute_key"],
                attribute_value=body["attribute_value"],
                visibility="private",
            )
            stmt = stmt.on_conflict_do_update(
                index_elements=["uid", "project_id", "attribute_key"],
                set_={"attribute_value": stmt.excluded.attribute_value, "updated_at": func.now()},
            )
            await session.execute(stmt)
            await session.commit()
        return {"data": {"ok": True}}


async def seed(app: FastAPI, settings: Settings) -> tuple[int, str, str]:
    secret = "sk_" + secrets.token_hex(32)
    async with app.state.session_maker() as s:
        user = User(uid="u_bench", username="bench", email="bench@bench.local", role="user")
        project = Project(
            name="bench",
            allowed_scopes=[],
            rate_limit_tier="enterprise",
            ip_allowlist=[],
            limits={},
            api_key=new_api_key(),
            api_secret_hash=hash_api_secret(secret),
            api_secret_encrypted=encrypt_secret(
                secret, settings.master_key, settings.master_key_id
            ),
        )
        s.add_all([user, project])
        await s.flush()
        s.add(OAuthConsent(user_uid=user.uid, project_id=project.project_id, scopes=[]))
        await s.commit()
        return project.project_id, secret, user.uid


async def measure(
    name: str, call: Callable[[int], Awaitable[httpx.Response]], n: int, seconds: float
) -> list[float]:
    for i in range(50):  # warm-up: pools, JIT-free but caches and connections
        (await call(-i - 1)).raise_for_status()
    samples: list[float] = []
    deadline = time.monotonic() + seconds
    for i in range(n):
        started = time.perf_counter()
        response = await call(i)
        samples.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{name}: {response.status_code} {response.text}")
        if time.monotonic() > deadline:
            break
    return samples


async def run(settings: Settings, n: int, seconds: float) -> None:
    app = create_app(settings)
    add_bare_route(app)
    async with app.router.lifespan_context(app):
        project_id, secret, uid = await seed(app, settings)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            path = f"/v1/users/{uid}/attributes"
            run_id = secrets.token_hex(4)

            def body(i: int) -> dict[str, Any]:
                return {
                    "attribute_key": f"k{i % 50}",
                    "attribute_value": {"i": i},
                    "idempotency_key": f"{run_id}-{i}",
                }

            async def bare(i: int) -> httpx.Response:
                return await client.post(
                    f"/bench/bare/{uid}", json={**body(i), "project_id": project_id}
                )

            async def api_key(i: int) -> httpx.Response:
                headers = {"X-Project-ID": str(project_id), "X-API-Key": secret}
                return await client.post(path, json=body(i), headers=headers)

            async def hmac_form(i: int) -> httpx.Response:
                b = {**body(i), "idempotency_key": f"{run_id}-h{i}"}
                ts = str(int(time.time()))
                headers = {
                    "X-Project-ID": str(project_id),
                    "X-Timestamp": ts,
                    "X-Signature": signature_header(secret, "POST", path, ts, b),
                }
                return await client.post(path, json=b, headers=headers)

            results = {}
            for name, call in (("bare write", bare), ("api-key write", api_key)):
                results[name] = await measure(name, call, n, seconds)
            results["hmac write"] = await measure("hmac write", hmac_form, n, seconds)

    base50, base99 = pct(results["bare write"], 0.5), pct(results["bare write"], 0.99)
    print(f"{'variant':<16}{'n':>6}{'p50 ms':>9}{'p99 ms':>9}{'+p50 ms':>10}{'+p99 ms':>10}")
    for name, samples in results.items():
        p50, p99 = pct(samples, 0.5), pct(samples, 0.99)
        print(
            f"{name:<16}{len(samples):>6}{p50:>9.2f}{p99:>9.2f}"
            f"{p50 - base50:>10.2f}{p99 - base99:>10.2f}"
        )
    print(
        f"(mean bare {statistics.fmean(results['bare write']):.2f} ms; in-process ASGI, "
        "sequential; + = added by auth, rate limit, idempotency and audit)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--seconds", type=float, default=25.0, help="cap per variant")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_database(Path(tmp)) as db_url,
        redis_server(Path(tmp)) as redis_url,
    ):
        settings = Settings(
            environment="test", database_url=db_url, redis_url=redis_url, log_level="WARNING"
        )
        asyncio.run(run(settings, args.requests, args.seconds))


if __name__ == "__main__":
    main()
