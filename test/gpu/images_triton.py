"""gpu-test item `images_triton`: a Triton kernel's cubin (test/images/triton_producer.py) launched
through the Python package tlc built from it and its declarations, against torch and against
Triton's own launch of the same kernel.

usage: images_triton.py BUNDLE_ITEM FACTS_DIR
  BUNDLE_ITEM   the folder gpu-test prepared (BUNDLE_ITEM/scale_add/__init__.py)
  FACTS_DIR     the folder holding the producer's scale_add.triton.json (launch facts)
Exit 0: passed; 1: failed; 77: skipped (no torch or CUDA device).
"""

import json
import pathlib
import sys

if len(sys.argv) != 3:
    print(__doc__)
    sys.exit(2)
sys.path.insert(0, sys.argv[1])
try:
    import torch
except ImportError:
    print("SKIP: images_triton: no torch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: images_triton: no CUDA device")
    sys.exit(77)
import scale_add  # noqa: E402  (the package tlc built)

facts = json.loads((pathlib.Path(sys.argv[2]) / "scale_add.triton.json").read_text())
BLOCK = facts["constexprs"]["BLOCK"]
failures = 0


def expect(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'}: {what}")
    failures += 0 if ok else 1


def scratch_arguments(programs):
    """Triton's scratch pointers: a buffer of size * programs where the kernel asks for one."""
    arguments = []
    for name in facts["scratch"]:
        size = facts.get(f"{name}_size") or 0
        arguments.append(torch.empty(size * programs, dtype=torch.uint8, device="cuda")
                         if size else None)
    return arguments


print(f"Triton {facts['triton']}, {facts['name']}: block {facts['block']}, shared "
      f"{facts['shared']} bytes, scratch {facts['scratch']}")
for n in (1, 1000, 1_000_003):
    torch.manual_seed(n)
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    alpha = 0.75
    programs = (n + BLOCK - 1) // BLOCK
    launcher = getattr(scale_add, facts["name"])
    launcher(x, y, out, n, alpha, *scratch_arguments(programs), grid=programs,
             block=facts["block"], shared_mem=facts["shared"] or 0)
    torch.cuda.synchronize()
    expected = alpha * x + y
    expect(torch.allclose(out, expected, rtol=1e-6, atol=1e-6),
           f"n={n}: the tlc launcher of Triton's cubin gives alpha * x + y "
           f"(max error {(out - expected).abs().max().item():.3g})")

try:
    import triton  # noqa: F401
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "images"))
    import triton_producer  # the same kernel, launched by Triton itself
    n = 123_457
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    ours = torch.empty_like(x)
    theirs = torch.empty_like(x)
    programs = (n + BLOCK - 1) // BLOCK
    getattr(scale_add, facts["name"])(x, y, ours, n, 2.0, *scratch_arguments(programs),
                                       grid=programs, block=facts["block"],
                                       shared_mem=facts["shared"] or 0)
    triton_producer.scale_add[(programs,)](x, y, theirs, n, 2.0, BLOCK=BLOCK,
                                           num_warps=facts["num_warps"])
    torch.cuda.synchronize()
    expect(torch.equal(ours, theirs), "bit for bit what Triton's own launch computes")
except ImportError:
    print("SKIP: comparison with Triton's own launch (no Triton here)")

print(f"{'FAIL' if failures else 'PASS'}: images_triton ({failures} failed check(s))")
sys.exit(1 if failures else 0)
