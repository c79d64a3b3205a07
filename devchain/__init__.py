"""The dev chain: a local Solana node (LiteSVM), our C programs, genesis fixtures and the
dev world builders. Tooling for `mccgw dev`, the tests and the benchmarks; the product never
imports it (tests/test_layers.py)."""
