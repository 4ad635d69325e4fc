#!/usr/bin/env python3
"""Forges device images for tests: a copy of an nvcc-built cubin or fat binary with named fields
rewritten, so that a test can hand tlc an image whose every table lies.

usage: imgforge.py INPUT OUTPUT EDIT...

Each EDIT rewrites one field of the copy, in place (the file keeps its size):
  symbol=OLD:NEW                 renames symbol OLD to NEW (same length in bytes; NEW may hold any
                                 byte but NUL, written as \\xNN), in the symbol table's strings
                                 and in the names of the sections named after it (.nv.info.OLD)
  header.FIELD=VALUE             an ELF header field: e_type e_machine e_version e_entry e_phoff
                                 e_shoff e_flags e_ehsize e_phentsize e_phnum e_shentsize e_shnum
                                 e_shstrndx, or ei_class ei_data ei_abiversion
  section[SEL].FIELD=VALUE       a section header field: sh_name sh_type sh_flags sh_addr
                                 sh_offset sh_size sh_link sh_info sh_addralign sh_entsize, of the
                                 section SEL: its name (.symtab), #INDEX, or type=symtab|strtab
  symbol[NAME].FIELD=VALUE       a symbol's st_name st_info st_other st_shndx st_value st_size
  param[KERNEL,ORDINAL].FIELD=VALUE
                                 a parameter record (EIATTR_KPARAM_INFO) of .nv.info.KERNEL:
                                 offset, ordinal, size (a size above 16383 rewrites the record
                                 as the large-parameter form, attribute 0x45, as nvcc writes
                                 kernels of more than 4 KiB), or attribute
  fatbin.FIELD=VALUE             the fat binary's header: magic version header_size size
  fatbin[N].FIELD=VALUE          its entry N's header: kind version header_size payload_size
                                 arch flags
  fatbin[N]:EDIT                 any ELF edit above, made to the cubin in entry N
VALUE is an integer: decimal, 0x hex, or a sum, difference, product or power of them
(2**64-64). A field that does not fit its width, a selector that matches nothing, or a
rename of another length is an error (exit 2), so a test forges exactly what it says.
"""

import ast
import operator
import re
import struct
import sys

ELF_HEADER = {  # ELF64: offset, struct format
    "e_type": (16, "<H"), "e_machine": (18, "<H"), "e_version": (20, "<I"),
    "e_entry": (24, "<Q"), "e_phoff": (32, "<Q"), "e_shoff": (40, "<Q"), "e_flags": (48, "<I"),
    "e_ehsize": (52, "<H"), "e_phentsize": (54, "<H"), "e_phnum": (56, "<H"),
    "e_shentsize": (58, "<H"), "e_shnum": (60, "<H"), "e_shstrndx": (62, "<H"),
    "ei_class": (4, "<B"), "ei_data": (5, "<B"), "ei_abiversion": (8, "<B"),
}
SECTION = {  # Elf64_Shdr, 64 bytes
    "sh_name": (0, "<I"), "sh_type": (4, "<I"), "sh_flags": (8, "<Q"), "sh_addr": (16, "<Q"),
    "sh_offset": (24, "<Q"), "sh_size": (32, "<Q"), "sh_link": (40, "<I"), "sh_info": (44, "<I"),
    "sh_addralign": (48, "<Q"), "sh_entsize": (56, "<Q"),
}
SYMBOL = {  # Elf64_Sym, 24 bytes
    "st_name": (0, "<I"), "st_info": (4, "<B"), "st_other": (5, "<B"), "st_shndx": (6, "<H"),
    "st_value": (8, "<Q"), "st_size": (16, "<Q"),
}
FATBIN = {"magic": (0, "<I"), "version": (4, "<H"), "header_size": (6, "<H"), "size": (8, "<Q")}
FATBIN_ENTRY = {
    "kind": (0, "<H"), "version": (2, "<H"), "header_size": (4, "<I"),
    "payload_size": (8, "<Q"), "arch": (28, "<I"), "flags": (40, "<Q"),
}
SECTION_TYPES = {"null": 0, "progbits": 1, "symtab": 2, "strtab": 3, "nobits": 8}
PARAM_INFO, LARGE_PARAM_INFO, SIZED_FORMAT = 0x17, 0x45, 4


class ForgeError(Exception):
    pass


def value_of(text):
    """An integer expression: literals and + - * ** only."""
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Pow: operator.pow}

    def walk(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        raise ForgeError(f"not an integer expression: {text!r}")

    return walk(ast.parse(text, mode="eval").body)


def put(image, at, fmt, value, what):
    try:
        struct.pack_into(fmt, image, at, value)
    except struct.error as error:
        raise ForgeError(f"{what} = {value}: {error}") from None


def get(image, at, fmt):
    return struct.unpack_from(fmt, image, at)[0]


def elf_check(image):
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        raise ForgeError("not a little-endian ELF64 image")


def sections(image):
    """(index, header offset, name) of every section, names from the section name table."""
    shoff, shnum, shstrndx = get(image, 40, "<Q"), get(image, 60, "<H"), get(image, 62, "<H")
    headers = [shoff + 64 * i for i in range(shnum)]
    names_at = get(image, headers[shstrndx] + 24, "<Q")

    def name(header):
        start = names_at + get(image, header, "<I")
        return bytes(image[start:image.index(b"\0", start)])

    return [(i, at, name(at)) for i, at in enumerate(headers)]


def section_named(image, selector):
    for index, at, name in sections(image):
        if selector.startswith("#") and index == int(selector[1:]):
            return at
        if selector.startswith("type=") and get(image, at + 4, "<I") == \
                SECTION_TYPES[selector[5:]]:
            return at
        if name == selector.encode():
            return at
    raise ForgeError(f"no section {selector}")


def section_bytes(image, header):
    return get(image, header + 24, "<Q"), get(image, header + 32, "<Q")


def symbols(image):
    """(entry offset, name) of every symbol of the symbol table."""
    symtab = section_named(image, "type=symtab")
    offset, size = section_bytes(image, symtab)
    strtab = sections(image)[get(image, symtab + 40, "<I")][1]
    strings, _ = section_bytes(image, strtab)
    out = []
    for at in range(offset, offset + size, 24):
        start = strings + get(image, at, "<I")
        out.append((at, bytes(image[start:image.index(b"\0", start)])))
    return out


def rename(image, old, new):
    if len(old) != len(new) or b"\0" in new:
        raise ForgeError(f"a rename keeps the length ({len(old)} bytes, not {len(new)}) and "
                         "holds no NUL")
    renamed = 0
    for pattern in (b"\0" + old + b"\0", b"." + old + b"\0"):
        at = image.find(pattern)
        while at >= 0:
            image[at + 1:at + 1 + len(old)] = new
            renamed += 1
            at = image.find(pattern, at + 1)
    if not renamed:
        raise ForgeError(f"no symbol {old!r}")


def param_record(image, kernel, ordinal):
    """The offset of the payload of parameter `ordinal`'s record in .nv.info.<kernel>."""
    header = section_named(image, ".nv.info." + kernel)
    offset, size = section_bytes(image, header)
    at = offset
    while at + 4 <= offset + size:
        fmt, attribute, value = image[at], image[at + 1], get(image, at + 2, "<H")
        if fmt == SIZED_FORMAT and attribute in (PARAM_INFO, LARGE_PARAM_INFO) and \
                get(image, at + 4 + 4, "<H") == ordinal:
            return at
        at += 4 + (value if fmt == SIZED_FORMAT else 0)
    raise ForgeError(f"no record of parameter {ordinal} of {kernel}")


def edit_param(image, kernel, ordinal, field, value):
    at = param_record(image, kernel, int(ordinal))
    payload = at + 4
    if field == "offset":
        put(image, payload + 6, "<H", value, field)
    elif field == "ordinal":
        put(image, payload + 4, "<H", value, field)
    elif field == "attribute":
        put(image, at + 1, "<B", value, field)
    elif field == "size":
        if value < (1 << 14) and image[at + 1] == PARAM_INFO:
            flags = get(image, payload + 8, "<I") & ((1 << 18) - 1)
            put(image, payload + 8, "<I", flags | (value << 18), field)
        else:
            image[at + 1] = LARGE_PARAM_INFO
            put(image, payload + 8, "<I", value, field)
    else:
        raise ForgeError(f"no parameter field {field}")


def fatbin_entries(image):
    """The offset of each entry's header."""
    if get(image, 0, "<I") != 0xBA55ED50:
        raise ForgeError("not a fat binary")
    start = get(image, 6, "<H")
    end = start + get(image, 8, "<Q")
    out, at = [], start
    while at < end:
        out.append(at)
        at += get(image, at + 4, "<I") + get(image, at + 8, "<Q")
    return out


def field_edit(table, base, name, value, image, what):
    if name not in table:
        raise ForgeError(f"no field {name} in {what} (fields: {', '.join(table)})")
    offset, fmt = table[name]
    put(image, base + offset, fmt, value, f"{what}.{name}")


def apply_elf(image, edit):
    elf_check(image)
    if edit.startswith("symbol="):
        old, _, new = edit[len("symbol="):].partition(":")
        decode = lambda text: text.encode("latin-1").decode("unicode_escape").encode("latin-1")
        rename(image, decode(old), decode(new))
        return
    target, _, value = edit.rpartition("=")
    value = value_of(value)
    match = re.fullmatch(r"(header|section\[(.+)\]|symbol\[(.+)\]|param\[(.+),(\d+)\])\.(\w+)",
                         target)
    if not match:
        raise ForgeError(f"not an edit: {edit}")
    field = match.group(6)
    if match.group(1) == "header":
        field_edit(ELF_HEADER, 0, field, value, image, "header")
    elif match.group(2) is not None:
        field_edit(SECTION, section_named(image, match.group(2)), field, value, image, "section")
    elif match.group(3) is not None:
        found = [at for at, name in symbols(image) if name == match.group(3).encode()]
        if not found:
            raise ForgeError(f"no symbol {match.group(3)}")
        field_edit(SYMBOL, found[0], field, value, image, "symbol")
    else:
        edit_param(image, match.group(4), match.group(5), field, value)


def apply(image, edit):
    match = re.fullmatch(r"fatbin(\[(\d+)\])?(\.(\w+)=(.+)|:(.+))", edit, re.S)
    if not match:
        return apply_elf(image, edit)
    entries = fatbin_entries(image)
    if match.group(2) is None:
        field_edit(FATBIN, 0, match.group(4), value_of(match.group(5)), image, "fatbin")
        return
    index = int(match.group(2))
    if index >= len(entries):
        raise ForgeError(f"no fat binary entry {index} (it has {len(entries)})")
    at = entries[index]
    if match.group(6) is None:
        field_edit(FATBIN_ENTRY, at, match.group(4), value_of(match.group(5)), image,
                   f"fatbin[{index}]")
        return
    start = at + get(image, at + 4, "<I")
    end = start + get(image, at + 8, "<Q")
    cubin = bytearray(image[start:end])
    apply_elf(cubin, match.group(6))
    image[start:end] = cubin


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], "rb") as source:
        image = bytearray(source.read())
    try:
        for edit in argv[2:]:
            apply(image, edit)
    except (ForgeError, ValueError, IndexError, SyntaxError) as error:
        print(f"imgforge: {error}", file=sys.stderr)
        return 2
    with open(argv[1], "wb") as out:
        out.write(image)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
