"""``mccgw-client call``: signs and sends over a real socket to the real app."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mccgw_client.cli import main

from tests.sdk.conftest import Consented


async def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, argv)
    out, err = capsys.readouterr()
    return code, out, err


async def test_call_signs_sends_and_replays(
    live_url: str,
    consented: Consented,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    creds = consented.creds
    monkeypatch.setenv("MCCGW_BASE_URL", live_url)
    monkeypatch.setenv("MCCGW_PROJECT_ID", str(creds.project_id))
    monkeypatch.setenv("MCCGW_API_SECRET", creds.secret)
    path = f"/v1/users/{consented.uid}/attributes"
    body = '{"attribute_key": "cli", "attribute_value": [1, "é"]}'
    argv = ["call", "POST", path, "--json", body, "--idempotency-key", "cli-1"]

    code, out, err = await run(argv, capsys)
    assert code == 0, err
    assert json.loads(out)["data"]["attributes"]["attribute_value"] == [1, "é"]
    assert "idempotency_key: cli-1" in err and "200" in err and "replayed" not in err

    code, out, err = await run(["-v", *argv], capsys)  # the same call again: replayed
    assert code == 0 and "200 (replayed)" in err
    assert "x-signature: sha256=" in err.lower() and creds.secret not in err

    code, out, err = await run(["call", "GET", "/v1/_probe/funds"], capsys)
    assert code == 0 and json.loads(out)["method"] == "hmac"


async def test_problem_exit_code_api_key_and_demo_file(
    live_url: str, consented: Consented, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    creds = consented.creds
    demo = tmp_path / "demo.json"
    demo.write_text(
        json.dumps(
            {
                "base_url": live_url,
                "projects": [{"project_id": str(creds.project_id), "api_secret": creds.secret}],
            }
        )
    )
    code, out, err = await run(
        ["--demo", str(demo), "--auth", "api-key", "call", "GET", "/v1/_probe/funds"], capsys
    )
    assert code == 0 and json.loads(out)["method"] == "api-key"
    code, out, err = await run(
        ["--demo", str(demo), "--api-secret", "wrong", "call", "GET", "/v1/_probe/funds"], capsys
    )
    assert code == 1 and "401 invalid-signature" in err
    assert json.loads(out)["type"].endswith("/invalid-signature")
