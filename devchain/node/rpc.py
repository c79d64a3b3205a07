"""Solana JSON-RPC 2.0 methods over a Chain: parameter parsing, result shapes and encodings,
exactly as solana-py / solders parse them. Transport lives in server.py.

What it answers and what it does not support (jsonParsed beyond SPL Token accounts and mints,
minContextSlot, sortResults/changedSinceSlot, subscriptions) is listed in docs/views.md,
"The local chain: fixtures and the reads the node answers"."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from devchain.node import spl
from devchain.node.codec import b58decode, b58encode
from devchain.node.svm import Chain, Commitment, RpcError

log = logging.getLogger("devchain.node")

API_VERSION = "2.2.0"
MAX_MULTIPLE_ACCOUNTS = 100
MAX_SIGNATURE_STATUSES = 256
MAX_SIGNATURES_FOR_ADDRESS = 1000

Params = list[Any]
Handler = Callable[["Rpc", Params], Any]
METHODS: dict[str, Handler] = {}


def method(name: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        METHODS[name] = fn
        return fn

    return register


def invalid(message: str) -> RpcError:
    return RpcError(-32602, message)


def _arg(params: Params, i: int) -> Any:
    if i >= len(params):
        raise invalid(f"missing parameter #{i}")
    return params[i]


def _config(params: Params, i: int) -> dict[str, Any]:
    cfg = params[i] if i < len(params) else None
    if cfg is None:
        return {}
    if not isinstance(cfg, dict):
        raise invalid(f"parameter #{i} must be a config object")
    return cfg


def _pubkey(value: Any) -> Pubkey:
    if not isinstance(value, str):
        raise invalid("Invalid param: expected a base58 public key string")
    try:
        return Pubkey.from_string(value)
    except ValueError as exc:
        raise invalid(f"Invalid param: {exc}") from exc


def _commitment(cfg: dict[str, Any]) -> Commitment:
    try:
        return Commitment.parse(cfg.get("commitment"))
    except ValueError as exc:
        raise invalid(f"Invalid commitment: {cfg.get('commitment')!r}") from exc


PACKET_DATA_SIZE = 1232


def _decode_tx(value: Any, encoding: str) -> VersionedTransaction:
    if not isinstance(value, str):
        raise invalid("transaction must be an encoded string")
    try:
        if encoding == "base64":
            raw = base64.b64decode(value, validate=True)
        elif encoding == "base58":
            raw = b58decode(value)
        else:
            raise invalid(f"unsupported encoding: {encoding}")
        if len(raw) > PACKET_DATA_SIZE:
            # As a real validator answers: a transaction must fit one packet.
            raise invalid(
                f"{encoding} encoded solana_sdk::transaction::versioned::VersionedTransaction too "
                f"large: {len(raw)} bytes (max: {PACKET_DATA_SIZE} bytes)"
            )
        return VersionedTransaction.from_bytes(raw)
    except RpcError:
        raise
    except Exception as exc:
        raise invalid(f"failed to deserialize transaction: {exc}") from exc


class Rpc:
    def __init__(self, chain: Chain) -> None:
        self.chain = chain

    def call(self, name: str, params: Params) -> Any:
        handler = METHODS.get(name)
        if handler is None:
            raise RpcError(-32601, "Method not found")
        return handler(self, params)

    def ctx(self, c: Commitment, value: Any) -> dict[str, Any]:
        slot = self.chain.commitment_slot(c)
        return {"context": {"slot": slot, "apiVersion": API_VERSION}, "value": value}

    # -- account encoding ------------------------------------------------------------------

    def encode_account(self, acc: Account | None, cfg: dict[str, Any], c: Commitment) -> Any:
        if acc is None:
            return None
        data = bytes(acc.data)
        encoding = cfg.get("encoding") or "binary"
        out: dict[str, Any] = {
            "lamports": acc.lamports,
            "owner": str(acc.owner),
            "executable": acc.executable,
            "rentEpoch": acc.rent_epoch,
            "space": len(data),
        }
        if encoding == "jsonParsed":
            parsed = spl.json_parsed(acc, self._decimals(acc, c))
            if parsed is not None:
                out["data"] = parsed
                return out
            encoding = "base64"  # what the RPC does when it cannot parse
        if (ds := cfg.get("dataSlice")) is not None:
            off, length = int(ds["offset"]), int(ds["length"])
            data = data[off : off + length]
        if encoding == "base64":
            out["data"] = [base64.b64encode(data).decode(), "base64"]
        elif encoding == "base58":
            out["data"] = [b58encode(data), "base58"]
        elif encoding == "binary":
            out["data"] = b58encode(data)
        else:
            raise invalid(f"unsupported encoding: {encoding}")
        return out

    def _decimals(self, acc: Account, c: Commitment) -> dict[Pubkey, int]:
        tok = spl.parse_token_account(acc)
        if tok is None:
            return {}
        d = self.chain.decimals_of(tok.mint, c)
        return {} if d is None else {tok.mint: d}

    def keyed(self, items: list[tuple[Pubkey, Account]], cfg: dict[str, Any], c: Commitment) -> Any:
        return [{"pubkey": str(k), "account": self.encode_account(a, cfg, c)} for k, a in items]

    # -- transaction encoding --------------------------------------------------------------

    def encode_tx(
        self, rec: dict[str, Any], cfg: dict[str, Any], details: str = "full"
    ) -> dict[str, Any]:
        """A recorded transaction as getTransaction (``details`` "full") or getBlock
        ("full" or "accounts") answer it. With ``jsonParsed`` and in "accounts" the keys are
        objects listing the lookup tables' addresses too (``source``), so ``loadedAddresses``
        is left out of the meta, as the RPC does."""
        raw = base64.b64decode(rec["tx"])
        tx = VersionedTransaction.from_bytes(raw)
        legacy = not isinstance(tx.version(), int)
        max_version = cfg.get("maxSupportedTransactionVersion")
        if not legacy and max_version is None:
            raise RpcError(
                -32015,
                "Transaction version (0) is not supported by the requesting client. Please try "
                "the request again with the following configuration parameter: "
                '"maxSupportedTransactionVersion": 0',
            )
        encoding = cfg.get("encoding") or "json"
        parsed = encoding == "jsonParsed" or details == "accounts"
        keys = _parsed_keys(tx, rec["loadedAddresses"]) if parsed else []
        if details == "accounts":
            encoded: Any = {"signatures": [str(s) for s in tx.signatures], "accountKeys": keys}
        elif encoding == "base64":
            encoded = [rec["tx"], "base64"]
        elif encoding == "base58":
            encoded = [b58encode(raw), "base58"]
        elif encoding in ("json", "jsonParsed"):
            encoded = self._ui_tx(tx, legacy, keys if parsed else None)
        else:
            raise invalid(f"unsupported encoding: {encoding}")
        err = rec["err"]
        meta: dict[str, Any] = {
            "err": err,
            "status": {"Ok": None} if err is None else {"Err": err},
            "fee": rec["fee"],
            "preBalances": rec["preBalances"],
            "postBalances": rec["postBalances"],
        }
        if details == "full":
            inner = rec["innerInstructions"]
            if parsed:
                names = [k["pubkey"] for k in keys]
                inner = [
                    {
                        "index": g["index"],
                        "instructions": [_partial(ix, names) for ix in g["instructions"]],
                    }
                    for g in inner
                ]
            meta["innerInstructions"] = inner
            meta["logMessages"] = rec["logs"]
        meta["preTokenBalances"] = rec["preTokenBalances"]
        meta["postTokenBalances"] = rec["postTokenBalances"]
        meta["rewards"] = []
        if details == "full":
            if not parsed:
                meta["loadedAddresses"] = rec["loadedAddresses"]
            meta["computeUnitsConsumed"] = rec["units"]
            if rec.get("returnData") is not None:
                meta["returnData"] = rec["returnData"]
        out = {"slot": rec["slot"], "transaction": encoded, "meta": meta}
        out["blockTime"] = rec["blockTime"]
        if max_version is not None:
            out["version"] = "legacy" if legacy else tx.version()
        return out

    @staticmethod
    def _ui_tx(
        tx: VersionedTransaction, legacy: bool, keys: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        """The message as ``json`` (indexes) or, given the parsed ``keys``, as ``jsonParsed``
        (key objects; each instruction partially decoded: program id and account addresses)."""
        msg = tx.message
        h = msg.header
        message: dict[str, Any]
        if keys is None:
            message = {
                "accountKeys": [str(k) for k in msg.account_keys],
                "header": {
                    "numRequiredSignatures": h.num_required_signatures,
                    "numReadonlySignedAccounts": h.num_readonly_signed_accounts,
                    "numReadonlyUnsignedAccounts": h.num_readonly_unsigned_accounts,
                },
                "recentBlockhash": str(msg.recent_blockhash),
                "instructions": [
                    {
                        "programIdIndex": ix.program_id_index,
                        "accounts": list(ix.accounts),
                        "data": b58encode(bytes(ix.data)),
                        "stackHeight": None,
                    }
                    for ix in msg.instructions
                ],
            }
        else:
            names = [k["pubkey"] for k in keys]
            message = {
                "accountKeys": keys,
                "recentBlockhash": str(msg.recent_blockhash),
                "instructions": [
                    _partial(
                        {
                            "programIdIndex": ix.program_id_index,
                            "accounts": list(ix.accounts),
                            "data": b58encode(bytes(ix.data)),
                            "stackHeight": None,
                        },
                        names,
                    )
                    for ix in msg.instructions
                ],
            }
        if not legacy:
            message["addressTableLookups"] = [
                {
                    "accountKey": str(lk.account_key),
                    "writableIndexes": list(lk.writable_indexes),
                    "readonlyIndexes": list(lk.readonly_indexes),
                }
                for lk in msg.address_table_lookups  # type: ignore[union-attr]
            ]
        return {"signatures": [str(s) for s in tx.signatures], "message": message}


def _parsed_keys(tx: VersionedTransaction, loaded: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Every account key as jsonParsed lists it: static keys (signer and writable from the
    header), then the lookup tables' writable and readonly addresses (``source``)."""
    msg = tx.message
    h = msg.header
    static = [str(k) for k in msg.account_keys]
    signed, n = h.num_required_signatures, len(static)
    out = [
        {
            "pubkey": key,
            "writable": (
                i < signed - h.num_readonly_signed_accounts
                if i < signed
                else i < n - h.num_readonly_unsigned_accounts
            ),
            "signer": i < signed,
            "source": "transaction",
        }
        for i, key in enumerate(static)
    ]
    for key in loaded.get("writable") or []:
        out.append({"pubkey": key, "writable": True, "signer": False, "source": "lookupTable"})
    for key in loaded.get("readonly") or []:
        out.append({"pubkey": key, "writable": False, "signer": False, "source": "lookupTable"})
    return out


def _partial(ix: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """An instruction in jsonParsed's partially decoded form (what the RPC answers for a
    program it has no parser for; this node parses none)."""
    return {
        "programId": names[ix["programIdIndex"]],
        "accounts": [names[i] for i in ix["accounts"]],
        "data": ix["data"],
        "stackHeight": ix.get("stackHeight"),
    }


# -- cluster ---------------------------------------------------------------------------------


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


@method("getSlot")
def get_slot(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.commitment_slot(_commitment(_config(params, 0)))


@method("getBlockHeight")
def get_block_height(rpc: Rpc, params: Params) -> Any:
    return rpc.chain.block_height(_commitment(_config(params, 0)))


@method("getEpochInfo")
def get_epoch_info(rpc: Rpc, params: Params) -> Any:
    slot = rpc.chain.commitment_slot(_commitment(_config(params, 0)))
    return {
        "absoluteSlot": slot,
        "blockHeight": slot,
        "epoch": 0,
        "slotIndex": slot,
        "slotsInEpoch": 432000,
        "transactionCount": None,
    }


@method("getLatestBlockhash")
def get_latest_blockhash(rpc: Rpc, params: Params) -> Any:
    c = _commitment(_config(params, 0))
    blockhash, last_valid = rpc.chain.latest_blockhash(c)
    return rpc.ctx(c, {"blockhash": blockhash, "lastValidBlockHeight": last_valid})


@method("isBlockhashValid")
def is_blockhash_valid(rpc: Rpc, params: Params) -> Any:
    blockhash = _arg(params, 0)
    if not isinstance(blockhash, str):
        raise invalid("blockhash must be a string")
    c = _commitment(_config(params, 1))
    return rpc.ctx(c, rpc.chain.blockhash_valid(blockhash))


@method("getMinimumBalanceForRentExemption")
def get_minimum_balance(rpc: Rpc, params: Params) -> Any:
    size = _arg(params, 0)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise invalid("data length must be a non-negative integer")
    return rpc.chain.minimum_balance(size)


@method("getFeeForMessage")
def get_fee_for_message(rpc: Rpc, params: Params) -> Any:
    from solders.message import from_bytes_versioned

    c = _commitment(_config(params, 1))
    try:
        msg = from_bytes_versioned(base64.b64decode(_arg(params, 0)))
    except Exception as exc:
        raise invalid(f"invalid message: {exc}") from exc
    return rpc.ctx(c, 5000 * msg.header.num_required_signatures)


# -- accounts --------------------------------------------------------------------------------


@method("getBalance")
def get_balance(rpc: Rpc, params: Params) -> Any:
    key = _pubkey(_arg(params, 0))
    c = _commitment(_config(params, 1))
    acc = rpc.chain.get_account(key, c)
    return rpc.ctx(c, 0 if acc is None else acc.lamports)


@method("getAccountInfo")
def get_account_info(rpc: Rpc, params: Params) -> Any:
    key = _pubkey(_arg(params, 0))
    cfg = _config(params, 1)
    c = _commitment(cfg)
    return rpc.ctx(c, rpc.encode_account(rpc.chain.get_account(key, c), cfg, c))


@method("getMultipleAccounts")
def get_multiple_accounts(rpc: Rpc, params: Params) -> Any:
    keys = _arg(params, 0)
    if not isinstance(keys, list) or len(keys) > MAX_MULTIPLE_ACCOUNTS:
        raise invalid(f"expected a list of at most {MAX_MULTIPLE_ACCOUNTS} public keys")
    cfg = _config(params, 1)
    c = _commitment(cfg)
    accounts = [rpc.chain.get_account(_pubkey(k), c) for k in keys]
    return rpc.ctx(c, [rpc.encode_account(a, cfg, c) for a in accounts])


def _match(acc: Account, filters: list[Any]) -> bool:
    data = bytes(acc.data)
    for f in filters:
        if not isinstance(f, dict):
            raise invalid("invalid filter")
        if "dataSize" in f:
            if len(data) != int(f["dataSize"]):
                return False
        elif "memcmp" in f:
            mc = f["memcmp"]
            off = int(mc["offset"])
            enc = mc.get("encoding", "base58")
            want = base64.b64decode(mc["bytes"]) if enc == "base64" else b58decode(mc["bytes"])
            if data[off : off + len(want)] != want:
                return False
        elif "tokenAccountState" in f:
            if spl.parse_token_account(acc) is None:
                return False
        else:
            raise invalid(f"unsupported filter: {f}")
    return True


@method("getProgramAccounts")
def get_program_accounts(rpc: Rpc, params: Params) -> Any:
    program = _pubkey(_arg(params, 0))
    cfg = _config(params, 1)
    c = _commitment(cfg)
    filters = cfg.get("filters") or []
    if not isinstance(filters, list):
        raise invalid("filters must be a list")
    items = [(k, a) for k, a in rpc.chain.program_accounts(program, c) if _match(a, filters)]
    value = rpc.keyed(items, cfg, c)
    return rpc.ctx(c, value) if cfg.get("withContext") else value


def _token_account(rpc: Rpc, params: Params) -> tuple[Commitment, spl.TokenAccount]:
    key = _pubkey(_arg(params, 0))
    c = _commitment(_config(params, 1))
    tok = spl.parse_token_account(rpc.chain.get_account(key, c))
    if tok is None:
        raise invalid("Invalid param: not a Token account")
    return c, tok


@method("getTokenAccountBalance")
def get_token_account_balance(rpc: Rpc, params: Params) -> Any:
    c, tok = _token_account(rpc, params)
    decimals = rpc.chain.decimals_of(tok.mint, c)
    if decimals is None:
        raise invalid("Invalid param: could not find mint")
    return rpc.ctx(c, spl.ui_token_amount(tok.amount, decimals))


@method("getTokenSupply")
def get_token_supply(rpc: Rpc, params: Params) -> Any:
    key = _pubkey(_arg(params, 0))
    c = _commitment(_config(params, 1))
    mint = spl.parse_mint(rpc.chain.get_account(key, c))
    if mint is None:
        raise invalid("Invalid param: not a Token mint")
    return rpc.ctx(c, spl.ui_token_amount(mint.supply, mint.decimals))


MAX_LARGEST_ACCOUNTS = 20


@method("getTokenLargestAccounts")
def get_token_largest_accounts(rpc: Rpc, params: Params) -> Any:
    """The 20 largest token accounts of a mint, amount descending (ties: address order)."""
    key = _pubkey(_arg(params, 0))
    c = _commitment(_config(params, 1))
    mint_acc = rpc.chain.get_account(key, c)
    mint = spl.parse_mint(mint_acc)
    if mint is None or mint_acc is None:
        raise invalid("Invalid param: not a Token mint")
    holders = []
    for k, a in rpc.chain.program_accounts(mint_acc.owner, c):
        tok = spl.parse_token_account(a)
        if tok is not None and tok.mint == key:
            holders.append((tok.amount, str(k)))
    holders.sort(key=lambda h: (-h[0], h[1]))
    value = [
        {"address": addr, **spl.ui_token_amount(amount, mint.decimals)}
        for amount, addr in holders[:MAX_LARGEST_ACCOUNTS]
    ]
    return rpc.ctx(c, value)


def _tokens_by(rpc: Rpc, params: Params, field: str) -> Any:
    key = _pubkey(_arg(params, 0))
    want = _arg(params, 1)
    if not isinstance(want, dict) or len(want) != 1 or not ({"mint", "programId"} & set(want)):
        raise invalid("Invalid param: expected {mint} or {programId}")
    cfg = _config(params, 2)
    c = _commitment(cfg)
    mint = _pubkey(want["mint"]) if "mint" in want else None
    if mint is not None:
        owner = rpc.chain.get_account(mint, c)
        programs = [owner.owner] if owner is not None and owner.owner in spl.TOKEN_PROGRAMS else []
        if not programs:
            raise invalid("Invalid param: could not find mint")
    else:
        program = _pubkey(want["programId"])
        if program not in spl.TOKEN_PROGRAMS:
            raise invalid("Invalid param: unrecognized Token program id")
        programs = [program]
    items = []
    for program in programs:
        for k, a in rpc.chain.program_accounts(program, c):
            tok = spl.parse_token_account(a)
            if tok is None or getattr(tok, field) != key or (mint and tok.mint != mint):
                continue
            items.append((k, a))
    return rpc.ctx(c, rpc.keyed(items, cfg, c))


@method("getTokenAccountsByOwner")
def get_token_accounts_by_owner(rpc: Rpc, params: Params) -> Any:
    return _tokens_by(rpc, params, "owner")


@method("getTokenAccountsByDelegate")
def get_token_accounts_by_delegate(rpc: Rpc, params: Params) -> Any:
    return _tokens_by(rpc, params, "delegate")


# -- transactions ----------------------------------------------------------------------------


@method("sendTransaction")
def send_transaction(rpc: Rpc, params: Params) -> Any:
    cfg = _config(params, 1)
    tx = _decode_tx(_arg(params, 0), cfg.get("encoding") or "base58")
    return rpc.chain.send(tx, skip_preflight=bool(cfg.get("skipPreflight", False)))


@method("simulateTransaction")
def simulate_transaction(rpc: Rpc, params: Params) -> Any:
    cfg = _config(params, 1)
    c = _commitment(cfg)
    tx = _decode_tx(_arg(params, 0), cfg.get("encoding") or "base58")
    sig_verify = bool(cfg.get("sigVerify", False))
    replace = bool(cfg.get("replaceRecentBlockhash", False))
    if sig_verify and replace:
        raise invalid("sigVerify may not be used with replaceRecentBlockhash")
    if sig_verify:
        rpc.chain.check_transaction(tx)
    replacement = None
    if replace:
        # LiteSVM does not look at the blockhash: replacing it = skipping our check.
        blockhash, last_valid = rpc.chain.latest_blockhash(Commitment.PROCESSED)
        replacement = {"blockhash": blockhash, "lastValidBlockHeight": last_valid}
    sim = rpc.chain.simulate(tx, check_blockhash=not replace)
    result = sim.result()
    result["replacementBlockhash"] = replacement
    if cfg.get("innerInstructions"):
        result["innerInstructions"] = sim.inner
    if (wanted := cfg.get("accounts")) is not None:
        addrs = wanted.get("addresses") or []
        acfg = {"encoding": wanted.get("encoding", "base64")}
        result["accounts"] = [
            rpc.encode_account(
                sim.post_accounts.get(k) or rpc.chain.get_account(k), acfg, Commitment.PROCESSED
            )
            for k in map(_pubkey, addrs)
        ]
    return rpc.ctx(c, result)


@method("requestAirdrop")
def request_airdrop(rpc: Rpc, params: Params) -> Any:
    key = _pubkey(_arg(params, 0))
    lamports = _arg(params, 1)
    if not isinstance(lamports, int) or isinstance(lamports, bool) or lamports <= 0:
        raise invalid("lamports must be a positive integer")
    return rpc.chain.airdrop(key, lamports)


def _signature(value: Any) -> str:
    if not isinstance(value, str):
        raise invalid("Invalid param: expected a signature string")
    try:
        return str(Signature.from_string(value))
    except ValueError as exc:
        raise invalid(f"Invalid param: {exc}") from exc


@method("getSignatureStatuses")
def get_signature_statuses(rpc: Rpc, params: Params) -> Any:
    sigs = _arg(params, 0)
    if not isinstance(sigs, list) or len(sigs) > MAX_SIGNATURE_STATUSES:
        raise invalid(f"expected a list of at most {MAX_SIGNATURE_STATUSES} signatures")
    search = bool(_config(params, 1).get("searchTransactionHistory", False))
    value = [rpc.chain.signature_status(_signature(s), search) for s in sigs]
    return rpc.ctx(Commitment.PROCESSED, value)


def _at_least_confirmed(cfg: dict[str, Any]) -> Commitment:
    c = _commitment(cfg)
    if c is Commitment.PROCESSED:
        raise invalid("Method does not support commitment below `confirmed`")
    return c


@method("getTransaction")
def get_transaction(rpc: Rpc, params: Params) -> Any:
    sig = _signature(_arg(params, 0))
    if len(params) > 1 and isinstance(params[1], str):  # legacy form: [sig, "json"]
        cfg: dict[str, Any] = {"encoding": params[1]}
    else:
        cfg = _config(params, 1)
    rec = rpc.chain.get_tx(sig, _at_least_confirmed(cfg))
    return None if rec is None else rpc.encode_tx(rec, cfg)


MAX_BLOCK_RANGE = 500_000  # getBlocks: at most this many slots past start_slot


@method("getBlock")
def get_block(rpc: Rpc, params: Params) -> Any:
    slot = _slot_arg(params, 0, "slot")
    if len(params) > 1 and isinstance(params[1], str):  # legacy form: [slot, "json"]
        cfg: dict[str, Any] = {"encoding": params[1]}
    else:
        cfg = _config(params, 1)
    blockhash, prev, when, txs = rpc.chain.block(slot, _at_least_confirmed(cfg))
    out: dict[str, Any] = {
        "blockHeight": slot,  # one block per slot, none skipped
        "blockTime": when,
        "blockhash": blockhash,
        "parentSlot": max(slot - 1, 0),
        "previousBlockhash": prev,
    }
    details = cfg.get("transactionDetails") or "full"
    if details in ("full", "accounts"):
        encoded = [rpc.encode_tx(r, cfg, details) for r in txs]
        out["transactions"] = [
            {k: e[k] for k in ("transaction", "meta", "version") if k in e} for e in encoded
        ]
    elif details == "signatures":
        out["signatures"] = [r["signature"] for r in txs]
    elif details != "none":
        raise invalid(f"unsupported transactionDetails: {details}")
    if cfg.get("rewards") is not False:
        out["rewards"] = []
    return out


def _slot_arg(params: Params, i: int, name: str) -> int:
    value = _arg(params, i)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise invalid(f"{name} must be a non-negative integer")
    return value


@method("getBlocks")
def get_blocks(rpc: Rpc, params: Params) -> Any:
    """Slots of the blocks in [start_slot, end_slot] (end: the newest at the commitment)."""
    start = _slot_arg(params, 0, "start_slot")
    end: int | None = None
    if len(params) > 1 and isinstance(params[1], dict):  # [start, config]
        cfg = _config(params, 1)
    else:  # [start, end or null, config]
        if len(params) > 1 and params[1] is not None:
            end = _slot_arg(params, 1, "end_slot")
        cfg = _config(params, 2)
    top = rpc.chain.commitment_slot(_at_least_confirmed(cfg))
    if (top if end is None else end) - start > MAX_BLOCK_RANGE:
        raise invalid(f"Slot range too large; max {MAX_BLOCK_RANGE}")
    end = top if end is None else min(end, top)
    return list(range(start, end + 1))


@method("getBlocksWithLimit")
def get_blocks_with_limit(rpc: Rpc, params: Params) -> Any:
    """At most ``limit`` block slots from start_slot on."""
    start = _slot_arg(params, 0, "start_slot")
    limit = _slot_arg(params, 1, "limit")
    if limit > MAX_BLOCK_RANGE:
        raise invalid(f"Limit too large; max {MAX_BLOCK_RANGE}")
    top = rpc.chain.commitment_slot(_at_least_confirmed(_config(params, 2)))
    return list(range(start, min(start + limit - 1, top) + 1))


@method("getBlockTime")
def get_block_time(rpc: Rpc, params: Params) -> Any:
    slot = _arg(params, 0)
    if not isinstance(slot, int) or isinstance(slot, bool):
        raise invalid("slot must be an integer")
    return rpc.chain.block(slot, Commitment.CONFIRMED)[2]


@method("getSignaturesForAddress")
def get_signatures_for_address(rpc: Rpc, params: Params) -> Any:
    address = str(_pubkey(_arg(params, 0)))
    cfg = _config(params, 1)
    c = _at_least_confirmed(cfg)
    limit = cfg.get("limit") or MAX_SIGNATURES_FOR_ADDRESS
    if not isinstance(limit, int) or not 1 <= limit <= MAX_SIGNATURES_FOR_ADDRESS:
        raise invalid("Invalid limit; max 1000")

    def seq_of(name: str) -> int | None:
        if cfg.get(name) is None:
            return None
        seq = rpc.chain.tx_seq(_signature(cfg[name]))
        if seq is None:
            raise invalid(f"Invalid param: unknown `{name}` signature")
        return seq

    rows = rpc.chain.signatures_for_address(address, seq_of("before"), seq_of("until"), limit, c)
    out = []
    for r in rows:
        _, status = rpc.chain.confirmation(r["slot"])
        out.append(
            {
                "signature": r["signature"],
                "slot": r["slot"],
                "err": r["err"],
                "memo": r.get("memo"),
                "blockTime": r["blockTime"],
                "confirmationStatus": status,
            }
        )
    return out
