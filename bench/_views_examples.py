"""Print one example response of every chain view, read from the dev chain's fixtures, as the
markdown blocks of docs/views.md (the examples there come from this script).

    .venv/bin/python bench/_views_examples.py > /tmp/examples.md
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.app import create_app
from chain.ecosystem import fragment as fr
from core.config import Settings
from core.embedded import free_port
from devchain.fixtures import dev_world, nft_mint_of, wallet
from devchain.node.process import start_node
from tests.services import fresh_database, redis_server

ALICE, BOB, CAROL, DAVE = (wallet(w) for w in ("alice", "bob", "carol", "dave"))
GETS = [
    "/v1/territory/collection",
    f"/v1/territory/nft/{nft_mint_of(0, 2)}",
    f"/v1/territory/nfts/{ALICE}?per_page=2",
    "/v1/territory/unit/7/nft?type=station",
    "/v1/auction-solana/config",
    "/v1/auction-solana/active?per_page=1",
    "/v1/auction-solana/auction/1",
    "/v1/auction-solana/auction/1/bids?per_page=2",
    f"/v1/auction-solana/bids/{CAROL}?per_page=1",
    f"/v1/auction-solana/auctions/{BOB}",
    "/v1/fragment/config",
    "/v1/fragment/vaults?status=active",
    f"/v1/fragment/vault/{nft_mint_of(0, 5)}",
    f"/v1/fragment/vault/{fr.vault_pda(nft_mint_of(0, 4))[0]}/holders?per_page=2",
    f"/v1/fragment/holdings/{CAROL}?per_page=1",
    "/v1/lending/pool",
    "/v1/lending/stats",
    f"/v1/lending/position/{ALICE}",
    f"/v1/lending/loans/{DAVE}",
    f"/v1/lending/loan/{ALICE}/{nft_mint_of(1, 1)}",
    f"/v1/lending/lp-balance/{BOB}",
]
POSTS: list[tuple[str, dict[str, Any]]] = [
    (
        "/v1/lending/calculate-interest",
        {"principal": "100", "rate_bps": 1625, "duration_seconds": 113_519},
    ),
    (
        "/v1/lending/estimate-borrow-cost",
        {"loan_amount": "500", "duration": "seven_days", "nft_mint": nft_mint_of(0, 1)},
    ),
]


async def run(settings: Settings) -> None:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            calls = [("GET", p, None) for p in GETS] + [("POST", p, b) for p, b in POSTS]
            for method, path, body in calls:
                r = await c.request(method, path, json=body)
                doc = r.json()
                doc.get("meta", {}).pop("request_id", None)
                print(f"### `{method} {path.split('?')[0]}`\n")
                if body is not None:
                    print(f"Body: `{json.dumps(body)}`\n")
                print(f"`{method} {path}` → {r.status_code}\n")
                print("```json\n" + json.dumps(doc, indent=2) + "\n```\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        dev_world()  # the node loads the committed fixtures (devchain/node/fixtures)
        node = start_node(tmp / "chain", tmp / "keys", free_port(), slot_ms=400)
        try:
            with fresh_database(tmp) as db_url, redis_server(tmp) as redis_url:
                settings = Settings(
                    environment="test",
                    database_url=db_url,
                    redis_url=redis_url,
                    log_level="WARNING",
                    solana_rpc_url=node.url,
                    chain_keys_dir=tmp / "keys",
                    temporal_address="127.0.0.1:1",
                )
                asyncio.run(run(settings))
        finally:
            node.stop()


if __name__ == "__main__":
    main()
