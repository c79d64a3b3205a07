"""The ecosystem's read-only programs (territory NFT, auction, fragment, lending, level
verifier): account layouts exactly as ``ecosystem-programs.md`` section 2 gives them, PDA
derivations, and the lending program's integer math. Pure code: no I/O."""

from __future__ import annotations

from functools import lru_cache

from solders.pubkey import Pubkey

# Mainnet / devnet program ids (ecosystem-programs.md section 1.1). Settings override them.
TERRITORY_PROGRAM_ID = "ipYLo2aitVyNXGzCgpiaKKA2JLvtbBvMHiV7qKZTPVZ"
AUCTION_PROGRAM_ID = "6JRmShodszZca3ez7GfDkmsRSzTi5ELwscWCDgjsteJx"
FRAGMENT_PROGRAM_ID = "J7wyftDtfzqn2pbpLr8QPqKQkAxecgVze75SUz9D4Fq3"
LENDING_PROGRAM_ID = "5JRnecaAZNfF1bBjdW93JB8VFJVpWWDkR3NKg2jHnMPQ"
LEVEL_VERIFIER_PROGRAM_ID = "8TSuNuR1Carh8GpjqrZiVo3oz1nC2K9FSy6BhqbWb3ek"
TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
ATA_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
METADATA_PROGRAM_ID = "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s"
MCC_MINT = "MCCpDtigJLYnfGe1fW5xrSA8AXo6AeAj8ECE7wVqP5e"
TERRITORY_COLLECTION_MINT = "BvV8jWSkLfw7GQthdrsqF6DZm91aVDbcEbpDWYNP88ST"

TERRITORY_TYPES = ("station", "matrix", "sector", "system")


@lru_cache(maxsize=65_536)  # views derive the same few PDAs on every request
def pda(program: str, *seeds: bytes) -> tuple[str, int]:
    key, bump = Pubkey.find_program_address(list(seeds), Pubkey.from_string(program))
    return str(key), bump


def key_bytes(address: str) -> bytes:
    return bytes(Pubkey.from_string(address))


def u64le(n: int) -> bytes:
    return n.to_bytes(8, "little")


def ata(owner: str, mint: str) -> str:
    return pda(ATA_PROGRAM_ID, key_bytes(owner), key_bytes(TOKEN_PROGRAM_ID), key_bytes(mint))[0]
