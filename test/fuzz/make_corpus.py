#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora, test/fuzz/corpus/<fuzzer>/, from nvcc and imgforge.py.

usage: test/fuzz/make_corpus.py [--nvcc PATH]

Real images: nvcc 13's cubins of seeds.cu (sm_90a, sm_80), a --no-compress fat binary (an sm_80
cubin and compute_90 PTX), that fat binary in host objects (gcc's empty object, objcopy
--add-section .nv_fatbin or __nv_relfatbin, as `nvcc -c` embeds it), PTX, and the .nv.info.<kernel> sections of those cubins (one with a
by-value struct of more than 4 KiB, whose records take the large form). Forged ones: copies with
one table lying (test/images/imgforge.py: offsets and sizes past the end, sizes that wrap,
overlapping or missing parameters, a misaligned fat binary entry, a name of terminal escapes).
Hand-written PTX covers the parameter lists readPtx reads and those it refuses. The seeds are
committed; run this again only to change them (it replaces the files it writes, by name, and
leaves others alone).
"""

import argparse
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")

spec = importlib.util.spec_from_file_location("imgforge", os.path.join(ROOT, "test/images/imgforge.py"))
imgforge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(imgforge)

CUBIN_FORGERIES = {
    "symtab-offset-past-eof": ["section[type=symtab].sh_offset=2**20"],
    "symtab-size-wraps": ["section[type=symtab].sh_size=2**64-8"],
    "symtab-size-not-a-multiple": ["section[type=symtab].sh_size=24*3+1"],
    "symtab-entsize-zero": ["section[type=symtab].sh_entsize=0"],
    "symtab-link-out-of-range": ["section[type=symtab].sh_link=0xffff"],
    "section-headers-past-eof": ["header.e_shoff=2**63"],
    "many-section-headers": ["header.e_shnum=0xffff"],
    "shstrndx-out-of-range": ["header.e_shstrndx=0xfff0"],
    "elf32": ["header.ei_class=1"],
    "abi-version-1": ["header.ei_abiversion=7"],
    "not-cuda": ["header.e_machine=62"],
    "nv-info-offset-past-eof": ["section[.nv.info.vadd].sh_offset=2**32"],
    "nv-info-size-odd": ["section[.nv.info.vadd].sh_size=7"],
    "compat-size-wraps": ["section[.nv.compat].sh_size=2**64-1"],
    "param-of-0xffffffff-bytes": ["param[vadd,1].size=0xffffffff"],
    "params-overlap": ["param[vadd,0].size=16383", "param[vadd,1].offset=8"],
    "param-ordinal-gap": ["param[vadd,1].ordinal=7"],
    "param-ordinal-twice": ["param[vadd,1].ordinal=0"],
    "param-record-unknown": ["param[vadd,2].attribute=0x99"],
    "symbol-name-past-strtab": ["symbol[vadd].st_name=0xffffff"],
    "symbol-not-an-entry": ["symbol[vadd].st_other=0"],
    "symbol-escapes": ["symbol=vadd:\\x1b[2J"],
}

FATBIN_FORGERIES = {
    "size-past-eof": ["fatbin.size=2**20"],
    "size-wraps": ["fatbin.size=2**64-16"],
    "header-size-short": ["fatbin.header_size=4"],
    "entry-payload-wraps": ["fatbin[1].payload_size=2**64-64"],
    # Entry 1's header is 80 bytes: a reader that summed the sizes would come back to it forever.
    "entry-payload-wraps-to-itself": ["fatbin[1].payload_size=2**64-80"],
    "entry-header-past-end": ["fatbin[1].header_size=2**32-1"],
    "entry-header-short": ["fatbin[0].header_size=8"],
    # The cubin's payload one byte later: in place, read at an odd address.
    "entry-header-misaligns-cubin": ["fatbin[0].header_size=65", "fatbin[0].payload_size=6439"],
    "entry-kind-unknown": ["fatbin[0].kind=3"],
    "entry-arch-specific": ["fatbin[1].flags=0x100000"],
    "cubin-symtab-offset-past-eof": ["fatbin[0]:section[type=symtab].sh_offset=2**20"],
    "cubin-symtab-entsize-zero": ["fatbin[0]:section[type=symtab].sh_entsize=0"],
    "cubin-param-of-0xffffffff-bytes": ["fatbin[0]:param[vadd,1].size=0xffffffff"],
}

PTX = {
    "kinds": """.version 8.0
.target sm_90a
.address_size 64
.visible .entry strong(.param .u64 p, .param .u32 n) { ret; }
.weak .entry weak_one(.param .align 16 .b8 s[24], .param .f64 d) { ret; }
.entry local_one() { ret; }
.entry no_list { ret; }
""",
    "pointer-attributes": """.version 8.0
.target sm_80
.visible .entry k(
\t.param .u64 .ptr .global .align 1 k_p,
\t.param .u64 .ptr .shared .align 16 k_q,
\t.param .b8 k_bytes[3],
\t.param .u16 k_h
)
{
\tret;
}
""",
    "unreadable-lists": """.target sm_80
.visible .entry pred(.param .pred p) { ret; }
.visible .entry align3(.param .align 3 .b8 a[4]) { ret; }
.visible .entry reg(.reg .u32 r) { ret; }
.visible .entry dims(.param .b8 a[2][2]) { ret; }
""",
    "too-large": """.target sm_90
.visible .entry huge(.param .align 8 .b8 a[32768]) { ret; }
.visible .entry past(.param .b8 a[32760], .param .u64 b) { ret; }
.visible .entry wide(.param .align 4294967296 .b8 a[1]) { ret; }
""",
    "lists-never-close": """.target sm_80
.visible .entry a(.param .u64 x,
.visible .entry b(.param .u64 y,
.entry c(
""",
}

# Written by hand in the record format builder/DeviceImage.h describes.
def record(attribute, payload):
    return struct.pack("<BBH", 4, attribute, len(payload)) + payload


def param_info(index, ordinal, offset, size):
    return record(0x17, struct.pack("<IHHI", index, ordinal, offset, size << 18))


NVINFO = {
    "bank-and-two-params": record(0x0a, struct.pack("<IHH", 0, 0x210, 12)) +
    param_info(0, 1, 8, 4) + param_info(0, 0, 0, 8) + struct.pack("<BBH", 3, 0x1b, 0xff),
    "truncated-record": record(0x17, b"\0" * 12)[:10],
    "bank-too-short": record(0x0a, b"\0" * 4),
    "format-zero": b"\0\0\0\0",
}


def run(*command):
    subprocess.run(command, check=True)


def write(fuzzer, name, data):
    folder = os.path.join(CORPUS, fuzzer)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data)


def forge(image, edits):
    image = bytearray(image)
    for edit in edits:
        imgforge.apply(image, edit)
    return bytes(image)


def info_sections(cubin):
    out = {}
    for _, header, name in imgforge.sections(bytearray(cubin)):
        if name.startswith(b".nv.info."):
            offset, size = imgforge.section_bytes(bytearray(cubin), header)
            out[name[len(".nv.info."):].decode()] = cubin[offset:offset + size]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nvcc", default=os.path.join(
        os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc"))
    args = parser.parse_args()
    source = os.path.join(HERE, "seeds.cu")
    with tempfile.TemporaryDirectory() as work:
        def nvcc(*options, out):
            path = os.path.join(work, out)
            run(args.nvcc, *options, source, "-o", path)
            with open(path, "rb") as image:
                return image.read()

        sm90a = nvcc("-cubin", "-arch=sm_90a", out="sm90a.cubin")
        sm80 = nvcc("-cubin", "-arch=sm_80", out="sm80.cubin")
        big = nvcc("-cubin", "-arch=sm_90", "-DSEEDS_BIG", out="big.cubin")
        fatbin = nvcc("-fatbin", "--no-compress", "-gencode", "arch=compute_80,code=sm_80",
                      "-gencode", "arch=compute_90,code=compute_90", out="seeds.fatbin")
        ptx = nvcc("-ptx", "-arch=sm_80", out="seeds.ptx")
        # Host objects as `nvcc -c` makes them hold device code, without the host code: an empty
        # object with the fat binary added as .nv_fatbin (whole-program) or __nv_relfatbin.
        empty = os.path.join(work, "empty.o")
        run("gcc", "-c", "-x", "c", os.devnull, "-o", empty)
        objects = {}
        for section in (".nv_fatbin", "__nv_relfatbin"):
            path = os.path.join(work, section + ".o")
            run("objcopy", "--add-section", f"{section}={os.path.join(work, 'seeds.fatbin')}",
                empty, path)
            with open(path, "rb") as image:
                objects[section] = image.read()

    write("cubin", "nvcc-sm90a", sm90a)
    write("cubin", "nvcc-sm80", sm80)
    for name, edits in CUBIN_FORGERIES.items():
        write("cubin", "forged-" + name, forge(sm90a, edits))

    write("fatbin", "nvcc-sm80-compute90", fatbin)
    for name, edits in FATBIN_FORGERIES.items():
        write("fatbin", "forged-" + name, forge(fatbin, edits))
    write("fatbin", "nvcc-cubin-sm90a", sm90a)
    write("fatbin", "host-object-nv_fatbin", objects[".nv_fatbin"])
    write("fatbin", "host-object-nv_relfatbin", objects["__nv_relfatbin"])

    write("ptx", "nvcc-sm80", ptx)
    shutil.copyfile(os.path.join(ROOT, "test/fixtures/images/scale.ptx.in"),
                    os.path.join(CORPUS, "ptx", "fixture-scale"))
    for name, text in PTX.items():
        write("ptx", "hand-" + name, text.encode())

    for cubin, prefix in ((sm90a, "nvcc-sm90a-"), (big, "nvcc-big-")):
        for kernel, section in info_sections(cubin).items():
            if prefix == "nvcc-big-" and kernel != "big":
                continue
            write("nvinfo", prefix + kernel, section)
    for name, data in NVINFO.items():
        write("nvinfo", "hand-" + name, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
