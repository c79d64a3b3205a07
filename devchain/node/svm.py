"""The chain state machine: LiteSVM plus what a cluster adds around it — slots, blockhashes
with expiry, commitment levels, per-account versions for reads at `confirmed`/`finalized`,
transaction history, signature de-duplication and the per-slot snapshot to disk.

Everything runs on the event-loop thread; LiteSVM calls are short, so there is no locking.

Listeners (for a PubSub hub): ``chain.on_slot`` callables get each newly opened slot after
``tick``; ``chain.on_landed`` callables get each recorded transaction (its stored record,
sendTransaction's and requestAirdrop's alike; to read, not to change) and the accounts it
changed. Both run on the event-loop thread; a listener's exception is logged, never raised.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from solders.account import Account
from solders.clock import Clock
from solders.epoch_schedule import EpochSchedule
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import Transaction, VersionedTransaction
from solders.transaction_metadata import SimulatedTransactionInfo

from devchain.node import spl
from devchain.node.codec import err_text
from devchain.node.ledger import (
    PERF_SAMPLE_SECS,
    PERF_SAMPLES,
    STATUS_CACHE_SLOTS,
    Commitment,
    Ledger,
    RpcError,
    now,
)
from devchain.node.persist import Store, Versions
from devchain.node.txrecord import (
    MEMO_V3,
    Simulation,
    account_keys,
    inner_instructions,
    memo_field,
    memo_logs,
    meta_parts,
    return_data,
    token_balances,
)

log = logging.getLogger("devchain.node")

BLOCKHASH_VALIDITY = 150  # blocks a blockhash stays usable, as on mainnet
SLOT_HASHES_MAX = 512  # entries of the SlotHashes sysvar, as on a validator
# Epochs of 432 000 slots from genesis, no warm-up (a test validator's schedule).
EPOCH_SCHEDULE = EpochSchedule.without_warmup()


def _notify(listeners: list[Callable[..., None]], *args: Any) -> None:
    for listener in listeners:
        try:
            listener(*args)
        except Exception:
            log.warning("chain listener %r failed", listener, exc_info=True)


class Chain(Ledger):
    def __init__(self, svm: LiteSVM, store: Store, meta: dict[str, Any]) -> None:
        self.svm = svm
        self.store = store
        self.slot: int = meta["slot"]
        self._seq: int = meta["seq"]
        self._seed = bytes.fromhex(meta["seed"])
        self.faucet = Keypair.from_base58_string(meta["faucet"])
        # blockhash bookkeeping: slot → hash and hash → block height it was issued at
        self._slot_hash: dict[int, str] = {int(k): v for k, v in meta["blockhashes"].items()}
        self._hash_height: dict[str, int] = {v: k for k, v in self._slot_hash.items()}
        self.genesis_hash: str = meta["genesis_hash"]
        # per-account history of recent writes: [(slot, account)], first entry slot -1 = state
        # before the first unfinalized write; dropped once the newest write is finalized
        self.versions: Versions = {}
        # signature → (slot, err) for the status cache window; older ones live in sqlite
        self._recent: dict[str, tuple[int, Any]] = {}
        self._dirty: dict[Pubkey, Account | None] = {}
        self._pending: list[tuple[dict[str, Any], list[str]]] = []
        self._versions_dirty = False
        # block times: recent slots here, older ones from sqlite (stored when the second changes)
        self.genesis_time: int = meta.get("genesis_time") or now()
        self._block_time: dict[int, int] = {}
        self._times: list[tuple[int, int]] = []  # not yet persisted
        self._last_time = 0
        opened = store.block_time(self.slot) if self.slot > 0 else None
        if opened is None:
            self._stamp(self.slot)
        else:  # a restart: the slot still open keeps the second it opened at
            self._block_time[self.slot] = self._last_time = opened
        self._slot_txs: dict[int, int] = {}  # recent slot → transactions landed in it
        # getRecentPerformanceSamples: one sample per `perf_period` seconds, newest last
        self.perf_period = PERF_SAMPLE_SECS
        self.perf_samples: deque[dict[str, int]] = deque(maxlen=PERF_SAMPLES)
        self._perf_mark = (time.monotonic(), self.slot, self._seq)
        self._epoch_start = (-1, 0)  # (epoch, time of its first block), for the Clock sysvar
        self.addresses: dict[str, str] = {}  # the node's endpoints (rpc, pubsub)
        self._slot_hashes: deque[tuple[int, Hash]] = deque()  # the SlotHashes sysvar, newest first
        self.on_slot: list[Callable[[int], None]] = []  # listeners: see the module docstring
        self.on_landed: list[Callable[[dict[str, Any], list[Pubkey]], None]] = []

    # -- construction --------------------------------------------------------------------

    @staticmethod
    def new_svm() -> LiteSVM:
        # Our own blockhash map decides validity (LiteSVM only knows its latest hash), our own
        # signature index de-duplicates, and check_transaction verifies signatures once per
        # send, so LiteSVM's own checks and history are switched off.
        svm = LiteSVM().with_blockhash_check(False).with_transaction_history(0)
        return svm.with_sigverify(False)

    @staticmethod
    def fresh_meta() -> dict[str, Any]:
        seed = os.urandom(32)
        genesis = str(Hash(hashlib.sha256(seed + (0).to_bytes(8, "little")).digest()))
        return {
            "slot": 0,
            "seq": 0,
            "seed": seed.hex(),
            "faucet": str(Keypair()),
            "blockhashes": {"0": genesis},
            "genesis_hash": genesis,
            "genesis_time": now(),
        }

    @classmethod
    def restore(cls, svm: LiteSVM, store: Store, meta: dict[str, Any]) -> Chain:
        chain = cls(svm, store, meta)
        for key, acc in store.load_accounts():
            svm.set_account(key, acc)
        chain.versions = store.load_versions()
        for rec in store.recent_txs(chain.slot - STATUS_CACHE_SLOTS):
            chain._recent[rec["signature"]] = (rec["slot"], rec["err"])
        chain._set_sysvars()
        return chain

    @property
    def seed(self) -> bytes:
        """The chain's secret seed: its blockhashes and validator keys derive from it."""
        return self._seed

    def set_account(self, key: Pubkey, account: Account) -> None:
        """Write outside any transaction (genesis, --account files); persisted with the slot."""
        self.svm.set_account(key, account)
        self._dirty[key] = account

    def meta(self) -> dict[str, Any]:
        return {
            "slot": self.slot,
            "seq": self._seq,
            "seed": self._seed.hex(),
            "faucet": str(self.faucet),
            "blockhashes": {str(k): v for k, v in self._slot_hash.items()},
            "genesis_hash": self.genesis_hash,
            "genesis_time": self.genesis_time,
        }

    # -- slots and blockhashes -----------------------------------------------------------

    def tick(self) -> None:
        """End the current slot (persist it) and open the next one with a fresh blockhash."""
        self.flush(force=self.slot % 25 == 0)  # idle nodes still persist their slot now and then
        self.slot += 1
        bh = self.blockhash_of(self.slot)
        self._slot_hash[self.slot] = bh
        self._hash_height[bh] = self.slot
        old = self.slot - STATUS_CACHE_SLOTS
        if (gone := self._slot_hash.pop(old, None)) is not None:
            self._hash_height.pop(gone, None)
        self._block_time.pop(old, None)
        self._slot_txs.pop(old, None)
        self._stamp(self.slot)
        self._set_sysvars()
        self._prune_versions()
        self._sample_performance()
        if self.slot % 50 == 0:
            self._recent = {s: v for s, v in self._recent.items() if v[0] > old}
        _notify(self.on_slot, self.slot)

    def blockhash_of(self, slot: int) -> str:
        """Blockhashes derive from a per-chain seed, so any past block's hash is recomputable
        and a restarted node never reissues an old one."""
        return str(self._hash_of(slot))

    def _hash_of(self, slot: int) -> Hash:
        return Hash(hashlib.sha256(self._seed + slot.to_bytes(8, "little")).digest())

    def _set_sysvars(self) -> None:
        """Clock and SlotHashes as a validator's bank has them at the open slot: SlotHashes lists
        the newest 512 closed slots, newest first (an address lookup table is created from one
        of them, and its deactivation is timed by them)."""
        epoch = EPOCH_SCHEDULE.get_epoch(self.slot)
        if self._epoch_start[0] != epoch:
            first = EPOCH_SCHEDULE.get_first_slot_in_epoch(epoch)
            self._epoch_start = (epoch, self.block_time(first))
        when = self.block_time(self.slot)
        self.svm.set_clock(Clock(self.slot, self._epoch_start[1], epoch, epoch + 1, when))
        self.svm.set_epoch_schedule(EPOCH_SCHEDULE)
        hashes = self._slot_hashes
        if hashes and hashes[0][0] == self.slot - 2:
            hashes.appendleft((self.slot - 1, self._hash_of(self.slot - 1)))
        else:  # the first slot of this process: build the whole list
            first = max(self.slot - SLOT_HASHES_MAX, 0)
            hashes.clear()
            hashes.extend((s, self._hash_of(s)) for s in range(self.slot - 1, first - 1, -1))
        while len(hashes) > SLOT_HASHES_MAX:
            hashes.pop()
        self.svm.set_slot_hashes(list(hashes))

    def latest_blockhash(self, c: Commitment) -> tuple[str, int]:
        slot = self.commitment_slot(c)
        while slot not in self._slot_hash:  # only after a restart with a short history
            slot += 1
        return self._slot_hash[slot], slot + BLOCKHASH_VALIDITY

    def blockhash_valid(self, blockhash: str) -> bool:
        height = self._hash_height.get(blockhash)
        return height is not None and self.slot <= height + BLOCKHASH_VALIDITY

    # -- account reads -------------------------------------------------------------------

    def get_account(self, key: Pubkey, c: Commitment = Commitment.PROCESSED) -> Account | None:
        acc: Account | None
        vs = self.versions.get(key) if c is not Commitment.PROCESSED else None
        if vs:
            cutoff = self.commitment_slot(c)
            acc = next(a for s, a in reversed(vs) if s <= cutoff)
        else:
            acc = self.svm.get_account(key)
        return acc if acc is not None and acc.lamports > 0 else None  # RPC: 0 lamports = gone

    def program_accounts(self, program: Pubkey, c: Commitment) -> list[tuple[Pubkey, Account]]:
        found = dict(self.svm.get_program_accounts(program))
        if c is not Commitment.PROCESSED:
            for key in self.versions:  # roll recently written accounts back to the cutoff
                acc = self.get_account(key, c)
                if acc is not None and acc.owner == program:
                    found[key] = acc
                else:
                    found.pop(key, None)
        return [(k, a) for k, a in found.items() if a.lamports > 0]

    def decimals_of(self, mint: Pubkey, c: Commitment) -> int | None:
        m = spl.parse_mint(self.get_account(mint, c))
        return None if m is None else m.decimals

    def minimum_balance(self, size: int) -> int:
        return int(self.svm.minimum_balance_for_rent_exemption(size))

    # -- transactions --------------------------------------------------------------------

    def check_transaction(self, tx: VersionedTransaction) -> None:
        """What the RPC checks before anything else: well-formed and correctly signed."""
        try:
            tx.sanitize()
        except Exception as exc:
            raise RpcError(-32602, f"invalid transaction: {exc}") from exc
        if not all(tx.verify_with_results()):
            raise RpcError(-32003, "Transaction signature verification failure")

    def simulate(self, tx: VersionedTransaction, check_blockhash: bool = True) -> Simulation:
        """Signatures are not checked here: callers do it with check_transaction when asked."""
        if check_blockhash and not self.blockhash_valid(str(tx.message.recent_blockhash)):
            return Simulation("BlockhashNotFound", [], 0, None, [], {})
        res = self.svm.simulate_transaction(tx)
        if isinstance(res, SimulatedTransactionInfo):
            meta = res.meta()
            post = dict(res.post_accounts())
            err = None
        else:
            err, meta = meta_parts(res)
            post = {}
        return Simulation(
            err,
            memo_logs(list(meta.logs())),
            meta.compute_units_consumed(),
            return_data(meta),
            inner_instructions(meta),
            post,
        )

    def send(self, tx: VersionedTransaction, skip_preflight: bool = False) -> str:
        self.check_transaction(tx)
        sig = str(tx.signatures[0])
        refused: Simulation | None = None
        if sig in self._recent:  # a cluster de-dups by signature: never execute twice
            if skip_preflight:
                return sig  # accepted by the RPC, then de-duplicated by the leader
            # the validator's preflight refuses it: "This transaction has already been processed"
            refused = Simulation("AlreadyProcessed", [], 0, None, [], {})
        elif not self.blockhash_valid(str(tx.message.recent_blockhash)):
            if skip_preflight:
                return sig  # accepted by the RPC, then dropped by the leader
            refused = Simulation("BlockhashNotFound", [], 0, None, [], {})
        else:
            refused = self._execute(tx, sig, preflight=not skip_preflight)
        if refused is not None:
            msg = f"Transaction simulation failed: {err_text(refused.err)}"
            raise RpcError(-32002, msg, refused.result())
        return sig

    def _execute(self, tx: VersionedTransaction, sig: str, preflight: bool) -> Simulation | None:
        """Run the transaction and record it. With `preflight`, a failing transaction is rolled
        back and returned instead of landing: executing once and undoing on failure costs half
        of a separate simulation on every send."""
        keys, loaded_w, loaded_r = account_keys(tx, self.svm.get_account)
        pre = [self.svm.get_account(k) for k in keys]
        err, meta = meta_parts(self.svm.send_transaction(tx))
        post = [self.svm.get_account(k) for k in keys]
        changed = [i for i in range(len(keys)) if pre[i] != post[i]]
        if err is not None and (preflight or not changed):
            for i in changed:  # a failed tx only ever touches the fee payer (and nonce)
                self.svm.set_account(keys[i], pre[i] or Account(0, b"", Pubkey.default(), False, 0))
            logs = memo_logs(list(meta.logs()))
            sim = Simulation(err, logs, meta.compute_units_consumed(), None, [], {})
            return sim if preflight else None  # not landed: no fee, no status, like a cluster
        for i in changed:
            key = keys[i]
            vs = self.versions.get(key)
            if vs is None:
                vs = self.versions[key] = [(-1, pre[i])]
            vs.append((self.slot, post[i]))
            self._dirty[key] = post[i]
        self._versions_dirty = True
        self._seq += 1
        self._slot_txs[self.slot] = self._slot_txs.get(self.slot, 0) + 1

        def decimals(mint: Pubkey) -> int | None:
            return self.decimals_of(mint, Commitment.PROCESSED)

        rec = {
            "signature": sig,
            "slot": self.slot,
            "seq": self._seq,
            "blockTime": self._block_time[self.slot],
            "tx": base64.b64encode(bytes(tx)).decode(),
            "err": err,
            "fee": meta.fee(),
            "logs": memo_logs(list(meta.logs())),
            "units": meta.compute_units_consumed(),
            "preBalances": [a.lamports if a else 0 for a in pre],
            "postBalances": [a.lamports if a else 0 for a in post],
            "preTokenBalances": token_balances(keys, pre, decimals),
            "postTokenBalances": token_balances(keys, post, decimals),
            "innerInstructions": inner_instructions(meta),
            "returnData": return_data(meta),
            "loadedAddresses": {"writable": loaded_w, "readonly": loaded_r},
            "memo": memo_field(tx, keys),
        }
        self._recent[sig] = (self.slot, err)
        self._pending.append((rec, [str(k) for k in keys]))
        _notify(self.on_landed, rec, [keys[i] for i in changed])
        return None

    def airdrop(self, to: Pubkey, lamports: int) -> str:
        """A real signed transfer from the faucet, so it has a signature, status and history."""
        blockhash = Hash.from_string(self._slot_hash[self.slot])
        ixs = [
            transfer(
                TransferParams(from_pubkey=self.faucet.pubkey(), to_pubkey=to, lamports=lamports)
            )
        ]
        tx = Transaction.new_signed_with_payer(ixs, self.faucet.pubkey(), [self.faucet], blockhash)
        n = 0
        while str(tx.signatures[0]) in self._recent:  # same airdrop twice in one slot
            n += 1
            memo = Instruction(
                MEMO_V3,
                f"airdrop {n}".encode(),
                [AccountMeta(self.faucet.pubkey(), True, False)],
            )
            msg = Message.new_with_blockhash([*ixs, memo], self.faucet.pubkey(), blockhash)
            tx = Transaction([self.faucet], msg, blockhash)
        vtx = VersionedTransaction.from_legacy(tx)
        sig = str(vtx.signatures[0])
        if (refused := self._execute(vtx, sig, preflight=True)) is not None:
            raise RpcError(-32603, f"airdrop failed: {err_text(refused.err)}")
        return sig
