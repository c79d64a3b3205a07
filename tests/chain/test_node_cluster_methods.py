"""One test per HTTP method of the Agave JSON-RPC, the slots, blocks and cluster ones (the
accounts, tokens and transactions: test_node_methods.py), against a node of this module's
own: each answer in the validator's shape, as a one-validator cluster gives it, and the
validator's error for a bad parameter or an unknown item."""

from __future__ import annotations

from solders.keypair import Keypair
from spl.token.constants import WRAPPED_SOL_MINT

from devchain.node.ledger import FINALITY_DEPTH
from tests.chain.cluster_support import SOL, Landed, Node, identity, landed, node

__all__ = ["landed", "node"]  # the module's fixtures

NATIVE = str(WRAPPED_SOL_MINT)
VOTE_PROGRAM = "Vote111111111111111111111111111111111111111"
STAKE_PROGRAM = "Stake11111111111111111111111111111111111111"
INVALID_PARAMS = -32602


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
