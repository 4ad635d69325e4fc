#!/usr/bin/env python3
"""One module wheel, several torch versions (issue 34): `tlc build --python --wheel` makes a wheel
that links no libtorch, so it should import and register its torch ops under every torch from
2.10 on. Given environments that each hold a torch (CPU machines will do: registration and the
fake and meta kernels need no GPU), this installs the wheel into each and checks there:
  - the package imports and its launchers are there;
  - register_torch_ops defines each op with its schema, the native (stable C ABI) kernel for CUDA
    where the launcher takes only tensors and numbers (the dispatcher's table says so);
  - the op runs on meta tensors and under torch's FakeTensorMode (what torch.compile traces);
  - torch.compile's tracer (torch._dynamo.explain) finds no graph break in a function calling it.

usage: torch_versions.py MODULE_WHEEL PYTHON...   (each PYTHON an environment's interpreter)
Not run by CTest: each environment holds a torch of several GB (scripts/torch-versions makes
them). Exit 0 when every environment passed.
"""

import subprocess
import sys

CHECK = r'''
import sys, torch, vadd
print(f"torch {torch.__version__}: vadd {sorted(vadd.tlc.launchers())}")
ops = vadd.tlc.register_torch_ops("tlcwheel")
op = torch.ops.tlcwheel.vadd
print("schema:", op.default._schema)
table = torch._C._dispatch_dump("tlcwheel::vadd")
cuda = [line for line in table.splitlines() if line.startswith("CUDA")]
print("CUDA kernel:", cuda[0] if cuda else "none")
assert cuda, table
native = "python" not in cuda[0].lower()
print("native kernel (stable C ABI):", native)
n = 64
for device in ("meta",):
    a, b, c = (torch.empty(n, device=device) for _ in range(3))
    assert op(a, b, c, n, grid=[1], block=[n]) is None
print("meta tensors: the op runs (its fake implementation)")
from torch._subclasses.fake_tensor import FakeTensorMode
with FakeTensorMode():
    a, b, c = (torch.empty(n) for _ in range(3))
    op(a, b, c, n, grid=[1], block=[n])
    op(a, b, c, n, grid=1, block=n)  # the dimensions are int[1]: an int is a list of it
    op.default(a, b, c, n, grid=[1, 1], block=n, cluster=1)
print("FakeTensorMode: the op runs, dimensions as lists and as ints")
def f(a, b, c):
    op(a, b, c, n, grid=[1], block=[n])
    op(a, b, c, n, grid=1, block=n)
    return c
try:
    from torch._dynamo import explain
    report = explain(f)(*(torch.empty(n, device="meta") for _ in range(3)))
    print("torch.compile: graph breaks:", report.graph_break_count)
    assert report.graph_break_count == 0
except Exception as error:  # explain's API moves between versions
    print("torch.compile: not checked here:", type(error).__name__, error)
print("OK")
'''


def main(wheel, pythons):
    failed = 0
    for python in pythons:
        installed = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps",
                                    "--force-reinstall", "--disable-pip-version-check", wheel],
                                   capture_output=True, text=True)
        if installed.returncode != 0:
            print(f"{python}: pip failed:\n{installed.stderr}")
            failed = 1
            continue
        checked = subprocess.run([python, "-c", CHECK], capture_output=True, text=True, cwd="/")
        print(checked.stdout, end="")
        if checked.returncode != 0 or "\nOK" not in checked.stdout:
            print(f"{python}: failed:\n{checked.stderr[-3000:]}")
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
