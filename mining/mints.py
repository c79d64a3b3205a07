"""How a batch of rewards is cut into ``mint_to`` transactions: deterministic chunks (a retried
mint rebuilds exactly the op_keys and instructions it may already have written), packed by the
signed size of the transaction the gateway builds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chain.custody import CustodyMint
from chain.gateway import ChainGateway

# A Solana transaction is at most 1232 bytes (signatures + message). A mint_to costs 15 bytes,
# plus 32 for each custody account not yet in the transaction: a batch is packed by measuring
# the signed size (see packer), so 100 mints to 4 users take 2 transactions, to 100 users 6.
TX_SIZE_LIMIT = 1232
# ...and at most this many instructions (the runtime's instruction trace holds 64).
MAX_MINTS_PER_TX = 60


@dataclass
class MintItem:
    activity_id: str  # the submission's id (its wire name; recorded in workflow histories)
    user_uid: str
    amount: int


def chunks_of(
    items: list[MintItem], base: str, fits: Callable[[list[MintItem]], bool]
) -> list[tuple[str, list[MintItem]]]:
    """Deterministic split into transactions: sorted by id, a new chunk whenever the next item
    would not ``fit`` (``packer``: the size and instruction bounds of one transaction)."""
    ordered = sorted(items, key=lambda i: i.activity_id)
    if len(ordered) == 1:
        return [(base, ordered)]
    chunks: list[list[MintItem]] = []
    for item in ordered:
        if not chunks or not fits([*chunks[-1], item]):
            chunks.append([])
        chunks[-1].append(item)
    return [(f"{base}:{n}", chunk) for n, chunk in enumerate(chunks)]


def mint_of(item: MintItem) -> CustodyMint:
    return CustodyMint("MCD", item.user_uid, item.amount)


def packer(gateway: ChainGateway, items: list[MintItem]) -> Callable[[list[MintItem]], bool]:
    """``fits(chunk)``: does one transaction of these mints stay within the size and the
    instruction bounds? Measured by the gateway's one size rule, on the message as it builds
    it (with the compute budget every write carries: chain/fees.py)."""
    instructions = {i.activity_id: gateway.mint_instruction(mint_of(i)) for i in items}

    def fits(chunk: list[MintItem]) -> bool:
        if len(chunk) > MAX_MINTS_PER_TX:
            return False
        return gateway.fits_one_transaction([instructions[i.activity_id] for i in chunk])

    return fits
