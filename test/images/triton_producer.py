#!/usr/bin/env python3
"""Compiles a small Triton kernel to a cubin for this machine's GPU, for tlc to launch: the
producer of the gpu-test item `images_triton` (docs/images.md). Runs where Triton, torch and a
GPU are; tlc need not be there.

usage: triton_producer.py OUTDIR
Writes into OUTDIR:
  scale_add.cubin        Triton's cubin (compiled.asm["cubin"]) for the local GPU
  scale_add.h            the kernel's declaration for tlc: the Triton signature's parameters, then
                         the pointer parameters Triton appends (global and profile scratch)
  scale_add.triton.json  Triton's metadata (name, num_warps, shared, scratch sizes), the
                         constexprs and the launch rule, for the test that launches it
Exit 0: written; 77: skipped (no Triton, torch or CUDA device); 1: failed.
"""

import json
import pathlib
import re
import sys


def skip(why):
    print(f"SKIP: triton_producer: {why}")
    sys.exit(77)


try:
    import torch
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
except ImportError as error:
    skip(f"cannot import Triton and torch ({error})")
if not torch.cuda.is_available():
    skip("no CUDA device")


@triton.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32",
             "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 1024}
NUM_WARPS = 4

# Triton's types as C declares them, and the PTX parameter types they become.
C_TYPES = {"*fp32": "float*", "i32": "int", "u32": "unsigned int", "i64": "long long",
           "fp32": "float", "fp64": "double"}
PTX_TYPES = {"*fp32": {"u64", "b64"}, "i32": {"u32", "s32", "b32"}, "u32": {"u32", "b32"},
             "i64": {"u64", "s64", "b64"}, "fp32": {"f32", "b32"}, "fp64": {"f64", "b64"}}


def compile_kernel():
    major, minor = torch.cuda.get_device_capability()
    target = GPUTarget("cuda", major * 10 + minor, 32)
    # Triton 3.x takes constexprs by name; some releases key them by argument index tuples.
    names = list(SIGNATURE)
    attempts = [CONSTEXPRS, {(names.index(k),): v for k, v in CONSTEXPRS.items()}]
    last = None
    for constexprs in attempts:
        try:
            source = ASTSource(fn=scale_add, signature=SIGNATURE, constexprs=constexprs)
            return triton.compile(source, target=target, options={"num_warps": NUM_WARPS})
        except (TypeError, KeyError, ValueError, AssertionError) as error:
            last = error
    raise SystemExit(f"triton_producer: triton.compile failed: {last}")


def ptx_parameters(ptx, name):
    """The .param types of the .entry `name` in Triton's PTX: the kernel's real parameter list."""
    entry = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not entry:
        raise SystemExit(f"triton_producer: no .entry {name} in Triton's PTX")
    return re.findall(r"\.param\s+\.(\w+)", entry.group(1))


def declaration(name, ptx_types):
    user = [(arg, ty) for arg, ty in SIGNATURE.items() if ty != "constexpr"]
    if len(ptx_types) < len(user):
        raise SystemExit(f"triton_producer: {name} has {len(ptx_types)} PTX parameters, fewer "
                         f"than its {len(user)} Triton arguments")
    params = []
    for (arg, ty), ptx_type in zip(user, ptx_types):
        if ptx_type not in PTX_TYPES[ty]:
            raise SystemExit(f"triton_producer: {arg} ({ty}) is .{ptx_type} in the PTX")
        params.append(f"{C_TYPES[ty]} {arg}")
    extra = ptx_types[len(user):]
    if any(t not in ("u64", "b64") for t in extra):
        raise SystemExit(f"triton_producer: trailing PTX parameters {extra} are not pointers")
    scratch = (["global_scratch", "profile_scratch"] if len(extra) <= 2 else
               [f"scratch{i}" for i in range(len(extra))])[:len(extra)]
    params += [f"void* {s}" for s in scratch]
    return params, scratch


def main():
    if len(sys.argv) != 2:
        print("usage: triton_producer.py OUTDIR", file=sys.stderr)
        return 2
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    compiled = compile_kernel()
    metadata = compiled.metadata._asdict() if hasattr(compiled.metadata, "_asdict") else \
        dict(compiled.metadata)
    name = metadata.get("name", "scale_add")
    ptx_types = ptx_parameters(compiled.asm["ptx"], name)
    params, scratch = declaration(name, ptx_types)
    (out / "scale_add.cubin").write_bytes(compiled.asm["cubin"])
    (out / "scale_add.h").write_text(
        f"// {name}: a Triton {triton.__version__} kernel compiled for this GPU by\n"
        f"// test/images/triton_producer.py. The parameters after the Triton signature's are the\n"
        f"// scratch pointers Triton appends to every kernel (null where their size is 0).\n"
        f"#pragma once\n\n"
        f"extern \"C\" __global__ void {name}({', '.join(params)});\n")
    facts = {key: metadata.get(key) for key in
             ("name", "num_warps", "num_ctas", "shared", "global_scratch_size",
              "global_scratch_align", "profile_scratch_size", "profile_scratch_align")}
    facts.update(triton=triton.__version__, constexprs=CONSTEXPRS, signature=SIGNATURE,
                 scratch=scratch, ptx_parameters=ptx_types,
                 block=32 * metadata.get("num_warps", NUM_WARPS),
                 grid="ceil(n / BLOCK) programs along x", target=str(metadata.get("target")))
    (out / "scale_add.triton.json").write_text(json.dumps(facts, indent=2, default=str) + "\n")
    print(f"triton_producer: wrote {name} ({', '.join(params)}) to {out}")
    print(json.dumps(facts, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
