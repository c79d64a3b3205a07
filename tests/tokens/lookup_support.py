"""Address lookup tables as wallets use them: a table created and extended from a recent slot,
and a version-0 transaction whose accounts come from it (signed and sent by an outside wallet,
never through the gateway)."""

from __future__ import annotations

import struct

from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Finalized, Processed
from solana.rpc.models import TxOpts
from solders.address_lookup_table_account import (
    ID as ALT_PROGRAM,
)
from solders.address_lookup_table_account import (
    AddressLookupTableAccount,
    derive_lookup_table_address,
)
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import ID as SYSTEM_PROGRAM
from solders.transaction import VersionedTransaction

from devchain.outside import OutsideWallet


def _alt_ix(kind: int, table: Pubkey, payer: Pubkey, data: bytes) -> Instruction:
    metas = [
        AccountMeta(table, False, True),
        AccountMeta(payer, True, False),  # authority
        AccountMeta(payer, True, True),  # payer
        AccountMeta(SYSTEM_PROGRAM, False, False),
    ]
    return Instruction(ALT_PROGRAM, struct.pack("<I", kind) + data, metas)


async def lookup_table(wallet: OutsideWallet, addresses: list[Pubkey]) -> Pubkey:
    """Create and extend a table holding ``addresses`` from a recent slot."""
    client = wallet.client
    recent = (await client.get_slot(Finalized)).value
    table, bump = derive_lookup_table_address(wallet.address, recent)
    create = _alt_ix(0, table, wallet.address, struct.pack("<QB", recent, bump))
    body = struct.pack("<Q", len(addresses)) + b"".join(bytes(a) for a in addresses)
    # Waits until finalized: the addresses are usable from the slot after the extension on.
    await wallet.send_instructions([create, _alt_ix(2, table, wallet.address, body)])
    return table


async def send_v0(
    wallet: OutsideWallet,
    instructions: list[Instruction],
    table: Pubkey,
    addresses: list[Pubkey],
    signers: tuple[Keypair, ...] = (),
) -> str:
    """A version-0 transaction (this wallet pays) with ``addresses`` loaded from ``table``;
    waits until it is finalized."""
    client: AsyncClient = wallet.client
    blockhash = (await client.get_latest_blockhash(Processed)).value.blockhash
    message = MessageV0.try_compile(
        wallet.address, instructions, [AddressLookupTableAccount(table, addresses)], blockhash
    )
    loaded = {a for lookup in message.address_table_lookups for a in lookup.writable_indexes}
    assert loaded, "nothing came from the lookup table"
    tx = VersionedTransaction(message, [wallet.keypair, *signers])
    sig = (await client.send_raw_transaction(bytes(tx), TxOpts(skip_preflight=True))).value
    await wallet.wait_finalized(str(sig))
    return str(sig)
