"""What the withdrawal tests share: a user with real funds and a wallet of their own, their
access token, and the calls a user and an administrator make."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from sqlalchemy import update

from activities.deps import WorkerDeps
from db.models import User
from devchain.funding import fund_user
from tests.factories import World

UNIT = 10**9
FINAL = ("completed", "failed", "cancelled", "rejected")


@dataclass
class Holder:
    """A user with MCC in custody, a wallet of their own and a token with funds:withdraw."""

    uid: str
    wallet: Keypair
    token: str
    client: httpx.AsyncClient

    @property
    def owner(self) -> Pubkey:
        return self.wallet.pubkey()

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def withdraw(
        self, amount: str, currency: str = "MCC", key: str | None = None
    ) -> httpx.Response:
        body = {"currency": currency, "amount": amount, "idempotency_key": key or uuid.uuid4().hex}
        return await self.client.post("/v1/withdrawals", json=body, headers=self.headers)

    async def get(self, withdrawal_id: str) -> dict[str, Any]:
        r = await self.client.get(f"/v1/withdrawals/{withdrawal_id}", headers=self.headers)
        assert r.status_code == 200, r.text
        attributes: dict[str, Any] = r.json()["data"]["attributes"]
        return attributes

    async def until(
        self, withdrawal_id: str, *statuses: str, within: float = 30.0
    ) -> dict[str, Any]:
        """The withdrawal once its status is one of ``statuses`` (a final one by default)."""
        wanted = statuses or FINAL
        deadline = asyncio.get_running_loop().time() + within
        while True:
            found = await self.get(withdrawal_id)
            if found["status"] in wanted:
                return found
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{withdrawal_id} is not {wanted} after {within} s: {found}")
            await asyncio.sleep(0.1)


async def holder(
    world: World,
    deps: WorkerDeps,
    client: httpx.AsyncClient,
    amount: int = 100 * UNIT,
    *,
    role: str = "user",
    scope: str = "funds:withdraw",
) -> Holder:
    """A user funded on chain and in the ledger, whose profile names a fresh wallet (set long
    ago: no cooling-off), with a token of the gateway's own client."""
    user = await world.user(role)
    wallet = Keypair()
    async with deps.sessions() as s:
        await s.execute(
            update(User).where(User.uid == user.uid).values(wallet_address=str(wallet.pubkey()))
        )
        await s.commit()
    if amount:
        await fund_user(
            deps.gateway, deps.sessions, uid=user.uid, currency="MCC", amount=amount,
            op_key=f"test-fund:{user.uid}:MCC",
        )  # fmt: skip
    return Holder(user.uid, wallet, await world.token(user.uid, scope), client)


async def admin(world: World, client: httpx.AsyncClient) -> Holder:
    """An administrator (a token of the gateway's own client), without funds."""
    user = await world.user("admin")
    return Holder(user.uid, Keypair(), await world.token(user.uid, "openid profile"), client)


async def act(
    who: Holder, withdrawal_id: str, action: str, reason: str = "checked by a test"
) -> httpx.Response:
    return await who.client.post(
        f"/v1/admin/withdrawals/{withdrawal_id}/{action}",
        json={"reason": reason},
        headers=who.headers,
    )
