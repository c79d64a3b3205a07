"""Custody token accounts: one SPL token account per (user uid, mint), owned by the gateway.

The address is derived, not stored: ``create_with_seed(custody_authority, seed, token program)``
with seed = first 32 hex chars of sha256(mint || uid), where the token program is the one that
owns the mint (SPL Token or Token-2022, read from the chain: ``ChainKeys.token_program``). Any
process holding the keys can find a user's account again, and creation is naturally idempotent
(the address can exist only once).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from solders.instruction import Instruction
from solders.pubkey import Pubkey
from solders.system_program import (
    AllocateWithSeedParams,
    AssignWithSeedParams,
    TransferParams,
    allocate_with_seed,
    assign_with_seed,
    transfer,
)
from spl.token.constants import ACCOUNT_LEN
from spl.token.instructions import (
    create_idempotent_associated_token_account,
    get_associated_token_address,
    initialize_account3,
    mint_to,
    transfer_checked,
)
from spl.token.models import InitializeAccount3Params, MintToParams, TransferCheckedParams

from chain.keys import ChainKeys

U64_MAX = 2**64 - 1
# Byte offsets inside an SPL token account (165 bytes: mint, owner, amount u64 LE, ...).
_MINT_OFFSET, _OWNER_OFFSET, _AMOUNT_OFFSET = 0, 32, 64


def custody_seed(mint: Pubkey, uid: str) -> str:
    # create_with_seed allows at most 32 seed bytes; 128 bits of sha256 keep collisions absurd.
    return hashlib.sha256(bytes(mint) + uid.encode()).hexdigest()[:32]


def custody_address(keys: ChainKeys, uid: str, currency: str) -> Pubkey:
    mint = keys.mint_for(currency)
    return Pubkey.create_with_seed(
        keys.custody_authority.pubkey(), custody_seed(mint, uid), keys.token_program(currency)
    )


def check_amount(amount: int) -> int:
    # bool is an int subclass and floats must never reach the chain: base units only.
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"amount must be an int of base units, got {type(amount).__name__}")
    if not 0 < amount <= U64_MAX:
        raise ValueError(f"amount out of range: {amount}")
    return amount


def create_custody_instructions(
    keys: ChainKeys, uid: str, currency: str, rent_lamports: int, existing_lamports: int = 0
) -> list[Instruction]:
    """Create + initialise the custody account; the fee payer funds its rent.

    Not ``create_account_with_seed``: that fails on an address that already holds lamports,
    and anyone can send lamports to a derivable address. Top up to the rent, then allocate
    and assign (both only need the address to be an empty system account, which lamports
    alone leave it): pre-funding cannot block the account."""
    mint = keys.mint_for(currency)
    program = keys.token_program(currency)
    base = keys.custody_authority.pubkey()
    address = custody_address(keys, uid, currency)
    seed = custody_seed(mint, uid)
    top_up = max(0, rent_lamports - existing_lamports)
    funding = (
        [
            transfer(
                TransferParams(
                    from_pubkey=keys.fee_payer.pubkey(), to_pubkey=address, lamports=top_up
                )
            )
        ]
        if top_up
        else []
    )
    return [
        *funding,
        allocate_with_seed(
            AllocateWithSeedParams(
                address=address, base=base, seed=seed, space=ACCOUNT_LEN, owner=program
            )
        ),
        assign_with_seed(
            AssignWithSeedParams(address=address, base=base, seed=seed, owner=program)
        ),
        # initialize_account3 takes the owner as data and needs no rent sysvar.
        initialize_account3(
            InitializeAccount3Params(program_id=program, account=address, mint=mint, owner=base)
        ),
    ]


@dataclass(frozen=True)
class CustodyTransfer:
    """Move ``amount`` base units between two users' custody accounts."""

    currency: str
    from_uid: str
    to_uid: str
    amount: int


@dataclass(frozen=True)
class CustodyMint:
    """Mint ``amount`` new base units into a user's custody account (e.g. MCD rewards)."""

    currency: str
    to_uid: str
    amount: int


def transfer_instruction(
    keys: ChainKeys,
    t: CustodyTransfer,
    decimals: int,
    *,
    source: Pubkey | None = None,
    dest: Pubkey | None = None,
) -> Instruction:
    """``source``/``dest``: the custody addresses when the caller has them already."""
    return transfer_checked(
        TransferCheckedParams(
            program_id=keys.token_program(t.currency),
            source=source or custody_address(keys, t.from_uid, t.currency),
            mint=keys.mint_for(t.currency),
            dest=dest or custody_address(keys, t.to_uid, t.currency),
            owner=keys.custody_authority.pubkey(),
            amount=check_amount(t.amount),
            decimals=decimals,
        )
    )


@dataclass(frozen=True)
class WalletTransfer:
    """Move ``amount`` base units from a user's custody account to a wallet outside custody:
    to ``owner``'s associated token account for the currency's mint (a withdrawal)."""

    currency: str
    from_uid: str
    owner: Pubkey
    amount: int


def wallet_token_account(keys: ChainKeys, owner: Pubkey, currency: str) -> Pubkey:
    """``owner``'s associated token account for the currency's mint and its token program."""
    return get_associated_token_address(
        owner, keys.mint_for(currency), keys.token_program(currency)
    )


def wallet_transfer_instructions(
    keys: ChainKeys, t: WalletTransfer, decimals: int, *, source: Pubkey
) -> list[Instruction]:
    """Create the owner's associated token account if it is missing (the ATA program's
    ``CreateIdempotent``: a no-op when it exists; the fee payer pays its rent), then
    ``transfer_checked`` into it: always the same instructions for the same transfer, so a
    write resumed after a crash has the payload it was recorded with."""
    program, mint = keys.token_program(t.currency), keys.mint_for(t.currency)
    return [
        create_idempotent_associated_token_account(keys.fee_payer.pubkey(), t.owner, mint, program),
        transfer_checked(
            TransferCheckedParams(
                program_id=program,
                source=source,
                mint=mint,
                dest=wallet_token_account(keys, t.owner, t.currency),
                owner=keys.custody_authority.pubkey(),
                amount=check_amount(t.amount),
                decimals=decimals,
            )
        ),
    ]


def mint_instruction(keys: ChainKeys, m: CustodyMint, *, dest: Pubkey | None = None) -> Instruction:
    return mint_to(
        MintToParams(
            program_id=keys.token_program(m.currency),
            mint=keys.mint_for(m.currency),
            dest=dest or custody_address(keys, m.to_uid, m.currency),
            mint_authority=keys.mint_authority.pubkey(),
            amount=check_amount(m.amount),
        )
    )


@dataclass(frozen=True)
class TokenAccountState:
    mint: Pubkey
    owner: Pubkey
    amount: int


def parse_token_account(data: bytes) -> TokenAccountState | None:
    if len(data) < ACCOUNT_LEN:
        return None
    return TokenAccountState(
        mint=Pubkey.from_bytes(data[_MINT_OFFSET : _MINT_OFFSET + 32]),
        owner=Pubkey.from_bytes(data[_OWNER_OFFSET : _OWNER_OFFSET + 32]),
        amount=int.from_bytes(data[_AMOUNT_OFFSET : _AMOUNT_OFFSET + 8], "little"),
    )
