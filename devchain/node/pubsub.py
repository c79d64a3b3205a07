"""PubSub: the validator's websocket subscriptions over a Chain, without the transport
(``devchain/node/pubsub_server.py``).

The hub listens to the chain (``Chain.on_landed``, ``Chain.on_slot``) and notifies as a
validator's ``RpcSubscriptions`` does, per commitment: a transaction's slot is ``processed``
as it lands (the node's processed view includes the open slot), ``confirmed`` when its slot
closes (the tick that opens the next one) and ``finalized`` 31 slots later. At each of these
moments the subscriptions of that commitment hear about what happened in that slot: the
signatures landed in it (a signature subscription then ends), the accounts it changed
(their state at that commitment; a closed account as the validator's default account), the
program accounts it changed that pass the filters, the logs of its transactions, and for
block subscriptions the block itself. Slot and root subscriptions hear every tick.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from devchain.node.ledger import FINALITY_DEPTH, Commitment, RpcError
from devchain.node.rpc.accounts import matches
from devchain.node.rpc.blocks import block_value
from devchain.node.rpc.encoding import encode_account
from devchain.node.svm import Chain

log = logging.getLogger("devchain.node")

MAX_BASE58_BYTES = 128
_CLOSED = Account(0, b"", Pubkey.default(), False, 0)  # what a validator sends for a gone account
Send = Callable[[str], None]


@dataclass
class Subscription:
    id: int
    kind: str  # account, program, signature, logs, block, slot, root
    send: Send
    commitment: Commitment = Commitment.FINALIZED
    key: Any = None  # pubkey (account, program, logs mentions, block mentions) or signature
    cfg: dict[str, Any] = field(default_factory=dict)
    received: bool = False  # signature: enableReceivedNotification

    @property
    def method(self) -> str:
        return f"{self.kind}Notification"


@dataclass
class _Slot:
    """What landed in one slot: its transaction records and the accounts they changed."""

    recs: list[dict[str, Any]] = field(default_factory=list)
    changed: dict[Pubkey, None] = field(default_factory=dict)  # ordered set
    keys: dict[str, set[Pubkey]] = field(default_factory=dict)  # signature → keys it names


class Hub:
    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        self.subs: dict[int, Subscription] = {}
        self._next_id = 0
        self._slots: dict[int, _Slot] = {}
        chain.on_landed.append(self._landed)
        chain.on_slot.append(self._tick)

    def close(self) -> None:
        self.chain.on_landed.remove(self._landed)
        self.chain.on_slot.remove(self._tick)
        self.subs.clear()

    # -- subscribing ---------------------------------------------------------------------

    def subscribe(self, sub: Subscription) -> int:
        sub.id = self._next_id
        self._next_id += 1
        self.subs[sub.id] = sub
        return sub.id

    def unsubscribe(self, kind: str, sub_id: Any, send: Send) -> bool:
        sub = self.subs.get(sub_id) if isinstance(sub_id, int) else None
        if sub is None or sub.kind != kind or sub.send is not send:
            raise RpcError(-32602, "Invalid subscription id.")
        del self.subs[sub_id]
        return True

    def drop(self, send: Send) -> None:
        """A connection went away: its subscriptions with it."""
        for sub_id in [i for i, s in self.subs.items() if s.send is send]:
            del self.subs[sub_id]

    def next_id(self) -> int:
        return self._next_id

    # -- chain events --------------------------------------------------------------------

    def _landed(self, rec: dict[str, Any], changed: list[Pubkey]) -> None:
        slot = self._slots.setdefault(rec["slot"], _Slot())
        slot.recs.append(rec)
        slot.changed.update(dict.fromkeys(changed))
        for sub in list(self.subs.values()):
            if sub.kind == "signature" and sub.received and sub.key == rec["signature"]:
                self._notify(sub, _context(rec["slot"], "receivedSignature"))
        self._publish(rec["slot"], Commitment.PROCESSED, [rec], changed)

    def _tick(self, slot: int) -> None:
        """Slot ``slot`` opened: ``slot - 1`` is confirmed, ``slot - 31`` a new root."""
        root = slot - FINALITY_DEPTH
        for sub in list(self.subs.values()):
            if sub.kind == "slot":
                self._notify(sub, {"parent": slot - 1, "root": max(root, 0), "slot": slot})
            elif sub.kind == "root" and root >= 0:
                self._notify(sub, root)
        self._publish_slot(slot - 1, Commitment.CONFIRMED)
        if root >= 0:
            self._publish_slot(root, Commitment.FINALIZED)
            for old in [s for s in self._slots if s <= root]:
                del self._slots[old]

    def _publish_slot(self, slot: int, c: Commitment) -> None:
        got = self._slots.get(slot) or _Slot()
        self._publish(slot, c, got.recs, list(got.changed))

    def _publish(
        self, slot: int, c: Commitment, recs: list[dict[str, Any]], changed: list[Pubkey]
    ) -> None:
        """Tell the subscriptions of commitment ``c`` what happened in ``slot``."""
        subs = [s for s in self.subs.values() if s.commitment is c]
        if not subs:
            return
        sigs = {r["signature"]: r for r in recs}
        changed_set = set(changed)
        for sub in subs:
            if sub.id not in self.subs:
                continue
            try:
                if sub.kind == "signature" and (rec := sigs.get(sub.key)) is not None:
                    self._notify(sub, _context(slot, {"err": rec["err"]}))
                    del self.subs[sub.id]  # a signature subscription ends with its answer
                elif sub.kind == "account" and sub.key in changed_set:
                    acc = self.chain.get_account(sub.key, c) or _CLOSED
                    self._notify(sub, _context(slot, self._account(acc, sub, c)))
                elif sub.kind == "program":
                    self._program(sub, slot, c, changed)
                elif sub.kind == "logs":
                    for rec in recs:
                        if sub.key is None or sub.key in self._keys(rec):
                            value = {"signature": rec["signature"], "err": rec["err"]}
                            value["logs"] = rec["logs"]
                            self._notify(sub, _context(slot, value))
                elif sub.kind == "block" and c is not Commitment.PROCESSED:
                    self._block(sub, slot, recs)
            except Exception:
                log.warning("pubsub: notifying subscription %d failed", sub.id, exc_info=True)

    def _program(self, sub: Subscription, slot: int, c: Commitment, changed: list[Pubkey]) -> None:
        filters = sub.cfg.get("filters") or []
        for key in changed:
            acc = self.chain.get_account(key, c)
            if acc is None or acc.owner != sub.key or not matches(acc, filters):
                continue
            value = {"pubkey": str(key), "account": self._account(acc, sub, c)}
            self._notify(sub, _context(slot, value))

    def _account(self, acc: Account, sub: Subscription, c: Commitment) -> Any:
        """An account as notifications carry it: the validator ignores dataSlice here, and
        writes data over 128 bytes in base58 as an error string instead of refusing."""
        encoding = sub.cfg.get("encoding") or "binary"
        if encoding in ("binary", "base58") and len(acc.data) > MAX_BASE58_BYTES:
            out = encode_account(self.chain, acc, {"encoding": "base64"}, c)
            text = "error: data too large for bs58 encoding"
            out["data"] = text if encoding == "binary" else [text, "base58"]
            return out
        return encode_account(self.chain, acc, {"encoding": encoding}, c)

    def _block(self, sub: Subscription, slot: int, recs: list[dict[str, Any]]) -> None:
        if sub.key is not None:
            recs = [r for r in recs if sub.key in self._keys(r)]
            if not recs:
                return  # a block that does not mention the key is not sent
        chain = self.chain
        cfg = {"encoding": "base64", **sub.cfg}
        when = recs[0]["blockTime"] if recs else chain.block_time(slot)
        prev = chain.blockhash_of(max(slot - 1, 0))
        try:
            block = block_value(
                slot,
                chain.blockhash_of(slot),
                prev,
                when,
                recs,
                cfg,
                rewards=bool(cfg.get("showRewards")),
            )
            value: dict[str, Any] = {"slot": slot, "block": block, "err": None}
        except RpcError as exc:  # a v0 transaction without maxSupportedTransactionVersion
            if exc.code != -32015:
                raise
            value = {"slot": slot, "block": None, "err": {"UnsupportedTransactionVersion": 0}}
        self._notify(sub, _context(slot, value))

    def _keys(self, rec: dict[str, Any]) -> set[Pubkey]:
        """The keys a transaction names, decoded once, when a subscription first asks."""
        got = self._slots.get(rec["slot"])
        if got is None:
            return _mentioned(rec)
        if (keys := got.keys.get(rec["signature"])) is None:
            keys = got.keys[rec["signature"]] = _mentioned(rec)
        return keys

    def _notify(self, sub: Subscription, result: Any) -> None:
        params = {"result": result, "subscription": sub.id}
        note = {"jsonrpc": "2.0", "method": sub.method, "params": params}
        sub.send(json.dumps(note, separators=(",", ":")))


def _context(slot: int, value: Any) -> dict[str, Any]:
    return {"context": {"slot": slot}, "value": value}  # notifications carry no apiVersion


def _mentioned(rec: dict[str, Any]) -> set[Pubkey]:
    """Every account a recorded transaction names: its static keys and lookup-table keys."""
    tx = VersionedTransaction.from_bytes(base64.b64decode(rec["tx"]))
    loaded = rec["loadedAddresses"]
    keys = set(tx.message.account_keys)
    return keys | {Pubkey.from_string(k) for k in loaded["writable"] + loaded["readonly"]}
