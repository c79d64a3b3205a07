"""Benchmark the local chain node: SPL transfers per second through its JSON-RPC to
`finalized`, node CPU per transaction, and LiteSVM's raw in-process transfer rate for scale.

    .venv/bin/python -m bench.chain_node [--txs 3000] [--slot-ms 400] [--concurrency 32]

Loopback only, bounded in time (well under 2 minutes with the defaults).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import tempfile
import time
from pathlib import Path

import aiohttp
import psutil
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Processed
from solana.rpc.models import TxOpts
from solders.account import Account
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import Message
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction
from spl.token.constants import TOKEN_PROGRAM_ID
from spl.token.instructions import (
    create_associated_token_account,
    get_associated_token_address,
    mint_to,
    transfer_checked,
)
from spl.token.models import MintToParams, TransferCheckedParams

from chain.keys import load_or_create_keys
from core.embedded import free_port
from devchain.node.genesis import mint_data
from devchain.node.process import start_node

SOL = 1_000_000_000


def transfer_ix(owner: Keypair, src: Pubkey, dst: Pubkey, mint: Pubkey, amount: int) -> Instruction:
    return transfer_checked(
        TransferCheckedParams(
            program_id=TOKEN_PROGRAM_ID,
            source=src,
            mint=mint,
            dest=dst,
            owner=owner.pubkey(),
            amount=amount,
            decimals=9,
        )
    )


def signed(ixs: list[Instruction], signers: list[Keypair], blockhash: Hash) -> bytes:
    msg = Message.new_with_blockhash(ixs, signers[0].pubkey(), blockhash)
    return bytes(VersionedTransaction(msg, signers))


def litesvm_rate(n: int) -> float:
    """Transfers per second straight into LiteSVM, no RPC, no bookkeeping."""
    svm = LiteSVM().with_blockhash_check(False).with_transaction_history(0)
    payer, authority, owner = Keypair(), Keypair(), Keypair()
    mint = Pubkey.new_unique()
    svm.airdrop(payer.pubkey(), 1000 * SOL)
    rent = svm.minimum_balance_for_rent_exemption(82)
    svm.set_account(mint, Account(rent, mint_data(authority.pubkey()), TOKEN_PROGRAM_ID, False, 0))
    dst_owner = Keypair()
    src = get_associated_token_address(owner.pubkey(), mint)
    dst = get_associated_token_address(dst_owner.pubkey(), mint)
    bh = svm.latest_blockhash()
    setup = [
        create_associated_token_account(payer.pubkey(), owner.pubkey(), mint),
        create_associated_token_account(payer.pubkey(), dst_owner.pubkey(), mint),
        mint_to(MintToParams(program_id=TOKEN_PROGRAM_ID, mint=mint, dest=src,
                             mint_authority=authority.pubkey(), amount=10**15)),
    ]  # fmt: skip
    res = svm.send_transaction(
        VersionedTransaction.from_bytes(signed(setup, [payer, authority], bh))
    )
    assert "Failed" not in type(res).__name__, res
    txs = [
        VersionedTransaction.from_bytes(
            signed([transfer_ix(owner, src, dst, mint, i + 1)], [payer, owner], bh)
        )
        for i in range(n)
    ]
    t0 = time.perf_counter()
    for tx in txs:
        svm.send_transaction(tx)
    return n / (time.perf_counter() - t0)


async def rpc_bench(
    url: str, keys_dir: Path, n: int, concurrency: int, pid: int
) -> dict[str, float]:
    keys = load_or_create_keys(keys_dir)
    mint = keys.mcc_mint.pubkey()
    payer, owner, dst_owner = keys.fee_payer, Keypair(), Keypair()
    src = get_associated_token_address(owner.pubkey(), mint)
    dst = get_associated_token_address(dst_owner.pubkey(), mint)
    async with AsyncClient(url) as client:
        bh = (await client.get_latest_blockhash(Processed)).value.blockhash
        setup = [
            create_associated_token_account(payer.pubkey(), owner.pubkey(), mint),
            create_associated_token_account(payer.pubkey(), dst_owner.pubkey(), mint),
            mint_to(MintToParams(program_id=TOKEN_PROGRAM_ID, mint=mint, dest=src,
                                 mint_authority=keys.mint_authority.pubkey(), amount=10**15)),
        ]  # fmt: skip
        await client.send_raw_transaction(
            signed(setup, [payer, keys.mint_authority], bh), TxOpts(skip_confirmation=True)
        )
        bh = (await client.get_latest_blockhash(Processed)).value.blockhash
    # pre-sign so the client's signing cost is not in the measurement
    bodies = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "sendTransaction",
                "params": [
                    base64.b64encode(
                        signed([transfer_ix(owner, src, dst, mint, i + 1)], [payer, owner], bh)
                    ).decode(),
                    {"encoding": "base64"},
                ],
            }
        ).encode()
        for i in range(n)
    ]
    proc = psutil.Process(pid)
    sigs: list[str] = []
    queue = list(reversed(bodies))
    headers = {"Content-Type": "application/json"}

    async with aiohttp.ClientSession() as http:

        async def worker() -> None:
            while queue:
                body = queue.pop()
                async with http.post(url, data=body, headers=headers) as r:
                    resp = await r.json()
                if "result" not in resp:
                    raise RuntimeError(resp)
                sigs.append(resp["result"])

        cpu0 = sum(proc.cpu_times()[:2])
        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        t_sent = time.perf_counter()
        cpu_sent = sum(proc.cpu_times()[:2])

        async def statuses(batch: list[str]) -> list[dict[str, object] | None]:
            body = {"jsonrpc": "2.0", "id": 1, "method": "getSignatureStatuses", "params": [batch]}
            async with http.post(url, json=body) as r:
                return list((await r.json())["result"]["value"])

        pending = list(sigs)
        while pending:
            left = []
            for i in range(0, len(pending), 256):
                batch = pending[i : i + 256]
                for sig, st in zip(batch, await statuses(batch), strict=True):
                    if st is None or st.get("err") is not None:
                        if st is not None:
                            raise RuntimeError(f"{sig} failed: {st}")
                        left.append(sig)
                    elif st["confirmationStatus"] != "finalized":
                        left.append(sig)
            pending = left
            if pending:
                await asyncio.sleep(0.05)
        t_final = time.perf_counter()
    return {
        "sent": len(sigs),
        "submit_tps": len(sigs) / (t_sent - t0),
        "finalized_tps": len(sigs) / (t_final - t0),
        "finality_wait_s": t_final - t_sent,
        "cpu_ms_per_tx": (cpu_sent - cpu0) * 1000 / len(sigs),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--txs", type=int, default=3000)
    p.add_argument("--slot-ms", type=int, default=400)
    p.add_argument("--concurrency", type=int, default=32)
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        node = start_node(Path(tmp) / "data", Path(tmp) / "keys", free_port(), args.slot_ms)
        try:
            r = asyncio.run(
                rpc_bench(
                    node.url, Path(tmp) / "keys", args.txs, args.concurrency, node.process.pid
                )
            )
        finally:
            node.stop()
    raw = litesvm_rate(args.txs)
    print(f"SPL transfers through the node's RPC ({r['sent']:.0f} txs, {args.slot_ms} ms slots, "
          f"concurrency {args.concurrency}):")  # fmt: skip
    print(f"  submitted (processed)   {r['submit_tps']:9.0f} tx/s")
    print(f"  to finalized            {r['finalized_tps']:9.0f} tx/s  "
          f"(incl. {r['finality_wait_s']:.1f} s waiting for 31 slots)")  # fmt: skip
    print("  (finality adds ~31 slots of latency, not a cap: sustained finalized = submitted)")
    print(f"  node CPU per tx         {r['cpu_ms_per_tx']:9.3f} ms")
    print(f"LiteSVM in-process        {raw:9.0f} tx/s  ({1000 / raw:.3f} ms/tx)")


if __name__ == "__main__":
    main()
