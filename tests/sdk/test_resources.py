"""Resource methods (``gw.funds.lock(...)``): generated for every route, typed for the type
checker (a consumer passes ``mypy --strict``, a wrong keyword fails it), and working against
the real app, sync and async."""

from __future__ import annotations

import asyncio
import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from mccgw_client import (
    AdminClient,
    AsyncAdminClient,
    AsyncClient,
    BearerAuth,
    Client,
    HmacAuth,
    models,
)
from mccgw_client.errors import (
    InsufficientScope,
    NotFound,
    ValidationError,
    WalletAddressRequired,
)

from mccgw.sdkfold import rename_components
from mccgw.sdkgen import openapi_document, operations
from mccgw.sdkresources import plan
from tests.factories import World
from tests.sdk.conftest import BASE, Consented

CONSUMER = Path(__file__).parent / "consumer" / "typed_consumer.py"
BAD = """
from mccgw_client import Client, HmacAuth

gw = Client("http://x", HmacAuth(1, "s"))
T = "2026-01-01T00:00:00Z"
gw.funds.lock(user_uid="u", currency="EUR", amount="1", reason="r", expires_at=T)
gw.funds.lock(user_uid="u", currency="MCC", amount="1", reason="r", expires_at=T, colour="red")
gw.funds.lock(user_uid="u", currency="MCC", amount="1", expires_at=T)
n: int = gw.funds.lock(user_uid="u", currency="MCC", amount="1", reason="r", expires_at=T).id
"""


def _plan(spec: dict[str, Any]) -> list[Any]:
    rename_components(spec)
    names = set(spec["components"]["schemas"])
    return plan(spec, operations(spec, names))


def test_every_route_has_its_resource_method() -> None:
    methods = _plan(openapi_document())
    assert len(methods) > 90
    clients = {
        False: (Client(BASE), AsyncClient(BASE)),
        True: (AdminClient(BASE), AsyncAdminClient(BASE)),
    }
    for m in methods:
        for client in clients[m.admin]:
            owner: Any = client
            for part in m.resource:
                owner = getattr(owner, part)
            assert callable(getattr(owner, m.name)), (client, m.resource, m.name)
    named = {(m.resource, m.name) for m in methods}
    wanted = {
        (("funds",), "lock"), (("funds",), "unlock"), (("funds",), "locked"),
        (("transfers",), "request"), (("transfers",), "retrieve"), (("transfers",), "cancel"),
        (("mining",), "submit_activity"), (("mining",), "batch_submit"),
        (("mining",), "retrieve"), (("mining",), "records"),
        (("webhooks",), "register"), (("webhooks",), "list"), (("webhooks",), "retrieve"),
        (("webhooks",), "update"), (("webhooks",), "delete"), (("webhooks",), "deliveries"),
        (("webhooks",), "redeliver"), (("users", "attributes"), "report"),
        (("users", "attributes"), "delete"), (("users", "attributes"), "batch"),
        (("projects",), "status"), (("projects",), "approve"), (("tokens",), "mcc_balance"),
        (("territory",), "collection"), (("withdrawals",), "create"),
        (("withdrawals",), "retrieve"), (("withdrawals",), "list"), (("withdrawals",), "cancel"),
        (("withdrawals",), "approve"), (("withdrawals",), "reject"),
        (("withdrawals",), "reset_breaker"),
    }  # fmt: skip
    assert wanted <= named, wanted - named


def test_a_new_route_gets_a_method_without_hand_work() -> None:
    spec = openapi_document()
    template = copy.deepcopy(spec["paths"]["/v1/transfer/{transfer_id}"]["get"])
    template |= {"tags": ["widgets"], "operationId": "get_widget_v1_widgets__widget_id__get"}
    template["parameters"] = [
        {"name": "widget_id", "in": "path", "required": True, "schema": {"type": "string"}}
    ]
    spec["paths"]["/v1/widgets/{widget_id}"] = {"get": template}
    (widget,) = [m for m in _plan(spec) if m.resource == ("widgets",)]
    assert (widget.name, widget.kind, widget.path) == ("retrieve", "one", "/v1/widgets/{widget_id}")


def test_a_consumer_type_checks_strictly_and_wrong_keywords_do_not(tmp_path: Path) -> None:
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")  # a consumer's own settings: none of the gateway's plugins
    bad = tmp_path / "bad_consumer.py"
    bad.write_text(BAD)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--config-file", str(config)]
    mypy += ["--cache-dir", str(tmp_path / "cache")]
    good = subprocess.run([*mypy, str(CONSUMER)], capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stdout
    refused = subprocess.run([*mypy, str(bad)], capture_output=True, text=True, timeout=300)
    errors = [line for line in refused.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["6", "7", "8", "9"], refused.stdout
    assert "Literal['MCC', 'MCD']" in errors[0] and '"colour"' in errors[1]
    assert '"reason"' in errors[2] and "int" in errors[3]


async def test_resources_against_the_app(app: FastAPI, consented: Consented) -> None:
    creds, uid = consented.creds, consented.uid
    transport = httpx.ASGITransport(app=app)
    async with AsyncClient(
        BASE, HmacAuth(creds.project_id, creds.secret), transport=transport
    ) as gw:
        attribute = await gw.users.attributes.report(
            uid, attribute_key="level", attribute_value={"rank": "gold"}
        )
        assert attribute.attributes.attribute_key == "level"
        # A paged list since issue 34: the pages, as every list's.
        mine = [p async for p in gw.users.attributes.for_project(uid, creds.project_id)]
        assert [a.attributes.attribute_key for p in mine for a in p.data] == ["level"]
        ids = [
            (
                await gw.webhooks.register(
                    url=f"http://127.0.0.1:9/hook-{n}", events=["transfer.completed"]
                )
            ).id
            for n in range(3)
        ]
        pages = [page async for page in gw.webhooks.list(per_page=2)]
        assert [len(p.data) for p in pages] == [2, 1] and pages[0].meta.total == 3
        assert sorted(e.id for p in pages for e in p.data) == sorted(ids)
        updated = await gw.webhooks.update(ids[0], enabled=False)
        assert isinstance(updated, models.TypedResourceEndpointAttributes)
        assert updated.attributes.status == "disabled"
        assert (await gw.webhooks.retrieve(ids[0])).attributes.status == "disabled"
        await gw.webhooks.delete(ids[0])
        with pytest.raises(NotFound):
            await gw.webhooks.retrieve(ids[0])
        with pytest.raises(NotFound):
            await gw.transfers.retrieve("tr_missing")
        with pytest.raises(ValidationError) as refused:  # the gateway's own check, typed
            await gw.webhooks.register(url="ftp://example.com/hook", events=["funds.locked"])
        assert refused.value.status == 422 and refused.value.errors


async def test_sync_resources_over_a_socket(live_url: str, consented: Consented) -> None:
    creds = consented.creds

    def run() -> tuple[str, list[int]]:
        with Client(live_url, HmacAuth(creds.project_id, creds.secret)) as gw:
            endpoint = gw.webhooks.register(url="http://127.0.0.1:9/sync", events=["funds.locked"])
            sizes = [len(page.data) for page in gw.webhooks.list(per_page=1)]
            return gw.webhooks.retrieve(endpoint.id).attributes.url, sizes

    url, sizes = await asyncio.to_thread(run)
    assert url == "http://127.0.0.1:9/sync" and sizes == [1]


async def test_withdrawals_resources_against_the_app(app: FastAPI, world: World) -> None:
    """A user's client: their withdrawals listed (paged), refusals typed (no wallet in the
    profile yet; another's withdrawal is not found; the scope missing)."""
    user = await world.user()
    transport = httpx.ASGITransport(app=app)
    token = await world.token(user.uid, "funds:withdraw")
    async with AsyncClient(BASE, BearerAuth(token), transport=transport) as me:
        assert [p.meta.total async for p in me.withdrawals.list()] == [0]
        with pytest.raises(WalletAddressRequired) as refused:
            await me.withdrawals.create(currency="MCC", amount="1")
        assert refused.value.status == 422
        with pytest.raises(NotFound):
            await me.withdrawals.retrieve("wd_missing")
        with pytest.raises(NotFound):
            await me.withdrawals.cancel("wd_missing")
    scoped = await world.token(user.uid, "user:read")
    async with AsyncClient(BASE, BearerAuth(scoped), transport=transport) as other:
        with pytest.raises(InsufficientScope):
            await other.withdrawals.create(currency="MCC", amount="1")
