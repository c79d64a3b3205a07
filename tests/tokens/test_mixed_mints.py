"""The money paths when the mints differ: MCD at 6 decimals beside MCC at 9, with an MCD mint
owned by SPL Token and by Token-2022. Every amount stays in its own mint's base units from the
request to the chain and back: deposit, balance, lock, transfer, mining mint, stats, a
withdrawal to a wallet's token account of the mint's own program, reconciliation and the
webhooks' amounts; and a deposit address is derived only with the mint's own program.

A world of its own per mint layout: its own chain node and database (Redis and Temporal are the
session's); everything is real, the app, a worker, the chain, the webhook receiver."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from spl.token.constants import TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID
from sqlalchemy import select, update

from activities.deps import WorkerDeps
from activities.engine import EngineActivities, ReconcileRequest
from chain.custody import custody_seed
from chain.decimals import TokenDecimals
from chain.errors import ChainUnavailable
from chain.gateway import ChainGateway
from chain.keys import load_or_create_keys
from core.config import Settings
from core.embedded import free_port
from db.models import User
from db.models.ledger import LedgerAccount
from db.models.tokens import CustodyWatch
from devchain.node.process import start_node
from devchain.outside import OutsideWallet
from ledger.service import Ledger
from tests.factories import World
from tests.mining.test_mining import EXPECTED_MCD, activity, user_token
from tests.services import migrated_database
from tests.stack import Stack, asgi_client
from tests.webhooks.support import FAST_WEBHOOKS, Receiver, eventually, project_headers
from tokens.deposit_watch import DepositScanner
from tokens.deposits import deposit_address, register

MCD = 10**6  # one MCD in this world's base units
MCC = 10**9


@dataclass(frozen=True)
class Mints:
    name: str
    mcd_decimals: int
    mcd_token_2022: bool


MINTS = [Mints("mcd6-spl", 6, False), Mints("mcd6-token2022", 6, True)]


@pytest.fixture(scope="module", params=MINTS, ids=[m.name for m in MINTS])
def mints(request: pytest.FixtureRequest) -> Mints:
    return request.param


@pytest.fixture(scope="module")
def mint_database(database_url: str) -> Iterator[str]:
    """A fresh migrated database on the session's server (the cursor and mint rows of this
    chain do not meet the suite's)."""
    with migrated_database(database_url, "mccgw_mints") as url:
        yield url


@pytest.fixture(scope="module")
def mint_settings(
    mints: Mints, mint_database: str, stack_settings: Settings, session_tmp: Path
) -> Iterator[Settings]:
    root = session_tmp / f"mints-{mints.name}-{uuid.uuid4().hex[:6]}"
    node = start_node(
        data_dir=root / "chain", keys_dir=root / "keys", port=free_port(), slot_ms=20,
        fixtures=False, mcd_decimals=mints.mcd_decimals, mcd_token_2022=mints.mcd_token_2022,
    )  # fmt: skip
    try:
        yield stack_settings.model_copy(
            update={
                "database_url": mint_database,
                "solana_rpc_url": node.url,
                "chain_keys_dir": root / "keys",
            }
        )
    finally:
        node.stop()


# The app and a worker per world (module, once per parameter), on that world's chain and
# database; the webhooks' receivers on loopback.
STACK = Stack(
    "mints", scope="module", worker="with the app", on="mint_settings", changes=FAST_WEBHOOKS
)
app_settings, queue, deps, worker, app = STACK.fixtures()


async def _books(deps: WorkerDeps, uid: str, currency: str) -> tuple[int, int]:
    async with deps.sessions() as s:
        b = await Ledger(s).balances(uid, currency)
    return b.balance, b.held


async def test_money_paths_in_each_mints_own_decimals(
    mints: Mints, app_settings: Settings, deps: WorkerDeps, app: FastAPI
) -> None:
    gateway = deps.gateway
    # The gateway read the mints as they are: nothing assumed.
    await gateway.load_token_decimals()
    assert gateway.token_decimals() == TokenDecimals(mcc=9, mcd=6)
    program = TOKEN_2022_PROGRAM_ID if mints.mcd_token_2022 else TOKEN_PROGRAM_ID
    assert (gateway.keys.token_program("MCD"), gateway.keys.token_program("MCC")) == (
        program, TOKEN_PROGRAM_ID,
    )  # fmt: skip

    world = World(deps.sessions, app_settings, app)
    receiver = Receiver()
    await receiver.start()
    scanner = DepositScanner(deps.sessions, gateway)
    try:
        async with (
            asgi_client(app) as client,
            AsyncClient(deps.settings.solana_rpc_url, timeout=10) as solana,
        ):
            await _run(world, client, receiver, scanner, deps, program, solana)
    finally:
        await scanner.aclose()
        await receiver.stop()


async def _run(
    world: World,
    client: httpx.AsyncClient,
    receiver: Receiver,
    scanner: DepositScanner,
    deps: WorkerDeps,
    program: Any,
    solana: AsyncClient,
) -> None:
    gateway = deps.gateway
    creds = await world.project()
    alice, bob = (await world.user()).uid, (await world.user()).uid
    for uid in (alice, bob):
        await world.consent(uid, creds.project_id)
    hook = await client.post(
        "/v1/webhooks/register",
        json={
            "url": receiver.url,
            "events": [
                "funds.deposited", "funds.locked", "transfer.completed",
                "mining.reward.confirmed",
            ],
            "secret": "whsec_mints_0123456789abcdef",
            "idempotency_key": uuid.uuid4().hex,
        },
        headers=project_headers(creds),
    )  # fmt: skip
    assert hook.status_code == 201, hook.text

    # Deposit: an outside wallet sends 2.5 MCD and 3 MCC with the mints' own programs.
    outsider = OutsideWallet(Keypair(), solana)
    await outsider.ensure_sol(gateway)
    for currency, unit in (("MCD", MCD), ("MCC", MCC)):
        await outsider.receive_minted(
            gateway, currency, 100 * unit, f"mints:{outsider.address}:{currency}"
        )
    async with deps.sessions() as session:  # as a balance request does
        for currency in ("MCC", "MCD"):
            await register(session, gateway, alice, currency)
        await session.commit()
    await scanner.scan()  # alice's custody accounts exist from now on
    custody = gateway.custody_address(alice, "MCD")
    found = await gateway.account(custody, "confirmed")
    assert found is not None
    owner = found.owner
    assert owner == program
    await outsider.deposit(gateway, "MCD", custody, 2_500_000)
    await outsider.deposit(gateway, "MCC", gateway.custody_address(alice, "MCC"), 3 * MCC)
    summary = await scanner.scan()
    assert sorted(d["amount"] for d in summary.deposits) == ["2.5", "3"]
    assert await _books(deps, alice, "MCD") == (2_500_000, 0)

    token = await world.token(alice, "mcd:read mcc:read")
    auth = {"Authorization": f"Bearer {token}"}
    mcd = (await client.get("/v1/mcd/balance", headers=auth)).json()["data"]["attributes"]
    assert (mcd["total_balance"], mcd["deposit_address"]) == ("2.5", str(custody))
    mcc = (await client.get("/v1/mcc/balance", headers=auth)).json()["data"]["attributes"]
    assert mcc["total_balance"] == "3"
    listed = (await client.get("/v1/mcd/transactions", headers=auth)).json()["data"]
    assert [i["attributes"]["amount"] for i in listed] == ["2.5"]

    # Lock: "1.25" MCD is 1,250,000 base units; a seventh decimal is refused.
    expires = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    lock_body = {
        "user_uid": alice, "currency": "MCD", "amount": "1.25", "reason": "auction_bid",
        "reference_id": "a-1", "expires_at": expires, "idempotency_key": uuid.uuid4().hex,
    }  # fmt: skip
    lock = await client.post("/v1/funds/lock", json=lock_body, headers=project_headers(creds))
    assert lock.status_code == 201, lock.text
    attrs = lock.json()["data"]["attributes"]
    assert (attrs["amount"], attrs["available_balance"]) == ("1.25", "1.25")
    assert await _books(deps, alice, "MCD") == (2_500_000, 1_250_000)
    finer = {**lock_body, "amount": "0.0000001", "idempotency_key": uuid.uuid4().hex}
    refused = await client.post("/v1/funds/lock", json=finer, headers=project_headers(creds))
    assert refused.status_code == 422 and refused.json()["type"].endswith("/invalid-amount")
    # The same text in MCC has nine decimals to spare.
    mcc_lock = {**finer, "currency": "MCC"}
    ok = await client.post("/v1/funds/lock", json=mcc_lock, headers=project_headers(creds))
    assert ok.status_code == 201 and ok.json()["data"]["attributes"]["amount"] == "0.0000001"
    assert (await _books(deps, alice, "MCC"))[1] == 100

    # Transfer: 0.5 MCD to bob, on chain with the MCD mint's program and decimals.
    move = {
        "from_uid": alice, "to_uid": bob, "currency": "MCD", "amount": "0.5",
        "idempotency_key": uuid.uuid4().hex,
    }  # fmt: skip
    r = await client.post("/v1/funds/transfer", json=move, headers=project_headers(creds))
    assert r.status_code == 202, r.text
    transfer_id = r.json()["data"]["id"]

    async def completed() -> Any:
        got = await client.get(f"/v1/transfer/{transfer_id}", headers=project_headers(creds))
        attrs = got.json()["data"]["attributes"]
        return attrs if attrs["status"] in ("completed", "failed") else None

    final = await eventually(completed, 60)
    assert (final["status"], final["amount"]) == ("completed", "0.5")
    assert await gateway.custody_balance(bob, "MCD", "finalized") == 500_000
    assert await _books(deps, bob, "MCD") == (500_000, 0)

    # Mining: the reward is minted in the MCD mint's units (3.045 MCD = 3,045,000).
    mined = await client.post(
        "/v1/mining/submit-activity",
        json=activity(bob, creds.secret),
        headers=project_headers(creds),
    )
    assert mined.status_code == 202, mined.text
    assert mined.json()["data"]["attributes"]["mcd_estimated"] == EXPECTED_MCD

    async def minted() -> Any:
        return (await _books(deps, bob, "MCD"))[0] == 500_000 + 3_045_000

    await eventually(minted, 60)
    assert await gateway.custody_balance(bob, "MCD", "finalized") == 3_545_000
    stats = await client.get("/v1/mining/stats", headers=project_headers(creds))
    assert stats.status_code == 200, stats.text
    assert stats.json()["data"]["attributes"]["totals"]["mcd_amount"] == EXPECTED_MCD
    reader = await user_token(world, creds, bob, "openid mining:read mcd:read")
    mine = await client.get("/v1/mining/stats", headers={"Authorization": f"Bearer {reader}"})
    assert mine.json()["data"]["attributes"]["totals"]["mcd_amount"] == EXPECTED_MCD
    public = await client.get("/v1/mining/global-stats", params={"days": 7})
    assert public.json()["data"]["attributes"]["totals"]["mcd_amount"] == EXPECTED_MCD

    # Webhooks carry the same decimal strings.
    async def hooks() -> Any:
        seen = {g.json["type"]: g.json["data"] for g in receiver.received}
        wanted = {
            "funds.deposited",
            "funds.locked",
            "transfer.completed",
            "mining.reward.confirmed",
        }
        return seen if wanted <= set(seen) else None

    seen = await eventually(hooks, 60)
    deposits = sorted(
        g.json["data"]["amount"] for g in receiver.received if g.json["type"] == "funds.deposited"
    )
    assert deposits == ["2.5", "3"]
    assert seen["transfer.completed"]["amount"] == "0.5"
    assert seen["mining.reward.confirmed"]["mcd_amount"] == EXPECTED_MCD
    locked = [g.json["data"] for g in receiver.received if g.json["type"] == "funds.locked"]
    assert sorted((d["currency"], d["amount"]) for d in locked) == [
        ("MCC", "0.0000001"), ("MCD", "1.25"),
    ]  # fmt: skip

    # Withdrawal: bob takes 1.5 MCD (1,500,000 base units) to a wallet of his own; its token
    # account is created under the MCD mint's own program, in the same transaction.
    wallet = Keypair().pubkey()
    async with deps.sessions() as session:
        await session.execute(
            update(User).where(User.uid == bob).values(wallet_address=str(wallet))
        )
        await session.commit()
    bob_token = await world.token(bob, "funds:withdraw")
    out = await client.post(
        "/v1/withdrawals",
        json={"currency": "MCD", "amount": "1.5", "idempotency_key": uuid.uuid4().hex},
        headers={"Authorization": f"Bearer {bob_token}"},
    )
    assert out.status_code == 202, out.text
    withdrawal_id = out.json()["data"]["id"]

    async def withdrawn() -> Any:
        got = await client.get(
            f"/v1/withdrawals/{withdrawal_id}", headers={"Authorization": f"Bearer {bob_token}"}
        )
        attrs = got.json()["data"]["attributes"]
        return attrs if attrs["status"] in ("completed", "failed", "cancelled") else None

    done = await eventually(withdrawn, 60)
    assert (done["status"], done["amount"]) == ("completed", "1.5")
    destination = gateway.wallet_token_account(wallet, "MCD")
    account = await gateway.account(destination, "finalized")
    assert account is not None and account.owner == program
    assert await gateway.token_balance(destination, "finalized") == 1_500_000
    assert await _books(deps, bob, "MCD") == (2_045_000, 0)

    # Reconciliation: chain and ledger agree for both users in both mints.
    report = await EngineActivities(deps).reconcile(ReconcileRequest(run_id=uuid.uuid4().hex))
    assert not [d for d in report.drifts if d["user_uid"] in (alice, bob)], report.drifts
    assert report.checked >= 3


async def test_a_deposit_address_is_derived_only_with_the_mints_own_program(
    mints: Mints, app_settings: Settings, deps: WorkerDeps, app: FastAPI
) -> None:
    """Review 2026-11-28, L3: a process knows which token program owns a mint only once it has
    read the mints, and with a Token-2022 MCD an address derived with SPL Token assumed is
    another account. A worker that starts its deposit pass before it read them (here: a
    fresh gateway) stores no such row for an account with a ledger row; a row stored so by an
    earlier release is re-derived at the user's next balance read. Deposits to the address
    users are shown are credited either way."""
    world = World(deps.sessions, app_settings, app)
    booked, stale = (await world.user()).uid, (await world.user()).uid
    assumed = Pubkey.create_with_seed(
        deps.gateway.keys.custody_authority.pubkey(),
        custody_seed(deps.gateway.keys.mint_for("MCD"), stale),
        TOKEN_PROGRAM_ID,
    )
    async with deps.sessions() as session:
        session.add(LedgerAccount(user_uid=booked, currency="MCD"))  # money booked, say
        session.add(CustodyWatch(address=str(assumed), user_uid=stale, currency="MCD"))
        await session.commit()
    fresh = ChainGateway(
        deps.settings, deps.rpc, load_or_create_keys(deps.settings.chain_keys_dir), deps.sessions
    )
    assert fresh.keys.programs == {}  # the mints not read yet: no address is derived
    with pytest.raises(ChainUnavailable):
        deposit_address(fresh.keys, booked, "MCD")
    scanner = DepositScanner(deps.sessions, fresh)
    try:
        await scanner.scan()  # the worker's first pass: every ledger account watched
        async with deps.sessions() as session:  # the stale row's user reads a balance
            await register(session, fresh, stale, "MCD")
            await session.commit()
        await scanner.scan()
        async with AsyncClient(deps.settings.solana_rpc_url, timeout=10) as solana:
            outsider = OutsideWallet(Keypair(), solana)
            await outsider.ensure_sol(deps.gateway)
            await outsider.receive_minted(
                deps.gateway, "MCD", 10 * MCD, f"mints-l3:{outsider.address}"
            )
            for uid in (booked, stale):
                right = deps.gateway.custody_address(uid, "MCD")
                async with deps.sessions() as session:
                    row = await session.scalar(
                        select(CustodyWatch).where(
                            CustodyWatch.user_uid == uid, CustodyWatch.currency == "MCD"
                        )
                    )
                assert row is not None and (row.address, row.ready) == (str(right), True)
                await outsider.deposit(deps.gateway, "MCD", right, 1_500_000)
        summary = await scanner.scan()
    finally:
        await scanner.aclose()
    assert sorted(d["user_uid"] for d in summary.deposits) == sorted((booked, stale))
    for uid in (booked, stale):
        assert await _books(deps, uid, "MCD") == (1_500_000, 0)
