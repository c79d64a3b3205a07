"""A tiny, deterministic linker: clang BPF relocatable object -> SBPFv0 program ELF.

Debian's ``ld.lld`` refuses the BPF relocations clang emits, and the Solana platform tools
are not a registry package, so the project links its one-object program itself. The output
is what the SBPFv0 loader (rbpf's lenient parser) expects:

* ``ET_DYN``, ``EM_BPF``, ``e_flags`` 0, no program headers; every allocated section has
  ``sh_addr == sh_offset`` (the v0 loader maps the file at ``MM_PROGRAM_START`` by offset);
* one ``.text`` (all ``.text*`` input sections concatenated) and one ``.rodata`` (all
  ``.rodata*`` input sections concatenated), right after each other;
* ``lddw`` references into ``.rodata`` are resolved here to absolute VM addresses
  (``0x1_0000_0000 + offset``), so they need no dynamic relocation;
* calls between functions are resolved here to relative ``call`` immediates (the loader turns
  every ``call imm != -1`` into a bpf-to-bpf call);
* calls to undefined symbols are syscalls: they keep ``imm = -1`` and get an ``R_BPF_64_32``
  entry in ``.rel.dyn`` against a ``.dynsym`` symbol named after the syscall; the loader hashes
  the name (murmur3) itself;
* writable data (``.data``, ``.bss``) is refused: SBPF programs cannot have mutable globals.

The output depends only on the input bytes (no timestamps, sorted tables), so a rebuild with
the same clang reproduces the committed ``.so`` byte for byte.

Usage: ``python -m devchain.program.sbf_link in.o out.so``
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

MM_PROGRAM_START = 0x1_0000_0000

# ELF constants (only those used).
ET_REL, ET_DYN = 1, 3
EM_BPF = 247
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 0, 1, 2, 3
SHT_DYNAMIC, SHT_NOBITS, SHT_REL, SHT_DYNSYM = 6, 8, 9, 11
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
SHN_UNDEF = 0
STB_GLOBAL = 1
STT_NOTYPE, STT_FUNC, STT_SECTION = 0, 2, 3
DT_NULL, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT = 0, 5, 6, 10, 11
DT_REL, DT_RELSZ, DT_RELENT, DT_TEXTREL, DT_FLAGS = 17, 18, 19, 22, 30
DF_TEXTREL = 0x4
R_BPF_64_64, R_BPF_64_32 = 1, 10

OP_LDDW, OP_CALL = 0x18, 0x85
EHDR_SIZE, PHDR_SIZE, SHDR_SIZE, SYM_SIZE, REL_SIZE, DYN_SIZE = 64, 56, 64, 24, 16, 16


class LinkError(Exception):
    pass


@dataclass
class _Section:
    index: int
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    data: bytes


@dataclass
class _Symbol:
    name: str
    value: int
    size: int
    bind: int
    type: int
    shndx: int


@dataclass
class _Object:
    sections: list[_Section]
    symbols: list[_Symbol] = field(default_factory=list)


def _cstr(table: bytes, offset: int) -> str:
    end = table.index(b"\0", offset)
    return table[offset:end].decode()


def _parse(obj: bytes) -> _Object:
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise LinkError("not a 64-bit little-endian ELF")
    e_type, e_machine = struct.unpack_from("<HH", obj, 16)
    if e_type != ET_REL or e_machine != EM_BPF:
        raise LinkError(f"expected a BPF relocatable object, got type {e_type} machine {e_machine}")
    e_shoff = struct.unpack_from("<Q", obj, 40)[0]
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", obj, 58)
    raw = []
    for i in range(e_shnum):
        fields = struct.unpack_from("<IIQQQQIIQQ", obj, e_shoff + i * e_shentsize)
        raw.append(fields)
    shstr = raw[e_shstrndx]
    shstrtab = obj[shstr[4] : shstr[4] + shstr[5]]
    sections = []
    for i, (name, typ, flags, _addr, off, size, link, info, align, _es) in enumerate(raw):
        data = b"" if typ == SHT_NOBITS else obj[off : off + size]
        sections.append(
            _Section(i, _cstr(shstrtab, name), typ, flags, off, size, link, info, align, data)
        )
    parsed = _Object(sections)
    symtabs = [s for s in sections if s.type == SHT_SYMTAB]
    if len(symtabs) != 1:
        raise LinkError("expected exactly one .symtab")
    symtab = symtabs[0]
    strtab = sections[symtab.link].data
    for off in range(0, len(symtab.data), SYM_SIZE):
        st_name, st_info, _other, st_shndx, st_value, st_size = struct.unpack_from(
            "<IBBHQQ", symtab.data, off
        )
        name = _cstr(strtab, st_name)
        if st_info & 0xF == STT_SECTION:
            name = sections[st_shndx].name
        parsed.symbols.append(
            _Symbol(name, st_value, st_size, st_info >> 4, st_info & 0xF, st_shndx)
        )
    return parsed


def _align(value: int, to: int) -> int:
    return (value + to - 1) // to * to


def _place(sections: list[_Section], start: int, min_align: int, place: dict[int, int]) -> int:
    """Lay sections out one after another from ``start``; record each offset, return the end."""
    cursor = start
    for s in sections:
        cursor = _align(cursor, max(s.align, min_align))
        place[s.index] = cursor
        cursor += s.size
    return cursor


class _StrTab:
    """String table with first-come offsets; callers add names in a fixed order."""

    def __init__(self) -> None:
        self.data = bytearray(b"\0")
        self._seen: dict[str, int] = {"": 0}

    def add(self, name: str) -> int:
        if name not in self._seen:
            self._seen[name] = len(self.data)
            self.data += name.encode() + b"\0"
        return self._seen[name]


def link(obj: bytes, entry: str = "entrypoint") -> bytes:
    parsed = _parse(obj)
    secs = parsed.sections

    for s in secs:
        writable = s.flags & SHF_WRITE and s.flags & SHF_ALLOC
        if (writable or s.name.startswith((".data", ".bss"))) and s.size:
            raise LinkError(f"writable section {s.name} is not supported by SBPF")
    text_in = [s for s in secs if s.flags & SHF_EXECINSTR and s.size]
    ro_in = [
        s
        for s in secs
        if s.flags & SHF_ALLOC
        and not s.flags & SHF_EXECINSTR
        and s.name.startswith(".rodata")
        and s.size
    ]
    if not text_in:
        raise LinkError("no code")

    # Layout: ELF header, .text, .rodata, .dynamic, .dynsym, .dynstr, .rel.dyn, .shstrtab,
    # section headers. Address == file offset for every allocated section.
    text_off = _align(EHDR_SIZE, 8)
    place: dict[int, int] = {}  # input section index -> output file offset
    text_end = _place(text_in, text_off, 8, place)
    ro_off = _align(text_end, 8)
    ro_end = _place(ro_in, ro_off, 1, place)

    image = bytearray(ro_end)
    for s in (*text_in, *ro_in):
        image[place[s.index] : place[s.index] + s.size] = s.data

    syscall_sites: list[tuple[int, str]] = []  # (file offset of call insn, syscall name)
    for rel in secs:
        if rel.type != SHT_REL:
            continue
        target = secs[rel.info]
        if target.index not in place:
            if target.flags & SHF_ALLOC:
                raise LinkError(f"relocations against {target.name} are not supported")
            continue  # debug/metadata sections are dropped
        if target not in text_in:
            raise LinkError(f"relocations in {target.name} (pointer tables) are not supported")
        for off in range(0, len(rel.data), REL_SIZE):
            r_offset, r_info = struct.unpack_from("<QQ", rel.data, off)
            r_type, sym = r_info & 0xFFFFFFFF, parsed.symbols[r_info >> 32]
            at = place[target.index] + r_offset
            opcode = image[at]
            if r_type == R_BPF_64_64:
                if opcode != OP_LDDW or sym.shndx not in place:
                    raise LinkError(f"unsupported 64-bit reference to {sym.name}")
                if secs[sym.shndx] in text_in:
                    raise LinkError(f"code address of {sym.name} taken (function pointers)")
                addend = struct.unpack_from("<I", image, at + 4)[0]
                addr = MM_PROGRAM_START + place[sym.shndx] + sym.value + addend
                struct.pack_into("<I", image, at + 4, addr & 0xFFFFFFFF)
                struct.pack_into("<I", image, at + 12, addr >> 32)
            elif r_type == R_BPF_64_32:
                if opcode != OP_CALL:
                    raise LinkError(f"R_BPF_64_32 at {at:#x} is not a call")
                if sym.shndx == SHN_UNDEF:
                    # Only sol_* syscalls exist in the VM: catch memcpy & co. at link time.
                    if not sym.name.startswith("sol_"):
                        raise LinkError(f"undefined symbol {sym.name} is not a syscall")
                    struct.pack_into("<i", image, at + 4, -1)
                    syscall_sites.append((at, sym.name))
                elif sym.type == STT_FUNC and sym.shndx in place:
                    dest = place[sym.shndx] + sym.value
                    struct.pack_into("<i", image, at + 4, (dest - at) // 8 - 1)
                else:
                    raise LinkError(f"call to unsupported symbol {sym.name}")
            else:
                raise LinkError(f"unsupported relocation type {r_type} against {sym.name}")

    entries = [
        s for s in parsed.symbols if s.name == entry and s.type == STT_FUNC and s.shndx in place
    ]
    if len(entries) != 1:
        raise LinkError(f"entrypoint symbol {entry!r} not found")
    entry_sym = entries[0]
    entry_addr = place[entry_sym.shndx] + entry_sym.value

    # .dynsym: null, the entrypoint, then syscalls sorted by name (stable output).
    dynstr = _StrTab()
    dynsym = bytearray(SYM_SIZE)
    text_shndx = 1  # output section index of .text (see headers below)
    dynsym += struct.pack(
        "<IBBHQQ",
        dynstr.add(entry),
        (STB_GLOBAL << 4) | STT_FUNC,
        0,
        text_shndx,
        entry_addr,
        entry_sym.size,
    )
    sym_index: dict[str, int] = {}
    for name in sorted({n for _, n in syscall_sites}):
        sym_index[name] = len(dynsym) // SYM_SIZE
        dynsym += struct.pack("<IBBHQQ", dynstr.add(name), STB_GLOBAL << 4, 0, SHN_UNDEF, 0, 0)
    rel_dyn = bytearray()
    for at, name in sorted(syscall_sites):
        rel_dyn += struct.pack("<QQ", at, (sym_index[name] << 32) | R_BPF_64_32)

    dyn_off = _align(ro_end, 8)
    dynsym_off = dyn_off + 10 * DYN_SIZE  # room for the fixed dynamic table below
    dynstr_off = dynsym_off + len(dynsym)
    reldyn_off = _align(dynstr_off + len(dynstr.data), 8)
    dynamic_entries = [
        (DT_SYMTAB, dynsym_off),
        (DT_SYMENT, SYM_SIZE),
        (DT_STRTAB, dynstr_off),
        (DT_STRSZ, len(dynstr.data)),
    ]
    if rel_dyn:
        dynamic_entries += [
            (DT_REL, reldyn_off),
            (DT_RELSZ, len(rel_dyn)),
            (DT_RELENT, REL_SIZE),
            (DT_TEXTREL, 0),
            (DT_FLAGS, DF_TEXTREL),
        ]
    dynamic_entries.append((DT_NULL, 0))
    dynamic = b"".join(struct.pack("<QQ", tag, val) for tag, val in dynamic_entries)
    dynamic = dynamic.ljust(10 * DYN_SIZE, b"\0")  # trailing DT_NULLs

    shstrtab_off = reldyn_off + len(rel_dyn)
    shstr = _StrTab()
    # (name, type, flags, offset, size, link, info, align, entsize)
    headers: list[tuple[str, int, int, int, int, int, int, int, int]] = [
        ("", SHT_NULL, 0, 0, 0, 0, 0, 0, 0),
        (".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_off, text_end - text_off, 0, 0,
         8, 0),
    ]  # fmt: skip
    if ro_end > ro_off:
        headers.append((".rodata", SHT_PROGBITS, SHF_ALLOC, ro_off, ro_end - ro_off, 0, 0, 8, 0))
    dynstr_idx = len(headers) + 2
    headers += [
        (".dynamic", SHT_DYNAMIC, SHF_ALLOC, dyn_off, len(dynamic), dynstr_idx, 0,
         8, DYN_SIZE),
        (".dynsym", SHT_DYNSYM, SHF_ALLOC, dynsym_off, len(dynsym), dynstr_idx, 1, 8, SYM_SIZE),
        (".dynstr", SHT_STRTAB, SHF_ALLOC, dynstr_off, len(dynstr.data), 0, 0, 1, 0),
    ]  # fmt: skip
    if rel_dyn:
        headers.append(
            (".rel.dyn", SHT_REL, SHF_ALLOC, reldyn_off, len(rel_dyn), dynstr_idx - 1, 0, 8,
             REL_SIZE)
        )  # fmt: skip
    names = [shstr.add(name) for name in (*(h[0] for h in headers), ".shstrtab")]
    shstrtab = bytes(shstr.data)
    shstrtab_idx = len(headers)
    headers.append((".shstrtab", SHT_STRTAB, 0, shstrtab_off, len(shstrtab), 0, 0, 1, 0))
    shoff = _align(shstrtab_off + len(shstrtab), 8)

    out = bytearray(shoff + SHDR_SIZE * len(headers))
    out[: len(image)] = image
    out[dyn_off : dyn_off + len(dynamic)] = dynamic
    out[dynsym_off : dynsym_off + len(dynsym)] = dynsym
    out[dynstr_off : dynstr_off + len(dynstr.data)] = dynstr.data
    out[reldyn_off : reldyn_off + len(rel_dyn)] = rel_dyn
    out[shstrtab_off : shstrtab_off + len(shstrtab)] = shstrtab
    for i, (h, name_off) in enumerate(zip(headers, names, strict=True)):
        _, typ, flags, off, size, lnk, info, align, entsize = h
        addr = off if flags & SHF_ALLOC else 0
        struct.pack_into(
            "<IIQQQQIIQQ", out, shoff + i * SHDR_SIZE,
            name_off, typ, flags, addr, off, size, lnk, info, align, entsize,
        )  # fmt: skip
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)  # 64-bit, LE, v1, SysV ABI
    struct.pack_into(
        "<16sHHIQQQIHHHHHH", out, 0,
        ident, ET_DYN, EM_BPF, 1, entry_addr, 0, shoff, 0,
        EHDR_SIZE, PHDR_SIZE, 0, SHDR_SIZE, len(headers), shstrtab_idx,
    )  # fmt: skip
    return bytes(out)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m devchain.program.sbf_link in.o out.so", file=sys.stderr)
        return 2
    try:
        linked = link(Path(args[0]).read_bytes())
    except LinkError as exc:
        print(f"sbf_link: {exc}", file=sys.stderr)
        return 1
    Path(args[1]).write_bytes(linked)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
