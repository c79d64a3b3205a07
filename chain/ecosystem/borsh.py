"""A small borsh codec for Anchor accounts (borsh 0.10.3 as anchor-lang 0.30.1 uses it).

An account struct is a dataclass whose ``LAYOUT`` lists ``(field, codec)`` in declaration order.
``decode`` reads the 8-byte Anchor discriminator and the fields sequentially (Options and Strings
shift every later offset, so nothing is read at a fixed offset after the first of them);
``encode`` writes them compactly and zero-fills up to the account's allocated ``SPACE``.
Public keys travel as base58 strings, enums as their 1-byte declaration index.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import fields
from typing import Any, ClassVar, Protocol, TypeVar

from solders.pubkey import Pubkey

ZERO_KEY = str(Pubkey.default())


class LayoutError(ValueError):
    """Account bytes that do not decode with the expected layout."""


def account_discriminator(name: str) -> bytes:
    """First 8 bytes of sha256("account:<StructName>")."""
    return hashlib.sha256(f"account:{name}".encode()).digest()[:8]


class Codec(Protocol):
    def read(self, data: bytes, off: int) -> tuple[Any, int]: ...
    def write(self, value: Any) -> bytes: ...


class _Int:
    def __init__(self, fmt: str) -> None:
        self.s = struct.Struct("<" + fmt)

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        end = off + self.s.size
        if end > len(data):
            raise LayoutError(f"truncated at offset {off}")
        return self.s.unpack_from(data, off)[0], end

    def write(self, value: Any) -> bytes:
        return self.s.pack(value)


class _Bool:
    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        if off >= len(data):
            raise LayoutError(f"truncated at offset {off}")
        b = data[off]
        if b > 1:
            raise LayoutError(f"bool byte {b} at offset {off}")
        return b == 1, off + 1

    def write(self, value: Any) -> bytes:
        return b"\x01" if value else b"\x00"


class _Pubkey:
    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        end = off + 32
        if end > len(data):
            raise LayoutError(f"truncated at offset {off}")
        return str(Pubkey.from_bytes(data[off:end])), end

    def write(self, value: Any) -> bytes:
        return bytes(Pubkey.from_string(value))


class _String:
    def __init__(self, max_len: int | None = None) -> None:
        self.max_len = max_len

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        n, off = U32.read(data, off)
        if off + n > len(data) or (self.max_len is not None and n > self.max_len):
            raise LayoutError(f"bad string length {n} at offset {off - 4}")
        try:
            return data[off : off + n].decode(), off + n
        except UnicodeDecodeError as exc:
            raise LayoutError(f"string at offset {off} is not UTF-8") from exc

    def write(self, value: Any) -> bytes:
        raw = value.encode()
        return len(raw).to_bytes(4, "little") + raw


class _Fixed:
    def __init__(self, n: int) -> None:
        self.n = n

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        if off + self.n > len(data):
            raise LayoutError(f"truncated at offset {off}")
        return bytes(data[off : off + self.n]), off + self.n

    def write(self, value: Any) -> bytes:
        if len(value) != self.n:
            raise ValueError(f"expected {self.n} bytes")
        return bytes(value)


class _Option:
    def __init__(self, inner: Codec) -> None:
        self.inner = inner

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        tag, off = U8.read(data, off)
        if tag == 0:
            return None, off
        if tag != 1:
            raise LayoutError(f"Option tag {tag} at offset {off - 1}")
        return self.inner.read(data, off)

    def write(self, value: Any) -> bytes:
        return b"\x00" if value is None else b"\x01" + self.inner.write(value)


U8, U16, U32, U64, I64 = _Int("B"), _Int("H"), _Int("I"), _Int("Q"), _Int("q")
BOOL, PUBKEY = _Bool(), _Pubkey()
ENUM = U8  # unit-only enums: the declaration index


def STRING(max_len: int | None = None) -> Codec:
    return _String(max_len)


def FIXED(n: int) -> Codec:
    return _Fixed(n)


def OPTION(inner: Codec) -> Codec:
    return _Option(inner)


T = TypeVar("T", bound="AnchorAccount")


class AnchorAccount:
    """Mixin for dataclasses: NAME (Anchor struct name), SPACE (allocated bytes), LAYOUT."""

    NAME: ClassVar[str]
    SPACE: ClassVar[int]
    LAYOUT: ClassVar[tuple[tuple[str, Codec], ...]]

    @classmethod
    def discriminator(cls) -> bytes:
        return account_discriminator(cls.NAME)

    @classmethod
    def decode(cls: type[T], data: bytes) -> T:
        disc = cls.discriminator()
        if data[:8] != disc:
            raise LayoutError(f"not a {cls.NAME} account (discriminator {data[:8].hex()})")
        off = 8
        values: dict[str, Any] = {}
        for name, codec in cls.LAYOUT:
            values[name], off = codec.read(data, off)
        return cls(**values)

    def encode(self) -> bytes:
        out = bytearray(self.discriminator())
        for name, codec in self.LAYOUT:
            out += codec.write(getattr(self, name))
        if len(out) > self.SPACE:
            raise ValueError(f"{self.NAME} serializes to {len(out)} > space {self.SPACE}")
        return bytes(out) + bytes(self.SPACE - len(out))

    def offsets(self) -> dict[str, int]:
        """Absolute offset of every field in this instance's encoding (for filters and tests)."""
        off = 8
        out: dict[str, int] = {}
        for name, codec in self.LAYOUT:
            out[name] = off
            off += len(codec.write(getattr(self, name)))
        return out

    @classmethod
    def check_layout(cls) -> None:
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        if names != [n for n, _ in cls.LAYOUT]:
            raise AssertionError(f"{cls.NAME}: dataclass fields differ from LAYOUT")
