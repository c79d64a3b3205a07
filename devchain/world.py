"""``World``: the builder of genesis accounts in their real layouts (the dev chain's in
``devchain/fixtures.py``; tests and the benchmark write their own with it). Every key is
derived from a label (``wallet("alice")``), every time from the fixed ``EPOCH``."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from solders.keypair import Keypair

from chain.ecosystem import TOKEN_PROGRAM_ID, ata, key_bytes
from chain.ecosystem.borsh import AnchorAccount

EPOCH = 1_793_491_200  # 2026-11-01T00:00:00Z
ACTIVE_UNTIL = 2_000_000_000  # 2033-05-18T03:33:20Z: "active" stays active
DAY = 86_400
MCC = 10**9
SYSTEM_PROGRAM_ID = "11111111111111111111111111111111"
DEFAULT_DIR = Path(__file__).resolve().parent / "node" / "fixtures"


def wallet(label: str) -> str:
    """A deterministic public key for a label (nobody needs its secret key)."""
    seed = hashlib.sha256(f"mccgw-fixture:{label}".encode()).digest()
    return str(Keypair.from_seed(seed).pubkey())


def rent(size: int) -> int:
    return (128 + size) * 3480 * 2


def mint_bytes(authority: str | None, supply: int, decimals: int) -> bytes:
    auth = (1).to_bytes(4, "little") + key_bytes(authority) if authority else bytes(36)
    return auth + supply.to_bytes(8, "little") + bytes([decimals, 1]) + bytes(36)


def token_bytes(mint: str, owner: str, amount: int) -> bytes:
    return (
        key_bytes(mint)
        + key_bytes(owner)
        + amount.to_bytes(8, "little")
        + bytes(36)  # no delegate
        + b"\x01"  # initialized
        + bytes(12)  # not native
        + bytes(8)  # delegated amount
        + bytes(36)  # no close authority
    )


@dataclass
class World:
    accounts: dict[str, tuple[str, bytes, int]] = field(default_factory=dict)
    supply: dict[str, int] = field(default_factory=dict)
    mints: dict[str, tuple[str | None, int]] = field(default_factory=dict)

    def put(self, address: str, owner: str, data: bytes, lamports: int | None = None) -> str:
        self.accounts[address] = (owner, data, rent(len(data)) if lamports is None else lamports)
        return address

    def anchor(self, address: str, program: str, acc: AnchorAccount) -> str:
        return self.put(address, program, acc.encode())

    def mint(self, address: str, decimals: int, authority: str | None = None) -> str:
        self.mints[address] = (authority, decimals)
        self.supply.setdefault(address, 0)
        return address

    def token(self, owner: str, mint: str, amount: int, address: str | None = None) -> str:
        """A token account (the owner's ATA unless an address is given); supply follows."""
        address = address or ata(owner, mint)
        self.supply[mint] = self.supply.get(mint, 0) + amount
        return self.put(address, TOKEN_PROGRAM_ID, token_bytes(mint, owner, amount))

    def finish(self) -> None:
        """Write the mints last, with the supply their token accounts add up to."""
        for address, (authority, decimals) in self.mints.items():
            data = mint_bytes(authority, self.supply.get(address, 0), decimals)
            self.put(address, TOKEN_PROGRAM_ID, data)

    def write(self, out: Path) -> int:
        self.finish()
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("*.json"):
            old.unlink()
        for address, (owner, data, lamports) in sorted(self.accounts.items()):
            doc = {
                "pubkey": address,
                "account": {
                    "lamports": lamports,
                    "data": [base64.b64encode(data).decode(), "base64"],
                    "owner": owner,
                    "executable": False,
                    "rentEpoch": 18446744073709551615,
                    "space": len(data),
                },
            }
            (out / f"{address}.json").write_text(json.dumps(doc, indent=1) + "\n")
        return len(self.accounts)
