"""A small borsh codec for Anchor accounts (borsh 0.10.3 as anchor-lang 0.30.1 uses it).

An account struct is a dataclass whose fields are declared once, in on-chain byte order, each
with a field type that carries its codec (``amount: U64``, ``name: Annotated[str, STRING(32)]``);
the layout is derived from those fields, so the bytes and the Python shape cannot drift apart.
``decode`` reads the 8-byte Anchor discriminator and the fields sequentially (Options and Strings
shift every later offset, so nothing is read at a fixed offset after the first of them);
``encode`` writes them compactly and zero-fills up to the account's allocated ``SPACE``.
Public keys travel as base58 strings, enums as their 1-byte declaration index.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import fields
from typing import Annotated, Any, ClassVar, TypeVar, get_args, get_type_hints

from solders.pubkey import Pubkey

ZERO_KEY = str(Pubkey.default())


class LayoutError(ValueError):
    """Account bytes that do not decode with the expected layout."""


def account_discriminator(name: str) -> bytes:
    """First 8 bytes of sha256("account:<StructName>")."""
    return hashlib.sha256(f"account:{name}".encode()).digest()[:8]


class Codec:
    """How one field is laid out; subclasses read from an offset and write a value."""

    size: int | None = None  # bytes on the wire, None when the value decides (String, Option)

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        raise NotImplementedError

    def write(self, value: Any) -> bytes:
        raise NotImplementedError


class _Int(Codec):
    def __init__(self, fmt: str) -> None:
        self.s = struct.Struct("<" + fmt)
        self.size = self.s.size

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        end = off + self.s.size
        if end > len(data):
            raise LayoutError(f"truncated at offset {off}")
        return self.s.unpack_from(data, off)[0], end

    def write(self, value: Any) -> bytes:
        return self.s.pack(value)


class _Bool(Codec):
    size = 1

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        if off >= len(data):
            raise LayoutError(f"truncated at offset {off}")
        b = data[off]
        if b > 1:
            raise LayoutError(f"bool byte {b} at offset {off}")
        return b == 1, off + 1

    def write(self, value: Any) -> bytes:
        return b"\x01" if value else b"\x00"


class _Pubkey(Codec):
    size = 32

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        end = off + 32
        if end > len(data):
            raise LayoutError(f"truncated at offset {off}")
        return str(Pubkey.from_bytes(data[off:end])), end

    def write(self, value: Any) -> bytes:
        return bytes(Pubkey.from_string(value))


class _String(Codec):
    def __init__(self, max_len: int | None = None) -> None:
        self.max_len = max_len

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        n, off = _U32.read(data, off)
        if off + n > len(data) or (self.max_len is not None and n > self.max_len):
            raise LayoutError(f"bad string length {n} at offset {off - 4}")
        try:
            return data[off : off + n].decode(), off + n
        except UnicodeDecodeError as exc:
            raise LayoutError(f"string at offset {off} is not UTF-8") from exc

    def write(self, value: Any) -> bytes:
        raw = value.encode()
        return len(raw).to_bytes(4, "little") + raw


class _Fixed(Codec):
    def __init__(self, n: int) -> None:
        self.n = self.size = n

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        if off + self.n > len(data):
            raise LayoutError(f"truncated at offset {off}")
        return bytes(data[off : off + self.n]), off + self.n

    def write(self, value: Any) -> bytes:
        if len(value) != self.n:
            raise ValueError(f"expected {self.n} bytes")
        return bytes(value)


class _Option(Codec):
    def __init__(self, inner: Codec) -> None:
        self.inner = inner

    def read(self, data: bytes, off: int) -> tuple[Any, int]:
        tag, off = _U8.read(data, off)
        if tag == 0:
            return None, off
        if tag != 1:
            raise LayoutError(f"Option tag {tag} at offset {off - 1}")
        return self.inner.read(data, off)

    def write(self, value: Any) -> bytes:
        return b"\x00" if value is None else b"\x01" + self.inner.write(value)


_U8, _U16, _U32, _U64, _I64 = _Int("B"), _Int("H"), _Int("I"), _Int("Q"), _Int("q")
_PUBKEY = _Pubkey()

# Field types: the Python value a field holds, annotated with the codec that lays it out.
U8 = Annotated[int, _U8]
U16 = Annotated[int, _U16]
U32 = Annotated[int, _U32]
U64 = Annotated[int, _U64]
I64 = Annotated[int, _I64]
BOOL = Annotated[bool, _Bool()]
PUBKEY = Annotated[str, _PUBKEY]
ENUM = Annotated[int, _U8]  # unit-only enums: the declaration index
_T = TypeVar("_T")
_OPTIONAL = object()  # marks OPTION[...]: a 1-byte tag, then the inner field type's codec
OPTION = Annotated[_T | None, _OPTIONAL]  # OPTION[U64] holds int | None, like Option<u64>


def STRING(max_len: int | None = None) -> Codec:
    """Codec for ``Annotated[str, STRING(n)]``: u32 length prefix, at most ``n`` bytes."""
    return _String(max_len)


def FIXED(n: int) -> Codec:
    """Codec for ``Annotated[bytes, FIXED(n)]``: exactly ``n`` raw bytes."""
    return _Fixed(n)


T = TypeVar("T", bound="AnchorAccount")
Layout = tuple[tuple[str, Codec], ...]

_LAYOUTS: dict[type, Layout] = {}


def _codec_of(owner: str, hint: Any) -> Codec:
    meta = getattr(hint, "__metadata__", ())
    if _OPTIONAL in meta:
        inner = next(a for a in get_args(hint.__origin__) if a is not type(None))
        return _Option(_codec_of(owner, inner))
    codecs = [m for m in meta if isinstance(m, Codec)]
    if len(codecs) != 1:
        raise TypeError(f"{owner}: declare its type with one borsh codec")
    return codecs[0]


def _derive_layout(cls: type) -> Layout:
    """(field, codec) in dataclass field order, the codec read off each field's annotation."""
    hints = get_type_hints(cls, include_extras=True)
    return tuple(
        (f.name, _codec_of(f"{cls.__name__}.{f.name}", hints[f.name])) for f in fields(cls)
    )


class AnchorAccount:
    """Mixin for dataclasses: NAME (Anchor struct name), SPACE (allocated bytes); the fields,
    in on-chain order, are typed with the field types above."""

    NAME: ClassVar[str]
    SPACE: ClassVar[int]

    @classmethod
    def layout(cls) -> Layout:
        # Derived once per class: decode sits on the views' hot path.
        got = _LAYOUTS.get(cls)
        if got is None:
            got = _LAYOUTS[cls] = _derive_layout(cls)
        return got

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
        for name, codec in cls.layout():
            values[name], off = codec.read(data, off)
        return cls(**values)

    def encode(self) -> bytes:
        out = bytearray(self.discriminator())
        for name, codec in self.layout():
            out += codec.write(getattr(self, name))
        if len(out) > self.SPACE:
            raise ValueError(f"{self.NAME} serializes to {len(out)} > space {self.SPACE}")
        return bytes(out) + bytes(self.SPACE - len(out))

    def offsets(self) -> dict[str, int]:
        """Absolute offset of every field in this instance's encoding (for filters and tests)."""
        off = 8
        out: dict[str, int] = {}
        for name, codec in self.layout():
            out[name] = off
            off += len(codec.write(getattr(self, name)))
        return out

    @classmethod
    def fixed_offset(cls, field: str) -> int:
        """Absolute offset of ``field`` in every encoding (for memcmp filters): only defined
        while no String or Option precedes it."""
        off = 8
        for name, codec in cls.layout():
            if name == field:
                return off
            if codec.size is None:
                raise ValueError(f"{cls.NAME}.{field} follows variable-size {name}")
            off += codec.size
        raise KeyError(field)

    @classmethod
    def check_layout(cls) -> None:
        """Raise unless every dataclass field declares exactly one codec."""
        cls.layout()
