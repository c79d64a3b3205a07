"""One test per HTTP method of the Agave JSON-RPC (docs/chain.md, "The local node as a
cluster"), the accounts, tokens and transactions ones (slots, blocks and the cluster:
test_node_cluster_methods.py), against a node of this module's own: each answer in the
validator's shape, as a one-validator cluster gives it, and the validator's error for a bad
parameter or an unknown item."""

from __future__ import annotations

import base64
from typing import Any

from solders.compute_budget import set_compute_unit_limit, set_compute_unit_price
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message
from spl.token.constants import TOKEN_PROGRAM_ID, WRAPPED_SOL_MINT

from tests.chain.cluster_support import SOL, Landed, Node, landed, memo, node, pay

__all__ = ["landed", "node"]  # the module's fixtures

NATIVE = str(WRAPPED_SOL_MINT)
VOTE_PROGRAM = "Vote111111111111111111111111111111111111111"
STAKE_PROGRAM = "Stake11111111111111111111111111111111111111"
INVALID_PARAMS = -32602


# -- accounts ----------------------------------------------------------------------------------


def test_get_account_info(node: Node) -> None:
    got = node.result("getAccountInfo", NATIVE, {"encoding": "jsonParsed"})["value"]
    assert got["owner"] == str(TOKEN_PROGRAM_ID) and got["lamports"] == SOL
    assert got["data"]["parsed"] == {
        "type": "mint",
        "info": {
            "decimals": 9,
            "freezeAuthority": None,
            "isInitialized": True,
            "mintAuthority": None,
            "supply": "0",
        },
    }
    vote = node.result("getVoteAccounts")["current"][0]["votePubkey"]
    too_big = node.error("getAccountInfo", vote, {"encoding": "base58"})  # 3762 bytes
    assert too_big["code"] == -32600 and "less than 128 bytes" in too_big["message"]
    assert node.error("getAccountInfo", "not-a-key")["code"] == INVALID_PARAMS


def test_get_balance(node: Node, landed: Landed) -> None:
    assert node.result("getBalance", str(landed.to), {"commitment": "confirmed"})["value"] == SOL
    assert node.result("getBalance", str(Keypair().pubkey()))["value"] == 0
    assert node.error("getBalance", "x")["code"] == INVALID_PARAMS


def test_get_multiple_accounts(node: Node, landed: Landed) -> None:
    keys = [str(landed.to), str(Keypair().pubkey())]
    got = node.result("getMultipleAccounts", keys, {"commitment": "confirmed"})["value"]
    assert got[0]["lamports"] == SOL and got[1] is None
    assert node.error("getMultipleAccounts", [str(landed.to)] * 101)["code"] == INVALID_PARAMS


def test_get_program_accounts(node: Node) -> None:
    votes = node.result("getProgramAccounts", VOTE_PROGRAM, {"encoding": "base64"})
    stakes = node.result("getProgramAccounts", STAKE_PROGRAM, {"encoding": "base64"})
    vote_info = node.result("getVoteAccounts")["current"][0]
    assert [v["pubkey"] for v in votes] == [vote_info["votePubkey"]]
    assert votes[0]["account"]["space"] == 3762 and stakes[0]["account"]["space"] == 200
    sized = node.result("getProgramAccounts", VOTE_PROGRAM, {"filters": [{"dataSize": 1}]})
    assert sized == []


def test_get_largest_accounts(node: Node) -> None:
    got = node.result("getLargestAccounts")["value"]
    lamports = [a["lamports"] for a in got]
    assert len(got) == 20 and lamports == sorted(lamports, reverse=True)
    assert node.result("getLargestAccounts", {"filter": "nonCirculating"})["value"] == []
    assert node.error("getLargestAccounts", {"filter": "x"})["code"] == INVALID_PARAMS


def test_get_minimum_balance_for_rent_exemption(node: Node) -> None:
    assert node.result("getMinimumBalanceForRentExemption", 0) == 890880
    assert node.error("getMinimumBalanceForRentExemption", -1)["code"] == INVALID_PARAMS


def test_get_supply(node: Node) -> None:
    value = node.result("getSupply")["value"]
    largest = node.result("getLargestAccounts")["value"]
    assert value["total"] == value["circulating"] >= sum(a["lamports"] for a in largest)
    assert value["nonCirculating"] == 0 and value["nonCirculatingAccounts"] == []


# -- SPL Token ---------------------------------------------------------------------------------


def test_get_token_account_balance(node: Node, landed: Landed) -> None:
    got = node.result("getTokenAccountBalance", str(landed.wrapped), {"commitment": "confirmed"})
    assert got["value"] == {
        "amount": str(2 * SOL),
        "decimals": 9,
        "uiAmount": 2.0,
        "uiAmountString": "2",
    }
    assert node.error("getTokenAccountBalance", NATIVE)["code"] == INVALID_PARAMS  # a mint


def test_get_token_accounts_by_owner(node: Node, landed: Landed) -> None:
    cfg = {"commitment": "confirmed", "encoding": "jsonParsed"}
    got = node.result("getTokenAccountsByOwner", str(landed.payer.pubkey()), {"mint": NATIVE}, cfg)
    (account,) = got["value"]
    assert account["pubkey"] == str(landed.wrapped)
    info = account["account"]["data"]["parsed"]["info"]
    assert info["isNative"] is True and info["tokenAmount"]["amount"] == str(2 * SOL)
    unknown = {"programId": str(Keypair().pubkey())}
    assert node.error("getTokenAccountsByOwner", NATIVE, unknown)["code"] == INVALID_PARAMS


def test_get_token_accounts_by_delegate(node: Node, landed: Landed) -> None:
    got = node.result(
        "getTokenAccountsByDelegate",
        str(landed.payer.pubkey()),
        {"programId": str(TOKEN_PROGRAM_ID)},
    )
    assert got["value"] == []  # nobody delegated


def test_get_token_largest_accounts(node: Node, landed: Landed) -> None:
    got = node.result("getTokenLargestAccounts", NATIVE, {"commitment": "confirmed"})["value"]
    assert {"address": str(landed.wrapped), "amount": str(2 * SOL)}.items() <= got[0].items()


def test_get_token_supply(node: Node) -> None:
    value = node.result("getTokenSupply", NATIVE)["value"]
    assert value == {"amount": "0", "decimals": 9, "uiAmount": 0.0, "uiAmountString": "0"}
    assert node.error("getTokenSupply", str(Keypair().pubkey()))["code"] == INVALID_PARAMS


# -- transactions ------------------------------------------------------------------------------


def test_request_airdrop(node: Node) -> None:
    kp = node.wallet(3 * SOL)
    assert (
        node.result("getBalance", str(kp.pubkey()), {"commitment": "confirmed"})["value"] == 3 * SOL
    )
    assert node.error("requestAirdrop", str(kp.pubkey()), 0)["code"] == INVALID_PARAMS


def test_send_transaction(node: Node, landed: Landed) -> None:
    poor = Keypair()
    tx = node.signed([pay(poor, landed.to, 1)], [poor])
    error = node.error(
        "sendTransaction", base64.b64encode(bytes(tx)).decode(), {"encoding": "base64"}
    )
    assert error["code"] == -32002 and error["data"]["err"] == "AccountNotFound"


def test_simulate_transaction(node: Node, landed: Landed) -> None:
    tx = node.signed([memo(landed.payer.pubkey(), 'say "hi"')], [landed.payer])
    raw = base64.b64encode(bytes(tx)).decode()
    value = node.result("simulateTransaction", raw, {"encoding": "base64"})["value"]
    assert value["err"] is None
    assert 'Program log: Memo (len 8): "say \\"hi\\""' in value["logs"]


def test_get_signature_statuses(node: Node, landed: Landed) -> None:
    (status,) = node.result("getSignatureStatuses", [landed.sig])["value"]
    assert status["slot"] == landed.slot and status["err"] is None
    assert node.error("getSignatureStatuses", ["x"])["code"] == INVALID_PARAMS


def test_get_signatures_for_address(node: Node, landed: Landed) -> None:
    got = node.result("getSignaturesForAddress", str(landed.to), {"commitment": "confirmed"})
    assert [g["signature"] for g in got] == [landed.sig]
    assert got[0]["memo"] == "[12] method tests" and isinstance(got[0]["blockTime"], int)


def test_get_transaction(node: Node, landed: Landed) -> None:
    cfg: dict[str, Any] = {"encoding": "jsonParsed", "commitment": "confirmed"}
    got = node.result("getTransaction", landed.sig, cfg)
    transfer, note = got["transaction"]["message"]["instructions"]
    assert transfer == {
        "program": "system",
        "programId": "11111111111111111111111111111111",
        "parsed": {
            "type": "transfer",
            "info": {
                "source": str(landed.payer.pubkey()),
                "destination": str(landed.to),
                "lamports": SOL,
            },
        },
        "stackHeight": None,
    }
    assert note["program"] == "spl-memo" and note["parsed"] == "method tests"
    assert 'Program log: Memo (len 12): "method tests"' in got["meta"]["logMessages"]
    assert node.result("getTransaction", str(Keypair().sign_message(b"x")), cfg) is None


def test_get_fee_for_message(node: Node, landed: Landed) -> None:
    msg = Message.new_with_blockhash(
        [pay(landed.payer, landed.to, 1)], landed.payer.pubkey(), node.blockhash()
    )
    got = node.result("getFeeForMessage", base64.b64encode(bytes(msg)).decode())
    assert got["value"] == 5000
    # the priority fee counts: 30 000 units at 1 000 001 micro-lamports = 30 000.03 -> 30 001
    priced = Message.new_with_blockhash(
        [
            set_compute_unit_limit(30_000),
            set_compute_unit_price(1_000_001),
            pay(landed.payer, landed.to, 1),
        ],
        landed.payer.pubkey(),
        node.blockhash(),
    )
    got = node.result("getFeeForMessage", base64.b64encode(bytes(priced)).decode())
    assert got["value"] == 5000 + 30_001
    # a blockhash the node does not know (or that expired): null, as a validator answers
    unknown = Message.new_with_blockhash(
        [pay(landed.payer, landed.to, 1)], landed.payer.pubkey(), Hash.new_unique()
    )
    got = node.result("getFeeForMessage", base64.b64encode(bytes(unknown)).decode())
    assert got["value"] is None


def test_get_recent_prioritization_fees(node: Node, landed: Landed) -> None:
    got = node.result("getRecentPrioritizationFees", [str(landed.to)])
    assert 1 <= len(got) <= 150
    assert all(set(f) == {"slot", "prioritizationFee"} for f in got)
    assert [f["slot"] for f in got] == sorted(f["slot"] for f in got)
    assert all(f["prioritizationFee"] == 0 for f in got)  # a calm node: no market for priority
