"""Supply, stake and inflation: getSupply, getLargestAccounts, getStakeMinimumDelegation,
getInflationGovernor, getInflationRate, getInflationReward. The local cluster's genesis has
inflation disabled (``solana-genesis --inflation none``): LiteSVM pays no rewards, so every
rate is 0 and no address ever has an inflation reward. No account is non-circulating (the
validator's own list of them names mainnet's accounts)."""

from __future__ import annotations

from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey

from devchain.node.ledger import RpcError
from devchain.node.rpc.dispatch import Params, Rpc, invalid, method
from devchain.node.rpc.params import arg, commitment, config, pubkey
from devchain.node.svm import EPOCH_SCHEDULE, Chain, Commitment

NUM_LARGEST_ACCOUNTS = 20
STAKE_MINIMUM_DELEGATION = 1_000_000_000  # 1 SOL: the raised minimum (all features active)
# Accounts every LiteSVM holds from the start (built-in programs, loaders, SPL programs,
# sysvars): counted in the supply like any other, though the node never stores them.
BUILTINS = [
    Pubkey.from_string(k)
    for k in (
        "11111111111111111111111111111111",
        "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
        "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
        "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
        "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
        "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
        "AddressLookupTab1e1111111111111111111111111",
        "ComputeBudget111111111111111111111111111111",
        "Stake11111111111111111111111111111111111111",
        "Vote111111111111111111111111111111111111111",
        "BPFLoaderUpgradeab1e11111111111111111111111",
        "BPFLoader2111111111111111111111111111111111",
        "BPFLoader1111111111111111111111111111111111",
        "Ed25519SigVerify111111111111111111111111111",
        "KeccakSecp256k11111111111111111111111111111",
        "Secp256r1SigVerify1111111111111111111111111",
        "ZkE1Gama1Proof11111111111111111111111111111",
        "SysvarC1ock11111111111111111111111111111111",
        "SysvarRent111111111111111111111111111111111",
        "SysvarEpochSchedu1e111111111111111111111111",
        "SysvarRecentB1ockHashes11111111111111111111",
        "SysvarS1otHashes111111111111111111111111111",
        "SysvarS1otHistory11111111111111111111111111",
        "SysvarStakeHistory1111111111111111111111111",
        "SysvarFees111111111111111111111111111111111",
        "SysvarEpochRewards1111111111111111111111111",
        "SysvarLastRestartS1ot1111111111111111111111",
    )
]


def all_accounts(chain: Chain, c: Commitment) -> list[tuple[Pubkey, Account]]:
    """Every account of the chain at the commitment: the stored ones, those written since the
    last flush and the built-ins."""
    keys = {*chain.store.account_keys(), *chain.versions, *BUILTINS}
    found = ((k, chain.get_account(k, c)) for k in keys)
    return [(k, a) for k, a in found if a is not None]


@method("getSupply")
def get_supply(rpc: Rpc, params: Params) -> Any:
    cfg = config(params, 0)
    c = commitment(cfg)
    total = sum(a.lamports for _, a in all_accounts(rpc.chain, c))
    value: dict[str, Any] = {"total": total, "circulating": total, "nonCirculating": 0}
    value["nonCirculatingAccounts"] = []  # excludeNonCirculatingAccountsList: empty either way
    return rpc.ctx(c, value)


@method("getLargestAccounts")
def get_largest_accounts(rpc: Rpc, params: Params) -> Any:
    """The 20 largest accounts by lamports (ties: address order)."""
    cfg = config(params, 0)
    c = commitment(cfg)
    wanted = cfg.get("filter")
    if wanted not in (None, "circulating", "nonCirculating"):
        raise invalid(f"Invalid params: unknown variant `{wanted}`, expected `circulating` or "
                      "`nonCirculating`")  # fmt: skip
    accounts = [] if wanted == "nonCirculating" else all_accounts(rpc.chain, c)
    accounts.sort(key=lambda ka: (-ka[1].lamports, str(ka[0])))
    value = [{"address": str(k), "lamports": a.lamports} for k, a in accounts]
    return rpc.ctx(c, value[:NUM_LARGEST_ACCOUNTS])


@method("getStakeMinimumDelegation")
def get_stake_minimum_delegation(rpc: Rpc, params: Params) -> Any:
    return rpc.ctx(commitment(config(params, 0)), STAKE_MINIMUM_DELEGATION)


@method("getInflationGovernor")
def get_inflation_governor(rpc: Rpc, params: Params) -> Any:
    commitment(config(params, 0))
    return {"initial": 0.0, "terminal": 0.0, "taper": 0.0, "foundation": 0.0, "foundationTerm": 0.0}


@method("getInflationRate")
def get_inflation_rate(rpc: Rpc, params: Params) -> Any:
    epoch = EPOCH_SCHEDULE.get_epoch(rpc.chain.commitment_slot(Commitment.FINALIZED))
    return {"total": 0.0, "validator": 0.0, "foundation": 0.0, "epoch": epoch}


@method("getInflationReward")
def get_inflation_reward(rpc: Rpc, params: Params) -> Any:
    """Rewards of an epoch are paid in the first block of the next: until that block exists
    the validator answers "Block not available"; after it, no address has a reward here."""
    addresses = arg(params, 0)
    if not isinstance(addresses, list):
        raise invalid("Invalid params: expected a list of addresses")
    keys = [pubkey(a) for a in addresses]
    cfg = config(params, 1)
    slot = rpc.chain.commitment_slot(commitment(cfg))
    epoch = cfg.get("epoch")
    if epoch is None:
        epoch = max(EPOCH_SCHEDULE.get_epoch(slot) - 1, 0)
    elif not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 0:
        raise invalid("Invalid params: epoch must be a non-negative integer")
    boundary = EPOCH_SCHEDULE.get_first_slot_in_epoch(epoch + 1)
    if boundary > slot:
        raise RpcError(-32004, f"Block not available for slot {boundary}")
    return [None for _ in keys]
