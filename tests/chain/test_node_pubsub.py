"""The node's PubSub websocket beyond what the @solana/kit package drives (test_node_kit.py):
each commitment's timing, program subscriptions with filters, blocks (all, mentions), logs,
a closed account, unsubscribing, and the validator's error answers. Raw JSON-RPC over a
websocket, against a node of the module's own."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from solders.keypair import Keypair
from websockets.sync.client import ClientConnection, connect

from tests.chain.cluster_support import SOL, Node, memo, node, pay

__all__ = ["node"]  # the module's node fixture


class Socket:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._id = 0
        self.notes: list[dict[str, Any]] = []  # notifications read while waiting for answers

    def ask(self, method: str, *params: Any) -> dict[str, Any]:
        self._id += 1
        self.ws.send(
            json.dumps({"jsonrpc": "2.0", "id": self._id, "method": method, "params": list(params)})
        )
        while True:
            msg = json.loads(self.ws.recv(timeout=10))
            if msg.get("id") == self._id:
                return dict(msg)
            self.notes.append(msg)

    def subscribe(self, method: str, *params: Any) -> int:
        answer = self.ask(method, *params)
        assert isinstance(answer.get("result"), int), answer
        return int(answer["result"])

    def next(self, sub: int, within: float = 10) -> Any:
        """The next notification of subscription ``sub``: its ``result``."""
        for i, note in enumerate(self.notes):
            if note["params"]["subscription"] == sub:
                return self.notes.pop(i)["params"]["result"]
        while True:
            note = json.loads(self.ws.recv(timeout=within))
            if note["params"]["subscription"] == sub:
                return note["params"]["result"]
            self.notes.append(note)


@pytest.fixture
def ws(node: Node) -> Iterator[Socket]:
    with connect(node.handle.ws_url) as conn:
        yield Socket(conn)


def test_signature_each_commitment_in_order(node: Node, ws: Socket) -> None:
    payer = node.wallet()
    tx = node.signed([pay(payer, Keypair().pubkey(), SOL)], [payer])
    sig = str(tx.signatures[0])
    subs = {
        c: ws.subscribe("signatureSubscribe", sig, {"commitment": c})
        for c in ("processed", "confirmed", "finalized")
    }
    node.result("sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"})
    got = {c: ws.next(s) for c, s in subs.items()}
    landed = node.result("getSignatureStatuses", [sig])["value"][0]["slot"]
    assert {c: g["value"] for c, g in got.items()} == {c: {"err": None} for c in subs}
    assert [g["context"]["slot"] for g in got.values()] == [landed] * 3
    # a signature subscription ends with its notification
    assert ws.ask("signatureUnsubscribe", subs["processed"])["error"] == {
        "code": -32602,
        "message": "Invalid subscription id.",
    }


def test_program_subscription_with_filters(node: Node, ws: Socket) -> None:
    owner = Keypair()
    system = "11111111111111111111111111111111"
    sized = ws.subscribe(
        "programSubscribe",
        system,
        {"commitment": "confirmed", "encoding": "base64", "filters": [{"dataSize": 0}]},
    )
    none = ws.subscribe(
        "programSubscribe", system, {"commitment": "confirmed", "filters": [{"dataSize": 7}]}
    )
    node.wallet(SOL)  # the faucet pays: both change
    node.result("requestAirdrop", str(owner.pubkey()), 2 * SOL)
    seen = set()
    while str(owner.pubkey()) not in seen:
        note = ws.next(sized)
        assert (
            note["value"]["account"]["owner"] == system and note["value"]["account"]["space"] == 0
        )
        seen.add(note["value"]["pubkey"])
    assert not any(n["params"]["subscription"] == none for n in ws.notes)
    assert ws.ask("programUnsubscribe", none)["result"] is True


def test_account_closed_is_the_default_account(node: Node, ws: Socket) -> None:
    payer = node.wallet()
    gone = node.wallet(SOL)
    sub = ws.subscribe("accountSubscribe", str(gone.pubkey()), {"commitment": "confirmed"})
    node.send([pay(gone, payer.pubkey(), SOL - 5000)], [gone])
    value = ws.next(sub)["value"]
    assert value == {
        "lamports": 0,
        "owner": "11111111111111111111111111111111",
        "executable": False,
        "rentEpoch": 0,
        "space": 0,
        "data": "",
    }


def test_logs_mentions_and_all(node: Node, ws: Socket) -> None:
    payer = node.wallet()
    other = ws.subscribe(
        "logsSubscribe", {"mentions": [str(Keypair().pubkey())]}, {"commitment": "processed"}
    )
    mine = ws.subscribe(
        "logsSubscribe", {"mentions": [str(payer.pubkey())]}, {"commitment": "processed"}
    )
    everything = ws.subscribe("logsSubscribe", "all", {"commitment": "confirmed"})
    sig = node.send([memo(payer.pubkey(), "line\none")], [payer])
    note = ws.next(mine)["value"]
    assert note["signature"] == sig and note["err"] is None
    assert 'Program log: Memo (len 8): "line\\none"' in note["logs"]
    while ws.next(everything)["value"]["signature"] != sig:
        pass
    assert not any(n["params"]["subscription"] == other for n in ws.notes)


def test_blocks_all_and_mentions(node: Node, ws: Socket) -> None:
    payer = node.wallet()
    cfg = {
        "commitment": "confirmed",
        "encoding": "json",
        "transactionDetails": "signatures",
        "maxSupportedTransactionVersion": 0,
    }
    mentions = ws.subscribe(
        "blockSubscribe", {"mentionsAccountOrProgram": str(payer.pubkey())}, cfg
    )
    every = ws.subscribe(
        "blockSubscribe", "all", {"commitment": "confirmed", "transactionDetails": "none"}
    )
    first = ws.next(every)["value"]
    second = ws.next(every)["value"]
    assert second["slot"] == first["slot"] + 1 and first["err"] is None
    assert isinstance(second["block"]["blockTime"], int) and "rewards" not in second["block"]
    sig = node.send([memo(payer.pubkey(), "block")], [payer])
    note = ws.next(mentions)
    assert note["value"]["block"]["signatures"] == [sig]
    assert note["context"]["slot"] == note["value"]["slot"] == note["value"]["block"]["blockHeight"]


def test_slot_and_root(node: Node, ws: Socket) -> None:
    slots = ws.subscribe("slotSubscribe")
    roots = ws.subscribe("rootSubscribe")
    a, b = ws.next(slots), ws.next(slots)
    assert b == {"parent": a["slot"], "root": b["slot"] - 31, "slot": a["slot"] + 1}
    root = ws.next(roots)
    assert isinstance(root, int) and root <= b["slot"] - 31 + 2
    assert ws.ask("slotUnsubscribe", slots)["result"] is True
    assert ws.ask("rootUnsubscribe", slots)["error"]["code"] == -32602  # not a root subscription


def test_errors_as_a_validator_answers(ws: Socket) -> None:
    assert ws.ask("accountSubscribe", "nope")["error"] == {
        "code": -32602,
        "message": "Invalid Request: Invalid pubkey provided",
    }
    assert (
        ws.ask("signatureSubscribe", "nope")["error"]["message"]
        == "Invalid Request: Invalid signature provided"
    )
    two = {"mentions": [str(Keypair().pubkey()), str(Keypair().pubkey())]}
    assert (
        ws.ask("logsSubscribe", two)["error"]["message"]
        == "Invalid Request: Only 1 address supported"
    )
    assert (
        ws.ask("blockSubscribe", "all", {"commitment": "processed"})["error"]["message"]
        == "Method does not support commitment below `confirmed`"
    )
    assert ws.ask("voteSubscribe")["error"] == {"code": -32601, "message": "Method not found"}
    too_many = {"filters": [{"dataSize": 1}] * 5}
    assert (
        ws.ask("programSubscribe", "11111111111111111111111111111111", too_many)["error"]["code"]
        == -32602
    )
