"""The token caches' keys: balances are cached per ``uid:currency`` and the price view under
``price``, in a ``db.notify.NotifyCache`` that the ledger's and the price's triggers (migration
0012) evict at commit."""

from __future__ import annotations

PRICE_KEY = "price"
