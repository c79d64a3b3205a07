"""The node's ledger in process: every block has a time, kept across a restart; a chain made
before the cluster accounts existed gets them on its next start; performance samples."""

from __future__ import annotations

from pathlib import Path

import pytest
from solders.account import Account
from solders.pubkey import Pubkey

from devchain.node import ledger, validator
from devchain.node.genesis import open_chain
from devchain.node.ledger import Commitment


def test_block_times_survive_a_restart(tmp_path: Path) -> None:
    chain = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    for _ in range(5):
        chain.tick()
    times = [chain.block_time(s) for s in range(6)]
    chain.close()
    again = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    try:
        assert [again.block_time(s) for s in range(6)] == times
        assert times[0] == again.genesis_time and times == sorted(times)
        assert again.block(3, Commitment.CONFIRMED)[2] == times[3]  # an empty block has one too
    finally:
        again.close()


def test_the_open_slots_time_survives_a_restart_in_another_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The slot open at the stop opened in an earlier second than the restart: it keeps that
    second (it was stamped again with the restart's, one in CI's run of 2026-11-29)."""
    clock = [1_800_000_000]
    monkeypatch.setattr(ledger, "now", lambda: clock[0])
    chain = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    for _ in range(3):
        chain.tick()
    times = [chain.block_time(s) for s in range(4)]
    chain.close()
    clock[0] += 1
    again = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    try:
        assert [again.block_time(s) for s in range(4)] == times
        again.tick()
        assert again.block_time(4) == clock[0]  # the next slot opens now
    finally:
        again.close()


def test_cluster_accounts_added_to_an_older_chain(tmp_path: Path) -> None:
    chain = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    v = validator.of(chain)
    for key in (validator.NATIVE_MINT, v.node, v.vote, v.stake):  # as if made before them
        chain.set_account(key, Account(0, b"", Pubkey.default(), False, 0))
    chain.close()
    again = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    try:
        assert validator.of(again) == v  # derived from the chain's seed: the same keys
        mint = again.get_account(validator.NATIVE_MINT)
        assert mint is not None and mint.lamports == validator.NATIVE_MINT_LAMPORTS
        stake = again.get_account(v.stake)
        assert validator.activated_stake(stake) == validator.STAKE_LAMPORTS
        assert validator.commission_of(again.get_account(v.vote)) == validator.COMMISSION
    finally:
        again.close()


def test_performance_samples(tmp_path: Path) -> None:
    chain = open_chain(tmp_path / "d", tmp_path / "k", fixtures_dir=None)
    try:
        chain.perf_period = 0
        chain.airdrop(Pubkey.new_unique(), 10**9)
        chain.tick()
        chain.tick()
        first, second = chain.perf_samples
        assert first["numTransactions"] == first["numNonVoteTransactions"] == 1
        assert (first["numSlots"], second["numSlots"], second["numTransactions"]) == (1, 1, 0)
    finally:
        chain.close()
