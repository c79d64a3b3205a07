"""Chain reads: balances, mint decimals, account reads, signature statuses, transactions
(receipts, the console's view).

The read half of the gateway (``chain/gateway.py``), over the process's one transport
(``chain/rpc.py``: every request, and its one map of errors onto the gateway's retryable and
terminal classes). The node's JSON answers are read into small typed values
(``chain/answers.py``). Nothing here writes to the database or the chain (``airdrop`` asks a
development faucet, then only reads).
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from solders.hash import Hash
from solders.pubkey import Pubkey
from spl.token.constants import ACCOUNT_LEN, MINT_LEN

from chain.answers import (
    RANK,
    TOKEN_PROGRAMS,
    AccountInfo,
    SignatureStatus,
    account_info,
    as_pubkey,
)
from chain.custody import TokenAccountState, parse_token_account
from chain.errors import (
    ChainError,
    ChainRejected,
    ChainRpcError,
    ChainTimeout,
    ChainUnavailable,
    ReceiptMismatch,
    ReceiptUnavailable,
)
from chain.rpc import METHOD_NOT_FOUND, ChainRpc
from chain.transactions import ChainTx, chain_tx

MAX_ACCOUNTS_BATCH = 100  # getMultipleAccounts takes at most 100 addresses

log = logging.getLogger(__name__)


class ChainReads:
    def __init__(self, rpc: ChainRpc, commitment: str, *, poll_interval: float) -> None:
        self._rpc = rpc
        self._commitment = commitment
        self._poll_interval = poll_interval
        self._rent: int | None = None
        self._slot_heights: dict[int, int] = {}
        self._get_block_supported = True

    @property
    def commitment(self) -> str:
        """The commitment a write must reach, and the default of every read."""
        return self._commitment

    def _at(self, commitment: str | None) -> dict[str, str]:
        return {"commitment": commitment or self._commitment}

    async def token_balance(self, address: Pubkey | str, commitment: str | None = None) -> int:
        """Base units held by a token account; 0 if the account does not exist."""
        state = await self.token_account(as_pubkey(address), commitment or self._commitment)
        return 0 if state is None else state.amount

    async def sol_balance(self, address: Pubkey | str, commitment: str | None = None) -> int:
        """Lamports of any account (0 if it does not exist)."""
        got = await self._rpc.call("getBalance", [str(address), self._at(commitment)])
        return int(got["value"])

    async def mint_info(
        self, mint: Pubkey | str, commitment: str | None = None
    ) -> tuple[Pubkey | None, int] | None:
        """(mint authority, decimals) of an SPL mint, or None when the account does not exist."""
        account = await self.account(as_pubkey(mint), commitment or self._commitment)
        if account is None:
            return None
        data = account.data
        if account.owner not in TOKEN_PROGRAMS or len(data) < MINT_LEN:
            raise ChainError(f"{mint} is not an SPL mint")
        # Mint layout: COption<authority> (4 + 32), supply (8), decimals (1), ...
        has_authority = int.from_bytes(data[0:4], "little") == 1
        return (Pubkey.from_bytes(data[4:36]) if has_authority else None), data[44]

    async def rent_exemption(self, size: int) -> int:
        return int(await self._rpc.call("getMinimumBalanceForRentExemption", [size]))

    async def airdrop(self, address: Pubkey | str, lamports: int, timeout: float = 60.0) -> str:  # noqa: ASYNC109
        """Faucet SOL on a development cluster and wait for it at the gateway's commitment."""
        signature = str(await self._rpc.call("requestAirdrop", [str(address), lamports]))
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            (status,) = await self.statuses([signature])
            if status is not None and RANK[status.level] >= RANK[self._commitment]:
                if status.err is not None:
                    raise ChainRejected(f"airdrop:{address}", status.err, signature)
                return signature
            await asyncio.sleep(self._poll_interval)
        raise ChainTimeout(f"airdrop {signature} not {self._commitment} after {timeout:.0f}s")

    async def block_height(self, commitment: str | None = None) -> int:
        return int(await self._rpc.call("getBlockHeight", [self._at(commitment)]))

    async def transaction(self, signature: str, commitment: str = "finalized") -> ChainTx | None:
        """The landed transaction (static and lookup-table accounts alike), None if the node
        has none at ``commitment`` (at least confirmed)."""
        found = await self._transaction(signature, commitment)
        return None if found is None else chain_tx(found, signature)

    async def _transaction(self, signature: str, commitment: str) -> dict[str, Any] | None:
        level = "confirmed" if commitment == "processed" else commitment
        config = {"encoding": "json", "commitment": level, "maxSupportedTransactionVersion": 0}
        found: dict[str, Any] | None = await self._rpc.call("getTransaction", [signature, config])
        return found

    async def transaction_view(self, signature: str) -> tuple[str | None, str | None]:
        """The signature's status and its transaction (at confirmed) as the node reports them,
        JSON text for an operator to read (None where the node has none)."""
        (status,) = await self._raw_statuses([signature])
        tx = await self._transaction(signature, "confirmed")
        shown = (orjson.dumps(v).decode() if v is not None else None for v in (status, tx))
        return next(shown), next(shown)

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

    async def simulation(self, tx_bytes: bytes) -> tuple[Any, int | None]:
        """The error the signed transaction would land with if it failed deterministically (a
        program's refusal, missing funds), or None: go ahead and send it; and the compute
        units it consumed (None: not simulated, or it did not run)."""
        config = {"encoding": "base64", "commitment": "processed"}
        raw = base64.b64encode(tx_bytes).decode()
        try:
            got = await self._rpc.call("simulateTransaction", [raw, config])
        except ChainRpcError as exc:
            log.info("simulation unavailable (%s); sending unsimulated", exc)
            return None, None
        value = (got.get("value") or {}) if isinstance(got, dict) else {}
        err, units = value.get("err"), value.get("unitsConsumed")
        units = int(units) if isinstance(units, int) and err is None else None
        # Only program errors and missing funds are properties of the transaction; e.g.
        # BlockhashNotFound is about a lagging node and must not fail the write.
        if isinstance(err, dict) and "InstructionError" in err:
            return err, None
        if isinstance(err, str) and err.startswith("InsufficientFunds"):
            return err, None
        return None, units

    async def latest_blockhash(self) -> tuple[Hash, int]:
        got = await self._rpc.call("getLatestBlockhash", [{"commitment": "confirmed"}])
        value = got["value"]
        return Hash.from_string(value["blockhash"]), int(value["lastValidBlockHeight"])

    async def chain_view(
        self, signatures: Sequence[str]
    ) -> tuple[int, list[SignatureStatus | None]]:
        """The finalized block height, then the statuses of ``signatures`` from a node that has
        seen at least that finalized block.

        Height BEFORE statuses: once the finalized height is past an attempt's
        lastValidBlockHeight no block that could include it can appear, so "not found" is final
        -- but only from a node that has seen that height. Behind a load balancer the two reads
        may reach different nodes, and a lagging one reports a landed signature as unknown; its
        answer is refused (ChainUnavailable, retryable) instead of trusted, so a write is never
        re-signed nor a transfer cancelled on a stale view."""
        epoch = await self._rpc.call("getEpochInfo", [{"commitment": "finalized"}])
        height, slot = int(epoch["blockHeight"]), int(epoch["absoluteSlot"])
        if not signatures:
            return height, []
        got = await self._status_answer(signatures)
        if int(got["context"]["slot"]) < slot:
            raise ChainUnavailable(
                f"the node that answered signature statuses is at slot {got['context']['slot']}, "
                f"behind the finalized slot {slot} read just before; retry"
            )
        return height, [SignatureStatus.of(v) for v in got["value"]]

    async def statuses(self, signatures: Sequence[str]) -> list[SignatureStatus | None]:
        """Each signature's status (None: unknown to the node), at most 256 a call."""
        return [SignatureStatus.of(v) for v in await self._raw_statuses(signatures)]

    async def _raw_statuses(self, signatures: Sequence[str]) -> list[dict[str, Any] | None]:
        if not signatures:
            return []
        value: list[dict[str, Any] | None] = (await self._status_answer(signatures))["value"]
        return value

    async def _status_answer(self, signatures: Sequence[str]) -> dict[str, Any]:
        config = {"searchTransactionHistory": True}
        answer: dict[str, Any] = await self._rpc.call(
            "getSignatureStatuses", [list(signatures), config]
        )
        return answer

    async def slot_block_height(self, slot: int) -> int | None:
        # Best effort: nice for audits, not needed for correctness (a node may lack getBlock).
        # A batch of writes finalizes in few slots, so a small cache saves most calls.
        if slot in self._slot_heights:
            return self._slot_heights[slot]
        if not self._get_block_supported:
            return None
        config = {
            "commitment": "confirmed",
            "transactionDetails": "none",
            "rewards": False,
            "maxSupportedTransactionVersion": 0,
        }
        try:
            block = await self._rpc.call("getBlock", [slot, config])
        except ChainRpcError as exc:
            if exc.code == METHOD_NOT_FOUND:  # stop asking this node
                self._get_block_supported = False
            return None
        except ChainError:
            return None
        height = block.get("blockHeight") if block is not None else None
        if height is None:
            return None
        if len(self._slot_heights) >= 1024:
            self._slot_heights.clear()
        self._slot_heights[slot] = int(height)
        return int(height)

    async def account(self, address: Pubkey, commitment: str) -> AccountInfo | None:
        config = {"encoding": "base64", "commitment": commitment}
        return account_info(
            (await self._rpc.call("getAccountInfo", [str(address), config]))["value"]
        )

    async def accounts(
        self, addresses: Sequence[Pubkey], commitment: str | None = None
    ) -> list[AccountInfo | None]:
        """Each account in order (None where there is none): getMultipleAccounts, at most
        ``MAX_ACCOUNTS_BATCH`` addresses a call."""
        found: list[AccountInfo | None] = []
        config = {"encoding": "base64", **self._at(commitment)}
        for start in range(0, len(addresses), MAX_ACCOUNTS_BATCH):
            chunk = [str(a) for a in addresses[start : start + MAX_ACCOUNTS_BATCH]]
            got = await self._rpc.call("getMultipleAccounts", [chunk, config])
            found.extend(account_info(value) for value in got["value"])
        return found

    async def token_amounts(
        self, addresses: Sequence[Pubkey], commitment: str | None = None
    ) -> list[int]:
        """Base units held by each token account in order (0 where there is none)."""
        amounts: list[int] = []
        for account in await self.accounts(addresses, commitment):
            state = parse_token_account(account.data) if account is not None else None
            amounts.append(state.amount if state is not None else 0)
        return amounts

    async def owned_token_amounts(
        self, owner: Pubkey, mint: Pubkey, commitment: str | None = None
    ) -> list[int]:
        """Base units in each token account of ``mint`` that ``owner`` holds
        (getTokenAccountsByOwner; an account that does not parse is left out)."""
        config = {"encoding": "base64", **self._at(commitment)}
        got = await self._rpc.call(
            "getTokenAccountsByOwner", [str(owner), {"mint": str(mint)}, config]
        )
        datas = (base64.b64decode(keyed["account"]["data"][0]) for keyed in got["value"])
        states = (parse_token_account(data) for data in datas)
        return [state.amount for state in states if state is not None]

    async def token_supply(self, mint: Pubkey, commitment: str | None = None) -> tuple[int, int]:
        """(supply in base units, decimals) of a mint (getTokenSupply)."""
        got = await self._rpc.call("getTokenSupply", [str(mint), self._at(commitment)])
        return int(got["value"]["amount"]), int(got["value"]["decimals"])

    async def genesis_hash(self) -> str:
        """The cluster's genesis hash (what tells one chain from another)."""
        return str(await self._rpc.call("getGenesisHash"))

    async def token_account(self, address: Pubkey, commitment: str) -> TokenAccountState | None:
        account = await self.account(address, commitment)
        if account is None:
            return None
        if account.owner not in TOKEN_PROGRAMS:
            raise ChainError(f"{address} is not a token account")
        return parse_token_account(account.data)

    async def token_account_rent(self) -> int:
        if self._rent is None:
            self._rent = await self.rent_exemption(ACCOUNT_LEN)
        return self._rent
