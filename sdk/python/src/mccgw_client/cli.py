"""``mccgw-client``: sign and send one call, for debugging.

    mccgw-client call POST /v1/transfer/request --json '{"from_uid": "...", ...}'
    mccgw-client call GET /v1/funds/locked/u_alice -q page=2 --auth api-key
    mccgw-client --demo .dev/demo.json call GET /v1/webhooks

Credentials from flags or the environment: ``MCCGW_BASE_URL``, ``MCCGW_PROJECT_ID``,
``MCCGW_API_SECRET`` (HMAC form by default; ``--auth api-key`` sends the secret itself),
``MCCGW_TOKEN`` (``--auth bearer``). ``--demo`` reads base URL and the first project's
credentials from a dev stack's ``demo.json``. Writes get an idempotency key (printed on stderr)
unless the body has one; ``-v`` shows the signed request and the answer's headers.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import httpx

from .auth import ApiKeyAuth, BearerAuth, Credentials, HmacAuth
from .client import Client, RetryPolicy
from .errors import ProblemError, TransportError


def _credentials(args: argparse.Namespace) -> Credentials | None:
    if args.auth == "none":
        return None
    if args.auth == "bearer":
        if not args.token:
            raise SystemExit("mccgw-client: --auth bearer needs --token or MCCGW_TOKEN")
        return BearerAuth(args.token)
    if not args.project_id or not args.api_secret:
        raise SystemExit(
            "mccgw-client: give --project-id and --api-secret (or MCCGW_PROJECT_ID and "
            "MCCGW_API_SECRET, or --demo .dev/demo.json)"
        )
    if args.auth == "api-key":
        return ApiKeyAuth(args.project_id, args.api_secret)
    return HmacAuth(args.project_id, args.api_secret)


def _apply_demo(args: argparse.Namespace) -> None:
    demo = json.loads(Path(args.demo).read_text())
    project = (demo.get("projects") or [{}])[0]
    args.base_url = args.base_url or demo.get("base_url")
    args.project_id = args.project_id or project.get("project_id")
    args.api_secret = args.api_secret or project.get("api_secret")


def _show_request(request: httpx.Request) -> None:
    print(f"> {request.method} {request.url}", file=sys.stderr)
    for key, value in request.headers.items():
        shown = "***" if key.lower() in ("x-api-key", "authorization") else value
        print(f"> {key}: {shown}", file=sys.stderr)
    if request.content:
        print(f"> {request.content.decode(errors='replace')}", file=sys.stderr)


def _call(args: argparse.Namespace) -> int:
    body: Any = None
    if args.json is not None:
        raw = args.json
        if raw.startswith("@"):
            raw = Path(raw[1:]).read_text()
        body = json.loads(raw)
    params = dict(p.split("=", 1) for p in args.query)
    hooks: dict[str, list[Any]] = {"request": [_show_request]} if args.verbose else {}
    retry = RetryPolicy(max_attempts=1) if args.no_retry else RetryPolicy()
    client = Client(
        args.base_url, _credentials(args), retry=retry, timeout=args.timeout, event_hooks=hooks
    )
    key = args.idempotency_key or None
    try:
        with client:
            response = client.request(
                args.method, args.path, params=params, json=body, idempotency_key=key
            )
    except ProblemError as exc:
        print(f"{exc.status} {exc.slug}", file=sys.stderr)
        if args.verbose:
            for k, v in exc.headers.items():
                print(f"< {k}: {v}", file=sys.stderr)
        print(json.dumps(exc.body, indent=2, ensure_ascii=False))
        return 1
    except TransportError as exc:
        print(f"mccgw-client: {exc}", file=sys.stderr)
        return 2
    if response.idempotency_key:
        print(f"idempotency_key: {response.idempotency_key}", file=sys.stderr)
    print(f"{response.status_code}{' (replayed)' if response.replayed else ''}", file=sys.stderr)
    if args.verbose:
        for k, v in response.headers.items():
            print(f"< {k}: {v}", file=sys.stderr)
    body_out = response.body
    print(json.dumps(body_out, indent=2, ensure_ascii=False) if body_out is not None else "")
    return 0


def main(argv: list[str] | None = None) -> int:
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="mccgw-client", description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=env("MCCGW_BASE_URL"))
    parser.add_argument("--project-id", default=env("MCCGW_PROJECT_ID"))
    parser.add_argument("--api-secret", default=env("MCCGW_API_SECRET"))
    parser.add_argument("--token", default=env("MCCGW_TOKEN"), help="bearer token")
    parser.add_argument("--demo", help="a dev stack's demo.json (base URL and first project)")
    parser.add_argument(
        "--auth", choices=("hmac", "api-key", "bearer", "none"), default=env("MCCGW_AUTH", "hmac")
    )
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    call = sub.add_parser("call", help="sign and send one request; print the answer")
    call.add_argument("method", type=str.upper)
    call.add_argument("path", help="e.g. /v1/transfer/request")
    call.add_argument("--json", help="JSON body (or @file)")
    call.add_argument("-q", "--query", action="append", default=[], help="key=value")
    call.add_argument("--idempotency-key", help="default: generated for writes")
    call.add_argument("--no-retry", action="store_true")
    args = parser.parse_args(argv)
    if args.demo:
        _apply_demo(args)
    if not args.base_url:
        parser.error("give --base-url (or MCCGW_BASE_URL, or --demo)")
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    return _call(args)


if __name__ == "__main__":
    raise SystemExit(main())
