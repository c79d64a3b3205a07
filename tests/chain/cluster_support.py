"""A chain node of a test module's own (no fixtures, 20 ms slots) and a plain JSON-RPC client
for it: the raw answers (results and error objects) as a wallet or indexer gets them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction
from spl.token.constants import TOKEN_PROGRAM_ID, WRAPPED_SOL_MINT
from spl.token.instructions import (
    create_associated_token_account,
    get_associated_token_address,
    sync_native,
)
from spl.token.models import SyncNativeParams

from core.embedded import free_port
from devchain.node.ledger import FINALITY_DEPTH
from devchain.node.process import NodeHandle, start_node

SOL = 1_000_000_000
MEMO = Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")
_RANK = {"processed": 0, "confirmed": 1, "finalized": 2}


class Node:
    def __init__(self, handle: NodeHandle) -> None:
        self.handle = handle
        self.http = httpx.Client(base_url=handle.url, timeout=30)
        self._id = 0

    def call(self, method: str, *params: Any) -> dict[str, Any]:
        """The whole JSON-RPC answer (``result`` or ``error``)."""
        self._id += 1
        body = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": list(params)}
        answer = self.http.post("/", json=body)
        assert answer.status_code == 200
        return dict(answer.json())

    def result(self, method: str, *params: Any) -> Any:
        answer = self.call(method, *params)
        assert "error" not in answer, answer
        return answer["result"]

    def error(self, method: str, *params: Any) -> dict[str, Any]:
        answer = self.call(method, *params)
        assert "error" in answer, answer
        return dict(answer["error"])

    def blockhash(self) -> Hash:
        got = self.result("getLatestBlockhash", {"commitment": "processed"})
        return Hash.from_string(got["value"]["blockhash"])

    def signed(self, ixs: list[Instruction], signers: list[Keypair]) -> VersionedTransaction:
        msg = Message.new_with_blockhash(ixs, signers[0].pubkey(), self.blockhash())
        return VersionedTransaction(msg, signers)

    def send(self, ixs: list[Instruction], signers: list[Keypair], level: str = "confirmed") -> str:
        import base64

        raw = base64.b64encode(bytes(self.signed(ixs, signers))).decode()
        sig = str(self.result("sendTransaction", raw, {"encoding": "base64"}))
        self.wait(sig, level)
        return sig

    def wait(self, sig: str, level: str = "confirmed", within: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            status = self.result("getSignatureStatuses", [sig])["value"][0]
            if status is not None and _RANK[status["confirmationStatus"]] >= _RANK[level]:
                return dict(status)
            time.sleep(0.01)
        raise AssertionError(f"{sig} did not reach {level}")

    def wallet(self, lamports: int = 10 * SOL) -> Keypair:
        kp = Keypair()
        self.wait(self.result("requestAirdrop", str(kp.pubkey()), lamports))
        return kp

    def slot(self, commitment: str = "processed") -> int:
        return int(self.result("getSlot", {"commitment": commitment}))

    def until_slot(self, slot: int, commitment: str = "confirmed", within: float = 10) -> None:
        deadline = time.monotonic() + within
        while self.slot(commitment) < slot:
            assert time.monotonic() < deadline, f"slot {slot} not {commitment} in time"
            time.sleep(0.01)


def memo(signer: Pubkey, text: str) -> Instruction:
    return Instruction(MEMO, text.encode(), [AccountMeta(signer, True, False)])


def pay(source: Keypair, to: Pubkey, lamports: int) -> Instruction:
    return transfer(TransferParams(from_pubkey=source.pubkey(), to_pubkey=to, lamports=lamports))


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    root: Path = tmp_path_factory.mktemp("cluster")
    handle = start_node(
        root / "chain", root / "keys", free_port(), slot_ms=20, fixtures=False, ws_port=free_port()
    )
    client = Node(handle)
    client.until_slot(FINALITY_DEPTH + 2, "processed")  # past its first root, as a cluster in use
    try:
        yield client
    finally:
        client.http.close()
        handle.stop()


@dataclass
class Landed:
    payer: Keypair
    to: Pubkey
    sig: str  # a transfer with a memo
    slot: int
    wrapped: Pubkey  # the payer's wrapped-SOL account, 2 SOL


@pytest.fixture(scope="module")
def landed(node: Node) -> Landed:
    payer = node.wallet(20 * SOL)
    to = Keypair().pubkey()
    sig = node.send([pay(payer, to, SOL), memo(payer.pubkey(), "method tests")], [payer])
    ata = get_associated_token_address(payer.pubkey(), WRAPPED_SOL_MINT)
    wrap = [
        create_associated_token_account(payer.pubkey(), payer.pubkey(), WRAPPED_SOL_MINT),
        pay(payer, ata, 2 * SOL),
        sync_native(SyncNativeParams(program_id=TOKEN_PROGRAM_ID, account=ata)),
    ]
    node.send(wrap, [payer])
    slot = node.result("getSignatureStatuses", [sig])["value"][0]["slot"]
    return Landed(payer, to, sig, slot, ata)


def identity(node: Node) -> str:
    return str(node.result("getIdentity")["identity"])
