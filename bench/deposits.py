"""The deposit watcher (tokens/deposit_watch.py) on the local chain node at 20 ms slots, each
figure beside a reference measured in the same run:

- scan cost: the same run of finalized blocks (outside token transfers, some into custody
  accounts) walked with 1,000 and with 100,000 watched custody accounts, alternately; the
  cost per block beside the node's own getBlock time for those blocks (the reference: what
  reading them costs before any matching). Aim: the two within 1.2x of each other.
- detection: 200 deposits sent in waves while the watcher follows the chain; for each, the
  finalized slot when its credit committed minus the slot it landed in (slots since it
  finalized), beside the node's getBlock time in slots. Aim: p50 <= 3 slots.
- flood: 10,000 noise transactions at one custody address with one real deposit among them,
  all between two passes of the watcher. Aim: the deposit credited once, in the same run.

    .venv/bin/python -m bench.deposits [--accounts 100000] [--deposits 200] [--flood 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import record
from core.config import Settings
from core.embedded import free_port
from tests.services import fresh_database

SLOT_MS = 20
UNIT = 10**9


def seed_watch(db_plain: str, start: int, count: int) -> None:
    """``count`` watched custody accounts that exist nowhere on chain (addresses are random):
    they only make the watcher's set as large as a big deployment's."""
    from solders.pubkey import Pubkey

    rows = [(str(Pubkey.new_unique()), f"u_watch_{start + i}") for i in range(count)]
    copy = "COPY custody_watch (address, user_uid, currency, ready) FROM STDIN"
    with (
        psycopg.connect(db_plain, autocommit=True) as conn,
        conn.cursor() as cur,
        cur.copy(copy) as cp,
    ):
        for address, uid in rows:
            cp.write_row((address, uid, "MCC", True))


async def run(args: argparse.Namespace, tmp: Path, db_url: str) -> None:
    from solana.rpc.async_api import AsyncClient
    from solders.keypair import Keypair
    from solders.system_program import TransferParams, transfer
    from spl.token.instructions import create_idempotent_associated_token_account
    from sqlalchemy import func, select, update

    from chain.blocks import BlockReader
    from chain.gateway import ChainGateway
    from chain.keys import load_or_create_keys
    from chain.rpc import ChainRpc
    from db.models.tokens import Deposit, DepositCursor
    from db.notify import NotifyListener
    from db.session import create_db_engine, create_session_maker
    from devchain.node.process import start_node
    from devchain.outside import OutsideWallet
    from tokens.deposit_watch import DepositScanner
    from tokens.deposits import ScanSummary, register

    node = start_node(tmp / "chain", tmp / "keys", free_port(), slot_ms=SLOT_MS, fixtures=False)
    settings = Settings(
        environment="test", database_url=db_url, solana_rpc_url=node.url,
        chain_keys_dir=tmp / "keys", log_level="WARNING",
    )  # fmt: skip
    engine = create_db_engine(settings)
    sessions = create_session_maker(engine)
    client = AsyncClient(node.url, timeout=30)
    rpc = ChainRpc(node.url, timeout=30)
    gateway = ChainGateway(settings, rpc, load_or_create_keys(tmp / "keys"), sessions)
    reader = BlockReader(rpc)
    plain = settings.database_url_plain
    try:
        await gateway.load_token_decimals()
        # Ten users with custody accounts, and an outside wallet holding MCC.
        users = [f"u_bench_{secrets.token_hex(4)}" for _ in range(10)]
        async with sessions() as session:
            for uid in users:
                await register(session, gateway, uid, "MCC")
            await session.commit()
        wallet = OutsideWallet(Keypair(), client)
        await wallet.ensure_sol(gateway, 10 * 10**9)
        await wallet.receive_minted(gateway, "MCC", 10**6 * UNIT, f"bench:{wallet.address}")
        watcher = DepositScanner(sessions, gateway)
        await watcher.scan()  # creates the ten custody accounts, sets the cursor
        seed_watch(plain, 0, args.accounts // 100 - len(users))  # 1,000 watched in all
        mint = gateway.keys.mint_for("MCC")
        custody = [gateway.custody_address(uid, "MCC") for uid in users]

        # -- scan cost ------------------------------------------------------------------
        # A run of blocks with token traffic: outside-to-outside transfers, 1 in 10 a deposit.
        others = [OutsideWallet(Keypair(), client) for _ in range(4)]
        start_slot = await reader.finalized_slot()
        messages = []
        for i in range(2000):
            if i % 10 == 0:
                dest = custody[i // 10 % len(custody)]
            else:
                dest = others[i % 4].token_account(mint)
            if i < 4:
                messages.append(
                    [create_idempotent_associated_token_account(
                        wallet.address, others[i].address, mint)]
                )  # fmt: skip
                continue
            messages.append([wallet.transfer_instruction(mint, dest, i, 9)])
        sent = await wallet.send_many(messages[:4], node.url)
        await wallet.wait_finalized(sent[-1])
        sent = await wallet.send_many(messages[4:], node.url)
        await wallet.wait_finalized(sent[-1])
        end_slot = await reader.finalized_slot()
        await watcher.scan()  # books the deposits of the run once

        async def walk_cost(scanner: DepositScanner) -> tuple[float, int]:
            async with sessions() as session:
                await session.execute(update(DepositCursor).values(slot=start_slot))
                await session.commit()
            summary = ScanSummary()
            began = time.perf_counter()
            await scanner._walk(start_slot, summary, until=end_slot)
            return (time.perf_counter() - began) * 1000, summary.blocks

        async def reference_cost() -> float:
            slots = await reader.block_slots(start_slot + 1, end_slot)
            began = time.perf_counter()
            for i in range(0, len(slots), watcher.chunk):
                await reader.blocks(slots[i : i + watcher.chunk])
            return (time.perf_counter() - began) * 1000 / max(len(slots), 1)

        small = DepositScanner(sessions, gateway)
        await small._prepare(0, ScanSummary())
        seed_watch(plain, 10**6, args.accounts - args.accounts // 100)
        large = DepositScanner(sessions, gateway)
        await large._prepare(0, ScanSummary())
        sizes = {"1k": len(small._watched), "100k": len(large._watched)}
        costs: dict[str, list[float]] = {"1k": [], "100k": [], "ref": []}
        blocks = 0
        for _ in range(args.rounds):
            for name, scanner in (("1k", small), ("100k", large)):
                ms, blocks = await walk_cost(scanner)
                costs[name].append(ms / max(blocks, 1))
            costs["ref"].append(await reference_cost())
        # Back to the tip for what follows.
        async with sessions() as session:
            await session.execute(update(DepositCursor).values(slot=end_slot))
            await session.commit()
        await small.aclose()
        await large.aclose()
        cost = {k: statistics.median(v) for k, v in costs.items()}
        ratio = cost["100k"] / cost["1k"]
        print(f"scan cost per block ({blocks} blocks, {len(messages)} transactions, "
              f"median of {args.rounds}):")  # fmt: skip
        print(f"  node getBlock alone (reference) {cost['ref']:8.3f} ms")
        print(f"  {sizes['1k']:>7,} watched accounts     {cost['1k']:8.3f} ms")
        print(f"  {sizes['100k']:>7,} watched accounts     {cost['100k']:8.3f} ms")

        # -- detection ------------------------------------------------------------------
        credited_at: dict[str, int] = {}
        notify = NotifyListener(plain)  # as a worker's: newly watched rows by NOTIFY
        await notify.start(ready_timeout=5.0)
        follower = DepositScanner(sessions, gateway, notify=notify)
        original = follower._commit

        async def timed_commit(records: list[dict[str, Any]], summary: Any, **kw: Any) -> None:
            before = len(summary.deposits)
            await original(records, summary, **kw)
            if len(summary.deposits) > before:
                now = await reader.finalized_slot()
                for d in summary.deposits[before:]:
                    credited_at[d["tx_signature"]] = now

        follower._commit = timed_commit  # type: ignore[method-assign]
        stop = asyncio.Event()

        task = asyncio.create_task(follower.follow(3600, poll=0.005, stop=stop))
        # Caught up with the tip first (part 1 left the cursor behind it).
        for _ in range(6000):
            async with sessions() as session:
                at = await session.scalar(select(DepositCursor.slot))
            if at is not None and at >= await reader.finalized_slot() - 2:
                break
            await asyncio.sleep(0.05)
        signatures: list[str] = []
        waves = max(args.deposits // 10, 1)
        for wave in range(waves):
            batch = [
                [wallet.transfer_instruction(mint, custody[i], 10**6 + wave * 10 + i, 9)]
                for i in range(10)
            ]
            signatures += await wallet.send_many(batch, node.url)
            await asyncio.sleep(0.15)
        await wallet.wait_finalized(signatures[-1])
        deadline = time.monotonic() + 30
        while len(set(signatures) & set(credited_at)) < len(signatures):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        stop.set()
        await task
        await follower.aclose()
        await notify.stop()
        async with sessions() as session:
            landed = dict(
                (await session.execute(
                    select(Deposit.signature, Deposit.slot).where(Deposit.signature.in_(signatures))
                )).all()
            )  # fmt: skip
        lags = [credited_at[s] - landed[s] for s in signatures if s in credited_at and s in landed]
        p50 = statistics.median(lags) if lags else float("inf")
        get_block_ms = []
        tip = await reader.finalized_slot()
        for s in range(tip - 20, tip):
            began = time.perf_counter()
            await reader.block(s)
            get_block_ms.append((time.perf_counter() - began) * 1000)
        ref_ms = statistics.median(get_block_ms)
        print(
            f"detection of {len(signatures)} deposits ({len(lags)} credited), {SLOT_MS} ms slots:"
        )
        print(f"  node getBlock (reference)   {ref_ms:6.2f} ms = {ref_ms / SLOT_MS:4.2f} slots")
        p90 = statistics.quantiles(lags, n=10)[-1] if len(lags) > 1 else p50
        print(f"  credited after finalization p50 {p50:.1f} slots, p90 {p90:.1f}")

        # -- flood --------------------------------------------------------------------
        target = custody[0]
        spammer = OutsideWallet(Keypair(), client)
        await spammer.ensure_sol(gateway, 10 * 10**9)
        async with sessions() as session:
            before = await session.scalar(
                select(func.count()).where(Deposit.address == str(target))
            )
        half = args.flood // 2
        noise = [
            [transfer(TransferParams(from_pubkey=spammer.address, to_pubkey=target, lamports=n))]
            for n in range(1, args.flood + 1)
        ]
        began = time.perf_counter()
        await spammer.send_many(noise[:half], node.url)
        deposit_sig = await wallet.send_tokens(mint, target, 777 * UNIT, 9)
        last = (await spammer.send_many(noise[half:], node.url))[-1]
        await spammer.wait_finalized(last)
        sent_s = time.perf_counter() - began
        flood_scanner = DepositScanner(sessions, gateway)
        began = time.perf_counter()
        summary = await flood_scanner.scan()
        while summary.cursor < (await reader.finalized_slot()) - 2:
            more = await flood_scanner.scan()
            summary.credited += more.credited
            summary.deposits += more.deposits
            summary.cursor, summary.blocks = more.cursor, summary.blocks + more.blocks
        scan_s = time.perf_counter() - began
        await flood_scanner.aclose()
        async with sessions() as session:
            rows = (
                await session.scalars(select(Deposit).where(Deposit.signature == deposit_sig))
            ).all()
            after = await session.scalar(select(func.count()).where(Deposit.address == str(target)))
        once = (
            len(rows) == 1 and rows[0].outcome == "credited" and rows[0].amount == 777 * UNIT
            and after == (before or 0) + 1
        )  # fmt: skip
        print(f"flood: {args.flood:,} noise transactions at one custody address around 1 deposit "
              f"(sent in {sent_s:.1f} s); one pass of {summary.blocks} blocks in {scan_s:.2f} s; "
              f"credited {len(rows)} time(s)")  # fmt: skip

        record(
            "deposits",
            {
                "scan_ms_per_block": cost, "scan_ratio_100k_1k": ratio,
                "detection_p50_slots": p50, "get_block_ms": ref_ms,
                "flood_credited_once": once, "flood_scan_s": scan_s,
            },
        )  # fmt: skip
        print(f"aim scan cost 100k/1k accounts: {ratio:.2f}")
        print(f"aim detection p50 slots: {p50:.1f}")
        print(f"aim flood deposit credited once: {'yes' if once else 'no'}")
        await watcher.aclose()
    finally:
        await rpc.aclose()
        await client.close()
        await engine.dispose()
        node.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=100_000)
    parser.add_argument("--deposits", type=int, default=200)
    parser.add_argument("--flood", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, fresh_database(Path(tmp)) as db_url:
        Path(tmp).chmod(0o755)
        asyncio.run(run(args, Path(tmp), db_url))


if __name__ == "__main__":
    main()
