"""Chain reads: balances, mint decimals, account reads, signature statuses, transactions
(signatures, receipts, the console's view).

The read half of the gateway (``chain/gateway.py``): every RPC call goes through ``_rpc``, which
maps transport and node errors onto the gateway's retryable/terminal classes. Nothing here
writes to the database or the chain (``airdrop`` asks a development faucet, then only reads).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, TypeVar

from solana.exceptions import SolanaRpcException
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Commitment
from solana.rpc.core import RPCException
from solana.rpc.models import TokenAccountOpts
from solders.hash import Hash
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction_status import TransactionDetails, TransactionStatus
from spl.token.constants import ACCOUNT_LEN, MINT_LEN, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID

from chain.custody import (
    parse_token_account,
)
from chain.errors import (
    ChainError,
    ChainRejected,
    ChainRpcError,
    ChainTimeout,
    ChainUnavailable,
    ReceiptMismatch,
    ReceiptUnavailable,
)
from chain.transactions import ChainTx, chain_tx

T = TypeVar("T")

RANK = {"processed": 0, "confirmed": 1, "finalized": 2}
# JSON-RPC codes that mean "node not ready", not "your request is wrong".
_TRANSIENT_RPC_CODES = {-32004, -32005, -32007, -32014, -32016}
TOKEN_PROGRAMS = (TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID)
MAX_ACCOUNTS_BATCH = 100  # getMultipleAccounts takes at most 100 addresses


class ChainReads:
    def __init__(
        self, client: AsyncClient, commitment: str, *, rpc_timeout: float, poll_interval: float
    ) -> None:
        self._client = client
        self._commitment = commitment
        self._rpc_timeout = rpc_timeout
        self._poll_interval = poll_interval
        self._rent: int | None = None
        self._slot_heights: dict[int, int] = {}
        self._get_block_supported = True

    @property
    def client(self) -> AsyncClient:
        return self._client

    @property
    def commitment(self) -> str:
        """The commitment a write must reach, and the default of every read."""
        return self._commitment

    async def token_balance(self, address: Pubkey | str, commitment: str | None = None) -> int:
        """Base units held by a token account; 0 if the account does not exist."""
        state = await self.token_account(as_pubkey(address), commitment or self._commitment)
        return 0 if state is None else state.amount

    async def sol_balance(self, address: Pubkey | str, commitment: str | None = None) -> int:
        """Lamports of any account (0 if it does not exist)."""
        resp = await self.call(
            "getBalance",
            self._client.get_balance(
                as_pubkey(address), Commitment(commitment or self._commitment)
            ),
        )
        return int(resp.value)

    async def mint_info(
        self, mint: Pubkey | str, commitment: str | None = None
    ) -> tuple[Pubkey | None, int] | None:
        """(mint authority, decimals) of an SPL mint, or None when the account does not exist."""
        account = await self.account(as_pubkey(mint), commitment or self._commitment)
        if account is None:
            return None
        data = bytes(account.data)
        if account.owner not in TOKEN_PROGRAMS or len(data) < MINT_LEN:
            raise ChainError(f"{mint} is not an SPL mint")
        # Mint layout: COption<authority> (4 + 32), supply (8), decimals (1), ...
        has_authority = int.from_bytes(data[0:4], "little") == 1
        return (Pubkey.from_bytes(data[4:36]) if has_authority else None), data[44]

    async def rent_exemption(self, size: int) -> int:
        resp = await self.call(
            "getMinimumBalanceForRentExemption",
            self._client.get_minimum_balance_for_rent_exemption(size),
        )
        return int(resp.value)

    async def airdrop(self, address: Pubkey | str, lamports: int, timeout: float = 60.0) -> str:  # noqa: ASYNC109
        """Faucet SOL on a development cluster and wait for it at the gateway's commitment."""
        resp = await self.call(
            "requestAirdrop", self._client.request_airdrop(as_pubkey(address), lamports)
        )
        signature = str(resp.value)
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            (status,) = await self.statuses([signature])
            level = status_name(status.confirmation_status) if status else None
            if status is not None and level is not None and RANK[level] >= RANK[self._commitment]:
                if status.err is not None:
                    raise ChainRejected(f"airdrop:{address}", status.err, signature)
                return signature
            await asyncio.sleep(self._poll_interval)
        raise ChainTimeout(f"airdrop {signature} not {self._commitment} after {timeout:.0f}s")

    async def block_height(self, commitment: str | None = None) -> int:
        resp = await self.call(
            "getBlockHeight",
            self._client.get_block_height(Commitment(commitment or self._commitment)),
        )
        return int(resp.value)

    async def signatures(
        self,
        address: Pubkey | str,
        *,
        before: str | None = None,
        until: str | None = None,
        limit: int = 1000,
        commitment: str | None = None,
    ) -> list[ChainTx]:
        """Signatures touching an address, newest first, without their transactions
        (``token_changes`` empty): ``before``/``until`` page as getSignaturesForAddress does."""
        # getSignaturesForAddress does not accept "processed".
        level = Commitment(
            "finalized" if (commitment or self._commitment) == "finalized" else "confirmed"
        )
        resp = await self.call(
            "getSignaturesForAddress",
            self._client.get_signatures_for_address(
                as_pubkey(address),
                before=Signature.from_string(before) if before else None,
                until=Signature.from_string(until) if until else None,
                limit=max(1, min(limit, 1000)),
                commitment=level,
            ),
        )
        return [
            ChainTx(
                signature=str(e.signature),
                slot=int(e.slot),
                block_time=e.block_time,
                err=json_err(e),
                fee=None,
                token_changes=(),
                confirmation_status=status_name(e.confirmation_status),
            )
            for e in resp.value
        ]

    async def transaction(self, signature: str, commitment: str = "finalized") -> ChainTx | None:
        """The landed transaction (static and lookup-table accounts alike), None if the node
        has none at ``commitment`` (at least confirmed)."""
        level = "confirmed" if commitment == "processed" else commitment
        resp = await self.call(
            "getTransaction",
            self._client.get_transaction(
                Signature.from_string(signature),
                "json",
                Commitment(level),
                max_supported_transaction_version=0,
            ),
        )
        if resp.value is None:
            return None
        return chain_tx(json.loads(resp.value.to_json()), signature)

    async def transaction_view(self, signature: str) -> tuple[str | None, str | None]:
        """The signature's status and its transaction (at confirmed) as the node reports them,
        JSON text for an operator to read (None where the node has none)."""
        sig = Signature.from_string(signature)
        status = await self.call(
            "getSignatureStatuses",
            self._client.get_signature_statuses([sig], search_transaction_history=True),
        )
        tx = await self.call(
            "getTransaction",
            self._client.get_transaction(
                sig, commitment=Commitment("confirmed"), max_supported_transaction_version=0
            ),
        )
        found = status.value[0]
        return (
            found.to_json() if found is not None else None,
            tx.value.to_json() if tx.value is not None else None,
        )

    async def receipt(self, signature: str, expected: Mapping[str, int]) -> dict[str, int]:
        """Verify that the finalized transaction moved exactly ``expected`` (account address ->
        net token change), from its own pre/post token balances -- never from a later balance
        read that other transfers may have changed. Raises ``ReceiptUnavailable`` (retry) or
        ``ReceiptMismatch``; returns every account's change."""
        try:
            tx = await self.transaction(signature, "finalized")
        except ChainError as exc:
            raise ReceiptUnavailable(f"getTransaction {signature}: {exc}") from exc
        if tx is None:
            raise ReceiptUnavailable(f"transaction {signature} not found at finalized")
        deltas = tx.deltas()
        wrong = {
            a: (want, deltas.get(a, 0)) for a, want in expected.items() if deltas.get(a, 0) != want
        }
        if wrong:
            detail = ", ".join(f"{a}: expected {w:+d}, saw {g:+d}" for a, (w, g) in wrong.items())
            raise ReceiptMismatch(f"transaction {signature} moved other amounts: {detail}")
        return deltas

    async def latest_blockhash(self) -> tuple[Hash, int]:
        resp = await self.call(
            "getLatestBlockhash", self._client.get_latest_blockhash(Commitment("confirmed"))
        )
        return resp.value.blockhash, int(resp.value.last_valid_block_height)

    async def chain_view(
        self, signatures: Sequence[str]
    ) -> tuple[int, list[TransactionStatus | None]]:
        """The finalized block height, then the statuses of ``signatures`` from a node that has
        seen at least that finalized block.

        Height BEFORE statuses: once the finalized height is past an attempt's
        lastValidBlockHeight no block that could include it can appear, so "not found" is final
        -- but only from a node that has seen that height. Behind a load balancer the two reads
        may reach different nodes, and a lagging one reports a landed signature as unknown; its
        answer is refused (ChainUnavailable, retryable) instead of trusted, so a write is never
        re-signed nor a transfer cancelled on a stale view."""
        epoch = await self.call(
            "getEpochInfo", self._client.get_epoch_info(Commitment("finalized"))
        )
        height, slot = int(epoch.value.block_height), int(epoch.value.absolute_slot)
        if not signatures:
            return height, []
        resp = await self.call(
            "getSignatureStatuses",
            self._client.get_signature_statuses(
                [Signature.from_string(s) for s in signatures], search_transaction_history=True
            ),
        )
        if resp.context.slot < slot:
            raise ChainUnavailable(
                f"the node that answered signature statuses is at slot {resp.context.slot}, "
                f"behind the finalized slot {slot} read just before; retry"
            )
        return height, list(resp.value)

    async def statuses(self, signatures: Sequence[str]) -> list[TransactionStatus | None]:
        if not signatures:
            return []
        resp = await self.call(
            "getSignatureStatuses",
            self._client.get_signature_statuses(
                [Signature.from_string(s) for s in signatures], search_transaction_history=True
            ),
        )
        return list(resp.value)

    async def slot_block_height(self, slot: int) -> int | None:
        # Best effort: nice for audits, not needed for correctness (a node may lack getBlock).
        # A batch of writes finalizes in few slots, so a small cache saves most calls.
        if slot in self._slot_heights:
            return self._slot_heights[slot]
        if not self._get_block_supported:
            return None
        try:
            resp = await self.call(
                "getBlock",
                self._client.get_block(
                    slot,
                    max_supported_transaction_version=0,
                    transaction_details=TransactionDetails.None_,
                    rewards=False,
                    commitment=Commitment("confirmed"),
                ),
            )
        except ChainRpcError as exc:
            if exc.code == -32601:  # method not found: stop asking this node
                self._get_block_supported = False
            return None
        except ChainError:
            return None
        height = resp.value.block_height if resp.value is not None else None
        if height is None:
            return None
        if len(self._slot_heights) >= 1024:
            self._slot_heights.clear()
        self._slot_heights[slot] = int(height)
        return int(height)

    async def account(self, address: Pubkey, commitment: str) -> Any:
        resp = await self.call(
            "getAccountInfo", self._client.get_account_info(address, Commitment(commitment))
        )
        return resp.value

    async def accounts(
        self, addresses: Sequence[Pubkey], commitment: str | None = None
    ) -> list[Any]:
        """Each account in order (None where there is none): getMultipleAccounts, at most
        ``MAX_ACCOUNTS_BATCH`` addresses a call."""
        found: list[Any] = []
        level = Commitment(commitment or self._commitment)
        for start in range(0, len(addresses), MAX_ACCOUNTS_BATCH):
            chunk = list(addresses[start : start + MAX_ACCOUNTS_BATCH])
            resp = await self.call(
                "getMultipleAccounts", self._client.get_multiple_accounts(chunk, commitment=level)
            )
            found.extend(resp.value)
        return found

    async def token_amounts(
        self, addresses: Sequence[Pubkey], commitment: str | None = None
    ) -> list[int]:
        """Base units held by each token account in order (0 where there is none)."""
        amounts: list[int] = []
        for account in await self.accounts(addresses, commitment):
            state = parse_token_account(bytes(account.data)) if account is not None else None
            amounts.append(state.amount if state is not None else 0)
        return amounts

    async def owned_token_amounts(
        self, owner: Pubkey, mint: Pubkey, commitment: str | None = None
    ) -> list[int]:
        """Base units in each token account of ``mint`` that ``owner`` holds
        (getTokenAccountsByOwner; an account that does not parse is left out)."""
        resp = await self.call(
            "getTokenAccountsByOwner",
            self._client.get_token_accounts_by_owner(
                owner, TokenAccountOpts(mint=mint), Commitment(commitment or self._commitment)
            ),
        )
        states = (parse_token_account(bytes(keyed.account.data)) for keyed in resp.value)
        return [state.amount for state in states if state is not None]

    async def token_supply(self, mint: Pubkey, commitment: str | None = None) -> tuple[int, int]:
        """(supply in base units, decimals) of a mint (getTokenSupply)."""
        resp = await self.call(
            "getTokenSupply",
            self._client.get_token_supply(mint, Commitment(commitment or self._commitment)),
        )
        return int(resp.value.amount), int(resp.value.decimals)

    async def genesis_hash(self) -> str:
        """The cluster's genesis hash (what tells one chain from another)."""
        return str((await self.call("getGenesisHash", self._client.get_genesis_hash())).value)

    async def token_account(self, address: Pubkey, commitment: str) -> Any:
        account = await self.account(address, commitment)
        if account is None:
            return None
        if account.owner not in TOKEN_PROGRAMS:
            raise ChainError(f"{address} is not a token account")
        return parse_token_account(bytes(account.data))

    async def token_account_rent(self) -> int:
        if self._rent is None:
            resp = await self.call(
                "getMinimumBalanceForRentExemption",
                self._client.get_minimum_balance_for_rent_exemption(ACCOUNT_LEN),
            )
            self._rent = int(resp.value)
        return self._rent

    async def call(self, what: str, call: Awaitable[T]) -> T:
        """Map transport and node errors onto the gateway's retryable/terminal classes."""
        try:
            return await asyncio.wait_for(call, self._rpc_timeout)
        except RPCException as exc:
            detail = exc.args[0] if exc.args else exc
            code = getattr(detail, "code", None)
            message = f"{what}: {getattr(detail, 'message', detail)}"
            if code in _TRANSIENT_RPC_CODES:
                raise ChainUnavailable(message) from exc
            raise ChainRpcError(message, code) from exc
        except (SolanaRpcException, OSError, TimeoutError) as exc:
            raise ChainUnavailable(f"{what}: {exc!r}") from exc


def as_pubkey(address: Pubkey | str) -> Pubkey:
    return address if isinstance(address, Pubkey) else Pubkey.from_string(address)


def status_name(status: object) -> str | None:
    if status is None:
        return None
    name = str(status).rsplit(".", 1)[-1].lower()
    return name if name in RANK else None


def json_err(obj: Any) -> Any:
    if getattr(obj, "err", None) is None:
        return None
    return json.loads(obj.to_json()).get("err")
