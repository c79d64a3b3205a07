"""Cluster and node metadata: getHealth, getVersion, getIdentity, getGenesisHash."""

from __future__ import annotations

from typing import Any

from devchain.node.rpc.dispatch import API_VERSION, Params, Rpc, method


@method("getHealth")
def get_health(rpc: Rpc, params: Params) -> Any:
    return "ok"


@method("getVersion")
def get_version(rpc: Rpc, params: Params) -> Any:
    return {"solana-core": API_VERSION, "feature-set": 0}


@method("getIdentity")
def get_identity(rpc: Rpc, params: Params) -> Any:
    return {"identity": str(rpc.chain.faucet.pubkey())}


@method("getGenesisHash")
def get_genesis_hash(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.genesis_hash
