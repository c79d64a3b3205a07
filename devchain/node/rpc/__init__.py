"""Solana JSON-RPC 2.0 methods over a Chain: parameter parsing, result shapes and encodings,
exactly as solana-py / solders parse them. Transport lives in ``devchain/node/server.py``.

One module per method family, each registering its methods with ``@method(name)``:

- ``dispatch``: the envelope (single and batch), error codes, the method table, ``Rpc``;
- ``params``: parameter parsing and its invalid-params answers;
- ``encoding``: accounts and recorded transactions in each encoding;
- ``cluster``: the node and its cluster (identity, version, nodes, vote accounts, leaders,
  block production, epoch schedule);
- ``blocks``: slots, blockhashes, epoch, blocks, block times and commitment, ledger bounds,
  transaction count, performance samples;
- ``economics``: supply, largest accounts, stake minimum, inflation;
- ``accounts``: balances, accounts, program accounts, SPL Token reads;
- ``fees``: getFeeForMessage, getMinimumBalanceForRentExemption;
- ``transactions``: send, simulate, airdrop, signature statuses, transactions, signatures.

Seams for what wraps or listens to the node (nothing is plugged in by default):

- every call passes through ``Rpc(chain, middlewares)``: a ``Middleware`` is
  ``(rpc, name, params, call_next) -> result``; it may answer instead (return, or raise
  ``RpcError``), or pass on with ``call_next(rpc, name, params)``, or with
  ``call_next(Rpc(view), name, params)`` to answer from another chain-like view (a node some
  slots behind). ``make_app(..., rpc_middlewares=...)`` installs them; its ``middlewares``
  (aiohttp's own, async) wrap each HTTP request, for delays and refusals such as a 429;
- the chain's slot clock and transaction landing call ``chain.on_slot`` and
  ``chain.on_landed`` listeners (``devchain/node/svm.py``).

What it answers and what it does not support (jsonParsed beyond SPL Token accounts and mints,
minContextSlot, sortResults/changedSinceSlot, subscriptions) is listed in docs/views.md,
"The local chain: fixtures and the reads the node answers"."""

from devchain.node.rpc import accounts, blocks, cluster, economics, fees, transactions
from devchain.node.rpc.dispatch import (
    METHODS,
    Call,
    Middleware,
    Params,
    Rpc,
    handle_body,
    handle_one,
    method,
)

__all__ = [
    "METHODS",
    "Call",
    "Middleware",
    "Params",
    "Rpc",
    "accounts",  # the families: imported so that their methods are registered
    "blocks",
    "cluster",
    "economics",
    "fees",
    "handle_body",
    "handle_one",
    "method",
    "transactions",
]
