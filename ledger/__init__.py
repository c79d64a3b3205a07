"""Ledger domain: two-phase holds and balances (see ledger.service)."""
