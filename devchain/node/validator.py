"""The local cluster's one validator and the genesis accounts every cluster has.

The validator's identity, vote account and stake account are keypairs derived from the chain's
seed (so they are the same on every start and differ between chains), created at genesis in
their programs' real layouts: a vote account (``VoteStateVersions::Current``, 3762 bytes, owned
by the Vote program) naming the identity, and a stake account (``StakeStateV2::Stake``, 200
bytes, owned by the Stake program) delegated to it from genesis. The native mint
(``So111…112``, SPL Token, 9 decimals) is created as a test validator's genesis creates it.
``ensure_accounts`` adds whichever is missing, also to a chain made before they existed.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from functools import cache

from solders.account import Account
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from devchain.node import spl
from devchain.node.svm import Chain

SOL = 1_000_000_000
VOTE_PROGRAM_ID = Pubkey.from_string("Vote111111111111111111111111111111111111111")
STAKE_PROGRAM_ID = Pubkey.from_string("Stake11111111111111111111111111111111111111")
NATIVE_MINT = Pubkey.from_string("So11111111111111111111111111111111111111112")
NATIVE_MINT_LAMPORTS = SOL  # as a test validator's genesis funds it
IDENTITY_LAMPORTS = 500 * SOL
STAKE_LAMPORTS = 1_000_000 * SOL  # delegated to the one vote account: all the cluster's stake
COMMISSION = 100  # percent of rewards the validator keeps (the node pays none)
VOTE_STATE_SIZE = 3762
STAKE_STATE_SIZE = 200
_U64_MAX = 2**64 - 1
_PRIOR_VOTERS = 32  # CircBuf entries of (Pubkey, start epoch, end epoch)


@dataclass(frozen=True)
class Validator:
    identity: Keypair
    vote: Pubkey
    stake: Pubkey

    @property
    def node(self) -> Pubkey:
        return self.identity.pubkey()


def _derived(seed: bytes, label: bytes) -> Keypair:
    return Keypair.from_seed(hashlib.sha256(seed + label).digest())


@cache
def _of_seed(seed: bytes) -> Validator:
    return Validator(
        identity=_derived(seed, b"validator identity"),
        vote=_derived(seed, b"validator vote account").pubkey(),
        stake=_derived(seed, b"validator stake account").pubkey(),
    )


def of(chain: Chain) -> Validator:
    return _of_seed(chain.seed)


def vote_state(node: Pubkey, authority: Pubkey, commission: int) -> bytes:
    """A freshly initialised vote account (bincode of ``VoteStateVersions::Current``): no
    votes, no root, ``authority`` as voter from epoch 0 and as withdrawer."""
    data = struct.pack("<I", 2) + bytes(node) + bytes(authority) + bytes([commission])
    data += struct.pack("<Q", 0)  # votes: empty
    data += b"\0"  # root_slot: None
    data += struct.pack("<QQ", 1, 0) + bytes(authority)  # authorized_voters: {0: authority}
    data += bytes(48 * _PRIOR_VOTERS) + struct.pack("<Q?", _PRIOR_VOTERS - 1, True)
    data += struct.pack("<Q", 0)  # epoch_credits: empty
    data += struct.pack("<Qq", 0, 0)  # last_timestamp
    return data.ljust(VOTE_STATE_SIZE, b"\0")


def stake_state(authority: Pubkey, vote: Pubkey, stake: int, reserve: int) -> bytes:
    """A stake account delegated since genesis (activation epoch u64::MAX, as genesis
    stakes are), no lockup (bincode of ``StakeStateV2::Stake``)."""
    data = struct.pack("<IQ", 2, reserve) + bytes(authority) + bytes(authority)
    data += struct.pack("<qQ", 0, 0) + bytes(Pubkey.default())  # lockup: none
    data += bytes(vote) + struct.pack("<QQQd", stake, _U64_MAX, _U64_MAX, 0.25)
    data += struct.pack("<QB", 0, 0)  # credits_observed, flags
    return data.ljust(STAKE_STATE_SIZE, b"\0")


def commission_of(account: Account | None) -> int:
    data = bytes(account.data) if account is not None else b""
    return data[68] if len(data) > 68 else COMMISSION


def activated_stake(account: Account | None) -> int:
    """The delegated stake of a genesis stake account (0 if it is not one)."""
    data = bytes(account.data) if account is not None else b""
    if len(data) < STAKE_STATE_SIZE or struct.unpack_from("<I", data)[0] != 2:
        return 0
    return int(struct.unpack_from("<Q", data, 156)[0])


def native_mint_account() -> Account:
    data = bytes(36) + struct.pack("<QBB", 0, 9, 1) + bytes(36)  # no authority, supply 0
    return Account(NATIVE_MINT_LAMPORTS, data, spl.TOKEN_PROGRAM_ID, False, 1)


def ensure_accounts(chain: Chain) -> list[Pubkey]:
    """Create the missing cluster accounts; returns the addresses created."""
    v = of(chain)
    system = Pubkey.default()
    reserve = chain.minimum_balance(STAKE_STATE_SIZE)
    wanted = {
        NATIVE_MINT: native_mint_account,
        v.node: lambda: Account(IDENTITY_LAMPORTS, b"", system, False, 0),
        v.vote: lambda: Account(
            chain.minimum_balance(VOTE_STATE_SIZE),
            vote_state(v.node, v.node, COMMISSION),
            VOTE_PROGRAM_ID,
            False,
            0,
        ),
        v.stake: lambda: Account(
            reserve + STAKE_LAMPORTS,
            stake_state(v.node, v.vote, STAKE_LAMPORTS, reserve),
            STAKE_PROGRAM_ID,
            False,
            0,
        ),
    }
    created = []
    for key, make in wanted.items():
        if chain.svm.get_account(key) is None:
            chain.set_account(key, make())
            created.append(key)
    return created
