"""One test per HTTP method of the Agave JSON-RPC (docs/chain.md, "The local node's JSON-RPC"),
against a node of this module's own: each answer in the validator's shape, as a one-validator
cluster gives it, and the validator's error for a bad parameter or an unknown item.
getRecentPrioritizationFees is issue 39's (the weather) and not tested here."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import pytest
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from spl.token.constants import TOKEN_PROGRAM_ID, WRAPPED_SOL_MINT
from spl.token.instructions import (
    create_associated_token_account,
    get_associated_token_address,
    sync_native,
)
from spl.token.models import SyncNativeParams

from devchain.node.ledger import FINALITY_DEPTH
from tests.chain.cluster_support import SOL, Node, memo, node, pay

__all__ = ["node"]  # the module's node fixture

NATIVE = str(WRAPPED_SOL_MINT)
VOTE_PROGRAM = "Vote111111111111111111111111111111111111111"
STAKE_PROGRAM = "Stake11111111111111111111111111111111111111"
INVALID_PARAMS = -32602


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


# -- slots and blocks --------------------------------------------------------------------------


def test_get_slot(node: Node) -> None:
    processed, confirmed, finalized = (
        node.slot(c) for c in ("processed", "confirmed", "finalized")
    )
    assert finalized <= confirmed <= processed
    assert node.error("getSlot", {"commitment": "nope"})["code"] == INVALID_PARAMS


def test_get_block_height(node: Node) -> None:
    assert node.result("getBlockHeight", {"commitment": "confirmed"}) >= node.slot("finalized")


def test_get_block(node: Node, landed: Landed) -> None:
    block = node.result(
        "getBlock", landed.slot, {"encoding": "jsonParsed", "commitment": "confirmed"}
    )
    assert block["blockHeight"] == landed.slot and block["parentSlot"] == landed.slot - 1
    (tx,) = [t for t in block["transactions"] if t["transaction"]["signatures"][0] == landed.sig]
    parsed = [ix.get("parsed") for ix in tx["transaction"]["message"]["instructions"]]
    assert parsed[1] == "method tests"
    empty = node.result("getBlock", 1, {"transactionDetails": "none", "rewards": False})
    assert isinstance(empty["blockTime"], int) and "transactions" not in empty
    assert node.error("getBlock", 1, {"commitment": "processed"})["code"] == INVALID_PARAMS
    assert node.error("getBlock", 10**9)["code"] == -32004


def test_get_block_time(node: Node, landed: Landed) -> None:
    times = [node.result("getBlockTime", s) for s in (0, 1, landed.slot)]
    assert all(isinstance(t, int) for t in times) and times == sorted(times)
    assert node.error("getBlockTime", 10**9) == {
        "code": -32004,
        "message": f"Block not available for slot {10**9}",
    }


def test_get_blocks(node: Node) -> None:
    assert node.result("getBlocks", 0, 3) == [0, 1, 2, 3]
    assert node.error("getBlocks", 0, 600_000)["code"] == INVALID_PARAMS


def test_get_blocks_with_limit(node: Node) -> None:
    assert node.result("getBlocksWithLimit", 2, 3) == [2, 3, 4]


def test_get_block_commitment(node: Node) -> None:
    total = node.result("getVoteAccounts")["current"][0]["activatedStake"]
    slot = node.slot("confirmed")
    got = node.result("getBlockCommitment", slot)
    assert got["totalStake"] == total and len(got["commitment"]) == 32
    assert sum(got["commitment"]) == total
    assert node.result("getBlockCommitment", 0) == {"commitment": None, "totalStake": total}


def test_get_block_production(node: Node) -> None:
    got = node.result("getBlockProduction", {"range": {"firstSlot": 1, "lastSlot": 5}})
    assert got["value"] == {
        "byIdentity": {identity(node): [5, 5]},
        "range": {"firstSlot": 1, "lastSlot": 5},
    }
    error = node.error("getBlockProduction", {"range": {"firstSlot": 5, "lastSlot": 1}})
    assert error["message"] == "lastSlot, 1, cannot be less than firstSlot, 5"


def test_get_first_available_block(node: Node) -> None:
    assert node.result("getFirstAvailableBlock") == 0


def test_minimum_ledger_slot(node: Node) -> None:
    assert node.result("minimumLedgerSlot") == 0


def test_get_latest_blockhash(node: Node) -> None:
    value = node.result("getLatestBlockhash", {"commitment": "processed"})["value"]
    assert value["lastValidBlockHeight"] - node.slot() in range(148, 151)


def test_is_blockhash_valid(node: Node) -> None:
    blockhash = str(node.blockhash())
    assert node.result("isBlockhashValid", blockhash, {"commitment": "processed"})["value"] is True
    assert node.result("isBlockhashValid", str(Keypair().pubkey()))["value"] is False


def test_get_epoch_info(node: Node, landed: Landed) -> None:
    info = node.result("getEpochInfo", {"commitment": "confirmed"})
    assert info["epoch"] == 0 and info["slotsInEpoch"] == 432000
    assert info["slotIndex"] == info["absoluteSlot"] == info["blockHeight"]
    assert info["transactionCount"] == node.result(
        "getTransactionCount", {"commitment": "confirmed"}
    )


def test_get_epoch_schedule(node: Node) -> None:
    assert node.result("getEpochSchedule") == {
        "slotsPerEpoch": 432000,
        "leaderScheduleSlotOffset": 432000,
        "warmup": False,
        "firstNormalEpoch": 0,
        "firstNormalSlot": 0,
    }


def test_get_transaction_count(node: Node, landed: Landed) -> None:
    before = node.result("getTransactionCount", {"commitment": "confirmed"})
    assert before >= 3  # the airdrop, the transfer, the wrap
    node.wallet(SOL)  # one more landed transaction
    assert node.result("getTransactionCount", {"commitment": "confirmed"}) == before + 1


def test_get_recent_performance_samples(node: Node) -> None:
    samples = node.result("getRecentPerformanceSamples", 5)
    assert isinstance(samples, list) and len(samples) <= 5  # one a minute
    assert node.error("getRecentPerformanceSamples", 721)["message"] == "Invalid limit; max 720"


def test_get_max_retransmit_slot(node: Node) -> None:
    assert node.result("getMaxRetransmitSlot") >= node.slot("confirmed")


def test_get_max_shred_insert_slot(node: Node) -> None:
    assert node.result("getMaxShredInsertSlot") >= node.slot("confirmed")


def test_get_highest_snapshot_slot(node: Node) -> None:
    assert node.error("getHighestSnapshotSlot") == {"code": -32008, "message": "No snapshot"}


# -- the cluster -------------------------------------------------------------------------------


def test_get_health(node: Node) -> None:
    assert node.result("getHealth") == "ok"


def test_get_version(node: Node) -> None:
    assert set(node.result("getVersion")) == {"solana-core", "feature-set"}


def test_get_genesis_hash(node: Node) -> None:
    assert node.result("getBlock", 0, {"transactionDetails": "none"})["blockhash"] == node.result(
        "getGenesisHash"
    )


def test_get_identity(node: Node) -> None:
    assert node.result("getSlotLeader") == identity(node)


def test_get_cluster_nodes(node: Node) -> None:
    (one,) = node.result("getClusterNodes")
    assert one["pubkey"] == identity(node)
    assert (
        f"http://{one['rpc']}" == node.handle.url and f"ws://{one['pubsub']}" == node.handle.ws_url
    )
    assert one["gossip"] is None and isinstance(one["shredVersion"], int)


def test_get_vote_accounts(node: Node) -> None:
    got = node.result("getVoteAccounts", {"commitment": "confirmed"})
    (vote,) = got["current"]
    assert got["delinquent"] == [] and vote["nodePubkey"] == identity(node)
    assert vote["activatedStake"] == 1_000_000 * SOL and vote["epochVoteAccount"] is True
    assert vote["lastVote"] >= vote["rootSlot"] >= node.slot("confirmed") - FINALITY_DEPTH - 5
    other = {"votePubkey": str(Keypair().pubkey())}
    assert node.result("getVoteAccounts", other) == {"current": [], "delinquent": []}


def test_get_leader_schedule(node: Node) -> None:
    schedule = node.result("getLeaderSchedule")
    assert list(schedule) == [identity(node)] and len(schedule[identity(node)]) == 432000
    assert node.result("getLeaderSchedule", 10 * 432000) is None  # too far ahead
    assert node.result("getLeaderSchedule", None, {"identity": str(Keypair().pubkey())}) == {}


def test_get_slot_leader(node: Node) -> None:
    assert node.result("getSlotLeader", {"commitment": "confirmed"}) == identity(node)


def test_get_slot_leaders(node: Node) -> None:
    assert node.result("getSlotLeaders", 10, 3) == [identity(node)] * 3
    assert node.error("getSlotLeaders", 0, 5001)["message"] == "Invalid limit; max 5000"


def test_get_stake_minimum_delegation(node: Node) -> None:
    assert node.result("getStakeMinimumDelegation")["value"] == SOL


def test_get_inflation_governor(node: Node) -> None:
    assert set(node.result("getInflationGovernor").values()) == {0.0}  # inflation disabled


def test_get_inflation_rate(node: Node) -> None:
    assert node.result("getInflationRate") == {
        "total": 0.0,
        "validator": 0.0,
        "foundation": 0.0,
        "epoch": 0,
    }


def test_get_inflation_reward(node: Node, landed: Landed) -> None:
    # epoch 0's rewards would be paid in epoch 1's first block, which does not exist yet
    error = node.error("getInflationReward", [str(landed.to)])
    assert error == {"code": -32004, "message": "Block not available for slot 432000"}
    assert node.error("getInflationReward", ["x"])["code"] == INVALID_PARAMS


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
