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
from dataclasses import dataclass
from enum import Enum
from typing import Any

from solders.account import Account
from solders.clock import Clock
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.litesvm import LiteSVM
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import Transaction, VersionedTransaction
from solders.transaction_metadata import (
    FailedTransactionMetadata,
    SimulatedTransactionInfo,
    TransactionMetadata,
)

from devchain.node import spl
from devchain.node.codec import b58encode, err_json, err_text
from devchain.node.persist import Store, Versions

log = logging.getLogger("devchain.node")

FINALITY_DEPTH = 31  # a slot is finalized 31 slots later (Surfpool's rule)
BLOCKHASH_VALIDITY = 150  # blocks a blockhash stays usable, as on mainnet
SLOT_HASHES_MAX = 512  # entries of the SlotHashes sysvar, as on a validator
STATUS_CACHE_SLOTS = 300  # getSignatureStatuses without history search looks back this far
MEMO_PROGRAMS = {
    Pubkey.from_string("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
    Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo"),
}
_LOOKUP_TABLE_META = 56  # address lookup table header size, addresses follow


class Commitment(Enum):
    PROCESSED = "processed"
    CONFIRMED = "confirmed"
    FINALIZED = "finalized"

    @classmethod
    def parse(cls, value: Any, default: Commitment | None = None) -> Commitment:
        if value is None:
            return default or cls.FINALIZED  # the real RPC defaults to finalized
        legacy = {"recent": "processed", "single": "confirmed", "singleGossip": "confirmed"}
        legacy |= {"max": "finalized", "root": "finalized"}
        return cls(legacy.get(value, value))  # ValueError → invalid params


class RpcError(Exception):
    """A JSON-RPC error to hand back to the client as-is."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass
class Simulation:
    err: Any
    logs: list[str]
    units: int
    return_data: Any
    inner: list[dict[str, Any]]
    post_accounts: dict[Pubkey, Account]

    def result(self) -> dict[str, Any]:
        return {
            "err": self.err,
            "logs": self.logs,
            "accounts": None,
            "unitsConsumed": self.units,
            "returnData": self.return_data,
            "innerInstructions": None,
            "replacementBlockhash": None,
        }


def _now() -> int:
    return int(time.time())


def _notify(listeners: list[Callable[..., None]], *args: Any) -> None:
    for listener in listeners:
        try:
            listener(*args)
        except Exception:
            log.warning("chain listener %r failed", listener, exc_info=True)


def _meta_parts(res: Any) -> tuple[Any, TransactionMetadata]:
    if isinstance(res, FailedTransactionMetadata):
        return err_json(res.err()), res.meta()
    return None, res


def _return_data(meta: TransactionMetadata) -> Any:
    rd = meta.return_data()
    if rd is None or not rd.data:
        return None
    return {"programId": str(rd.program_id), "data": [base64.b64encode(rd.data).decode(), "base64"]}


def _inner(meta: TransactionMetadata) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, items in enumerate(meta.inner_instructions()):
        if items:
            ixs = [
                {
                    "programIdIndex": ix.program_id_index,
                    "accounts": list(ix.accounts),
                    "data": b58encode(bytes(ix.data)),
                    "stackHeight": it.stack_height(),
                }
                for it in items
                for ix in [it.instruction()]
            ]
            out.append({"index": index, "instructions": ixs})
    return out


class Chain:
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
        self._block_time: dict[int, int] = {}
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
        self._set_sysvars()
        self._prune_versions()
        if self.slot % 50 == 0:
            self._recent = {s: v for s, v in self._recent.items() if v[0] > old}
        _notify(self.on_slot, self.slot)

    def blockhash_of(self, slot: int) -> str:
        """Blockhashes derive from a per-chain seed, so any past block's hash is recomputable
        and a restarted node never reissues an old one."""
        return str(self._hash_of(slot))

    def _hash_of(self, slot: int) -> Hash:
        return Hash(hashlib.sha256(self._seed + slot.to_bytes(8, "little")).digest())

    def block(self, slot: int, c: Commitment) -> tuple[str, str, int | None, list[dict[str, Any]]]:
        """(blockhash, previous blockhash, block time, txs) of a closed slot."""
        if slot > self.commitment_slot(c) or slot >= self.slot or slot < 0:
            raise RpcError(-32004, f"Block not available for slot {slot}")
        txs = self.store.txs_in_slot(slot)
        when = txs[0]["blockTime"] if txs else self._block_time.get(slot)
        prev = self.blockhash_of(max(slot - 1, 0))
        return self.blockhash_of(slot), prev, when, txs

    def _set_sysvars(self) -> None:
        """Clock and SlotHashes as a validator's bank has them at the open slot: SlotHashes lists
        the newest 512 closed slots, newest first (an address lookup table is created from one
        of them, and its deactivation is timed by them)."""
        self.svm.set_clock(Clock(self.slot, 0, 0, 0, _now()))
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

    def commitment_slot(self, c: Commitment) -> int:
        if c is Commitment.PROCESSED:
            return self.slot
        if c is Commitment.CONFIRMED:
            return max(self.slot - 1, 0)
        return max(self.slot - FINALITY_DEPTH, 0)

    def block_height(self, c: Commitment) -> int:
        return self.commitment_slot(c)  # one block per slot

    def latest_blockhash(self, c: Commitment) -> tuple[str, int]:
        slot = self.commitment_slot(c)
        while slot not in self._slot_hash:  # only after a restart with a short history
            slot += 1
        return self._slot_hash[slot], slot + BLOCKHASH_VALIDITY

    def blockhash_valid(self, blockhash: str) -> bool:
        height = self._hash_height.get(blockhash)
        return height is not None and self.slot <= height + BLOCKHASH_VALIDITY

    def block_time(self, slot: int) -> int:
        return self._block_time.get(slot, _now())

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

    def _account_keys(self, tx: VersionedTransaction) -> tuple[list[Pubkey], list[str], list[str]]:
        """Static keys plus keys loaded from address lookup tables (writable, readonly)."""
        msg = tx.message
        keys = list(msg.account_keys)
        if not isinstance(msg, MessageV0):
            return keys, [], []
        writable: list[Pubkey] = []
        readonly: list[Pubkey] = []
        for lookup in msg.address_table_lookups:
            table = self.svm.get_account(lookup.account_key)
            data = bytes(table.data) if table is not None else b""
            addrs = [
                Pubkey.from_bytes(data[i : i + 32])
                for i in range(_LOOKUP_TABLE_META, len(data) - 31, 32)
            ]
            writable += [addrs[i] for i in lookup.writable_indexes if i < len(addrs)]
            readonly += [addrs[i] for i in lookup.readonly_indexes if i < len(addrs)]
        return keys + writable + readonly, [str(k) for k in writable], [str(k) for k in readonly]

    def _token_balances(
        self, keys: list[Pubkey], accounts: list[Account | None]
    ) -> list[dict[str, Any]]:
        out = []
        for i, acc in enumerate(accounts):
            tok = spl.parse_token_account(acc)
            if tok is None or acc is None:
                continue
            decimals = self.decimals_of(tok.mint, Commitment.PROCESSED)
            if decimals is None:
                continue
            out.append(
                {
                    "accountIndex": i,
                    "mint": str(tok.mint),
                    "owner": str(tok.owner),
                    "programId": str(acc.owner),
                    "uiTokenAmount": spl.ui_token_amount(tok.amount, decimals),
                }
            )
        return out

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
            err, meta = _meta_parts(res)
            post = {}
        return Simulation(
            err,
            list(meta.logs()),
            meta.compute_units_consumed(),
            _return_data(meta),
            _inner(meta),
            post,
        )

    def send(self, tx: VersionedTransaction, skip_preflight: bool = False) -> str:
        self.check_transaction(tx)
        sig = str(tx.signatures[0])
        if sig in self._recent:  # a cluster de-dups by signature: never execute twice
            return sig
        if not self.blockhash_valid(str(tx.message.recent_blockhash)):
            if skip_preflight:
                return sig  # accepted by the RPC, then dropped by the leader
            refused: Simulation | None = Simulation("BlockhashNotFound", [], 0, None, [], {})
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
        keys, loaded_w, loaded_r = self._account_keys(tx)
        pre = [self.svm.get_account(k) for k in keys]
        err, meta = _meta_parts(self.svm.send_transaction(tx))
        post = [self.svm.get_account(k) for k in keys]
        changed = [i for i in range(len(keys)) if pre[i] != post[i]]
        if err is not None and (preflight or not changed):
            for i in changed:  # a failed tx only ever touches the fee payer (and nonce)
                self.svm.set_account(keys[i], pre[i] or Account(0, b"", Pubkey.default(), False, 0))
            sim = Simulation(err, list(meta.logs()), meta.compute_units_consumed(), None, [], {})
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
        self._block_time.setdefault(self.slot, _now())
        memos = [
            f"[{len(ix.data)}] {bytes(ix.data).decode(errors='replace')}"
            for ix in tx.message.instructions
            if keys[ix.program_id_index] in MEMO_PROGRAMS
        ]
        rec = {
            "signature": sig,
            "slot": self.slot,
            "seq": self._seq,
            "blockTime": self._block_time[self.slot],
            "tx": base64.b64encode(bytes(tx)).decode(),
            "err": err,
            "fee": meta.fee(),
            "logs": list(meta.logs()),
            "units": meta.compute_units_consumed(),
            "preBalances": [a.lamports if a else 0 for a in pre],
            "postBalances": [a.lamports if a else 0 for a in post],
            "preTokenBalances": self._token_balances(keys, pre),
            "postTokenBalances": self._token_balances(keys, post),
            "innerInstructions": _inner(meta),
            "returnData": _return_data(meta),
            "loadedAddresses": {"writable": loaded_w, "readonly": loaded_r},
            "memo": "; ".join(memos) if memos else None,
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
                next(iter(MEMO_PROGRAMS)),
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

    # -- history -------------------------------------------------------------------------

    def confirmation(self, slot: int) -> tuple[int | None, str]:
        depth = self.slot - slot
        if depth >= FINALITY_DEPTH:
            return None, "finalized"
        return depth, "confirmed" if depth >= 1 else "processed"

    def visible(self, slot: int, c: Commitment) -> bool:
        return slot <= self.commitment_slot(c)

    def signature_status(self, sig: str, search_history: bool) -> dict[str, Any] | None:
        hit = self._recent.get(sig)
        if hit is None:
            rec = self.store.get_tx(sig) if search_history else None
            if rec is None:
                return None
            hit = (rec["slot"], rec["err"])
        slot, err = hit
        confirmations, status = self.confirmation(slot)
        return {
            "slot": slot,
            "confirmations": confirmations,
            "err": err,
            "status": {"Ok": None} if err is None else {"Err": err},
            "confirmationStatus": status,
        }

    def get_tx(self, sig: str, c: Commitment) -> dict[str, Any] | None:
        rec = self.store.get_tx(
            sig
        )  # txs of closed slots are flushed; ≥confirmed never sees others
        if rec is None or not self.visible(rec["slot"], c):
            return None
        return rec

    def tx_seq(self, sig: str) -> int | None:
        return self.store.tx_seq(sig)

    def signatures_for_address(
        self, address: str, before: int | None, until: int | None, limit: int, c: Commitment
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        cursor = before
        cutoff = self.commitment_slot(c)
        while len(out) < limit:
            batch = self.store.signatures_for_address(address, cursor, until, limit)
            if not batch:
                break
            out += [r for r in batch if r["slot"] <= cutoff]
            cursor = batch[-1]["seq"]
        return out[:limit]

    # -- persistence ---------------------------------------------------------------------

    def _prune_versions(self) -> None:
        fin = self.commitment_slot(Commitment.FINALIZED)
        for key in list(self.versions):
            vs = self.versions[key]
            i = max(j for j, (s, _) in enumerate(vs) if s <= fin)
            if i == len(vs) - 1:
                del self.versions[key]  # the current state is final: plain LiteSVM read
                self._versions_dirty = True
            elif i > 0:
                del vs[:i]
                self._versions_dirty = True

    def flush(self, force: bool = False) -> None:
        if not (force or self._dirty or self._pending or self._versions_dirty):
            return
        versions = self.versions if self._versions_dirty else None
        self.store.commit(self.meta(), self._dirty, self._pending, versions)
        self._dirty = {}
        self._pending = []
        self._versions_dirty = False

    def close(self) -> None:
        self.flush(force=True)
        self.store.close()
