"""The cluster and its one node, as a single-validator cluster answers: getHealth, getVersion,
getIdentity, getGenesisHash, getClusterNodes, getVoteAccounts, getEpochSchedule,
getLeaderSchedule, getSlotLeader, getSlotLeaders, getBlockProduction, getHighestSnapshotSlot,
getMaxRetransmitSlot, getMaxShredInsertSlot. One node is the leader of every slot and produces
every block (none is skipped); it votes on each, so its vote account is current."""

from __future__ import annotations

from typing import Any

from solders.hash import Hash

from devchain.node import validator
from devchain.node.ledger import FINALITY_DEPTH, RpcError
from devchain.node.rpc.dispatch import API_VERSION, Params, Rpc, invalid, method
from devchain.node.rpc.params import commitment, config, pubkey, slot_arg, start_and_limit
from devchain.node.svm import EPOCH_SCHEDULE

MAX_SLOT_LEADERS = 5000
SLOT_HISTORY_ENTRIES = 1024 * 1024  # the SlotHistory sysvar's reach
DELINQUENT_SLOT_DISTANCE = 128
MAX_EPOCH_CREDITS_HISTORY = 5


@method("getHealth")
def get_health(rpc: Rpc, params: Params) -> Any:
    return "ok"


@method("getVersion")
def get_version(rpc: Rpc, params: Params) -> Any:
    return {"solana-core": API_VERSION, "feature-set": 0}


@method("getIdentity")
def get_identity(rpc: Rpc, params: Params) -> Any:
    return {"identity": str(validator.of(rpc.chain).node)}


@method("getGenesisHash")
def get_genesis_hash(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.genesis_hash


def shred_version(genesis_hash: str) -> int:
    """As a validator computes it from the genesis hash (no hard forks): the hash's 2-byte
    chunks XOR-ed, big-endian, plus one."""
    raw = bytes(Hash.from_string(genesis_hash))
    accum = [0, 0]
    for i in range(0, len(raw), 2):
        accum[0] ^= raw[i]
        accum[1] ^= raw[i + 1]
    return min((accum[0] << 8 | accum[1]) + 1, 0xFFFF)


@method("getClusterNodes")
def get_cluster_nodes(rpc: Rpc, params: Params) -> Any:
    """The one node: its RPC and PubSub addresses; it has no gossip, TPU, TVU or repair
    sockets (transactions arrive over RPC only), so those are null."""
    addresses = rpc.chain.addresses
    sockets = ("gossip", "tvu", "tpu", "tpuQuic", "tpuForwards", "tpuForwardsQuic", "tpuVote")
    node: dict[str, Any] = {"pubkey": str(validator.of(rpc.chain).node)}
    node |= {name: None for name in (*sockets, "serveRepair")}
    node |= {"rpc": addresses.get("rpc"), "pubsub": addresses.get("pubsub")}
    node |= {"version": API_VERSION, "featureSet": 0}
    node["shredVersion"] = shred_version(rpc.chain.genesis_hash)
    return [node]


@method("getVoteAccounts")
def get_vote_accounts(rpc: Rpc, params: Params) -> Any:
    cfg = config(params, 0)
    c = commitment(cfg)
    v = validator.of(rpc.chain)
    if cfg.get("votePubkey") is not None and pubkey(cfg["votePubkey"]) != v.vote:
        return {"current": [], "delinquent": []}
    distance = cfg.get("delinquentSlotDistance") or DELINQUENT_SLOT_DISTANCE
    if not isinstance(distance, int) or isinstance(distance, bool) or distance < 0:
        raise invalid("Invalid params: delinquentSlotDistance must be a non-negative integer")
    # The vote state as the bank at the commitment holds it: one vote for each slot before it,
    # rooted 31 slots back.
    slot = rpc.chain.commitment_slot(c)
    voted, root = max(slot - 1, 0), max(slot - FINALITY_DEPTH, 0)
    account = rpc.chain.get_account(v.vote, c)
    info = {
        "votePubkey": str(v.vote),
        "nodePubkey": str(v.node),
        "activatedStake": validator.activated_stake(rpc.chain.get_account(v.stake, c)),
        "epochVoteAccount": True,
        "commission": validator.commission_of(account),
        "lastVote": voted,
        "epochCredits": _epoch_credits(root),
        "rootSlot": root,
    }
    current = voted > slot - distance if slot >= distance else voted > 0
    return (
        {"current": [info], "delinquent": []} if current else {"current": [], "delinquent": [info]}
    )


def _epoch_credits(root: int) -> list[list[int]]:
    """(epoch, credits, previous credits) of the last epochs: one credit per rooted slot."""
    out = []
    credits = 0
    for epoch in range(EPOCH_SCHEDULE.get_epoch(root) + 1):
        first = EPOCH_SCHEDULE.get_first_slot_in_epoch(epoch)
        last = min(EPOCH_SCHEDULE.get_last_slot_in_epoch(epoch), root)
        earned = max(last - max(first, 1) + 1, 0)  # slot 0 (genesis) is not voted on
        out.append([epoch, credits + earned, credits])
        credits += earned
    return out[-MAX_EPOCH_CREDITS_HISTORY:]


@method("getEpochSchedule")
def get_epoch_schedule(rpc: Rpc, params: Params) -> Any:
    s = EPOCH_SCHEDULE
    return {
        "slotsPerEpoch": s.slots_per_epoch,
        "leaderScheduleSlotOffset": s.leader_schedule_slot_offset,
        "warmup": s.warmup,
        "firstNormalEpoch": s.first_normal_epoch,
        "firstNormalSlot": s.first_normal_slot,
    }


def _schedule_known(rpc: Rpc, epoch: int) -> bool:
    """Leader schedules are known up to the epoch after the current one."""
    return epoch <= EPOCH_SCHEDULE.get_epoch(rpc.chain.slot) + 1


@method("getLeaderSchedule")
def get_leader_schedule(rpc: Rpc, params: Params) -> Any:
    first = params[0] if params else None
    if isinstance(first, dict):  # [config]
        slot, cfg = None, config(params, 0)
    else:  # [slot or null, config]
        slot = None if first is None else slot_arg(params, 0, "slot")
        cfg = config(params, 1)
    c = commitment(cfg)
    node = validator.of(rpc.chain).node
    if cfg.get("identity") is not None and pubkey(cfg["identity"]) != node:
        return {}
    epoch = EPOCH_SCHEDULE.get_epoch(rpc.chain.commitment_slot(c) if slot is None else slot)
    if not _schedule_known(rpc, epoch):
        return None
    return {str(node): list(range(EPOCH_SCHEDULE.get_slots_in_epoch(epoch)))}


@method("getSlotLeader")
def get_slot_leader(rpc: Rpc, params: Params) -> Any:
    commitment(config(params, 0))
    return str(validator.of(rpc.chain).node)


@method("getSlotLeaders")
def get_slot_leaders(rpc: Rpc, params: Params) -> Any:
    start, limit = start_and_limit(params, MAX_SLOT_LEADERS, "Invalid limit")
    if limit and not _schedule_known(rpc, EPOCH_SCHEDULE.get_epoch(start + limit - 1)):
        epoch = max(EPOCH_SCHEDULE.get_epoch(start), EPOCH_SCHEDULE.get_epoch(rpc.chain.slot) + 2)
        raise invalid(f"Invalid slot range: leader schedule for epoch {epoch} is unavailable")
    return [str(validator.of(rpc.chain).node)] * limit


@method("getBlockProduction")
def get_block_production(rpc: Rpc, params: Params) -> Any:
    cfg = config(params, 0)
    c = commitment(cfg)
    node = str(validator.of(rpc.chain).node)
    newest = rpc.chain.commitment_slot(c)
    oldest = max(newest - SLOT_HISTORY_ENTRIES + 1, 0)
    if (rng := cfg.get("range")) is None:
        first, last = (
            EPOCH_SCHEDULE.get_first_slot_in_epoch(EPOCH_SCHEDULE.get_epoch(newest)),
            newest,
        )
    else:
        if not isinstance(rng, dict):
            raise invalid("Invalid params: range must be an object")
        first = slot_arg([rng.get("firstSlot")], 0, "firstSlot")
        last = newest if rng.get("lastSlot") is None else slot_arg([rng["lastSlot"]], 0, "lastSlot")
        if last < first:
            raise invalid(f"lastSlot, {last}, cannot be less than firstSlot, {first}")
    if first < oldest:
        raise invalid(f"firstSlot, {first}, is too small; min {oldest}")
    if last > newest:
        raise invalid(f"lastSlot, {last}, is too large; max {newest}")
    identity = None if cfg.get("identity") is None else str(pubkey(cfg["identity"]))
    produced = {} if identity not in (None, node) else {node: [last - first + 1] * 2}
    return rpc.ctx(c, {"byIdentity": produced, "range": {"firstSlot": first, "lastSlot": last}})


@method("getHighestSnapshotSlot")
def get_highest_snapshot_slot(rpc: Rpc, params: Params) -> Any:
    raise RpcError(-32008, "No snapshot")  # the node keeps its state in SQLite, not snapshots


@method("getMaxRetransmitSlot")
def get_max_retransmit_slot(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.slot


@method("getMaxShredInsertSlot")
def get_max_shred_insert_slot(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.slot
