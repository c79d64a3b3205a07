"""Our two on-chain programs in freestanding C (``mcd_token.c``, ``reincarnation.c``) and their
committed SBPF builds (``make program`` rebuilds them; ``make program-check`` proves the build)."""

from __future__ import annotations

from pathlib import Path

PROGRAM_DIR = Path(__file__).resolve().parent


def elf(name: str) -> bytes:
    """The committed build of ``<name>.c`` (``mcd_token`` or ``reincarnation``)."""
    return (PROGRAM_DIR / f"{name}.so").read_bytes()
