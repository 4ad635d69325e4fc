"""On the GPU machine (scripts/gpu-test item `wheel`): tlc's wheel, made on a machine with LLVM,
installed where there is none, next to torch and CuPy; tlc.build(source=...) compiles for this
GPU (arch=None asks the driver) and the kernel launches from torch and CuPy, checked against a
reference; a module's wheel made elsewhere (--wheel) installs and launches too.

usage: python3 wheel_gpu.py TLC_WHEEL MODULE_WHEEL   (the module wheel: samples/vadd's)
Exit 0 when every check passed; prints one line per check.
"""

import glob
import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap

SAXPY = textwrap.dedent("""\
    extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = a * x[i] + y[i];
    }
    """)

CHECKS = textwrap.dedent("""\
    import sys, time
    started = time.perf_counter()
    import tlc
    kernels = tlc.build(source=sys.argv[1], entry="saxpy")
    built = time.perf_counter() - started
    print(f"tlc.build: {kernels.__name__} for {kernels.tlc.image_target()} in {built:.3f} s")
    assert kernels.tlc.image_target() == "sm_90a", kernels.tlc.image_target()
    n = 1 << 20
    import torch
    x = torch.arange(n, device="cuda", dtype=torch.float32)
    y = torch.ones(n, device="cuda")
    expected = 3.0 * x + y
    kernels.saxpy(3.0, x, y, n, grid=(n + 255) // 256, block=256)
    torch.cuda.synchronize()
    assert torch.equal(y, expected), "torch: wrong result"
    print("torch: saxpy correct")
    import cupy
    cx = cupy.arange(n, dtype=cupy.float32)
    cy = cupy.ones(n, dtype=cupy.float32)
    kernels.saxpy(2.0, cx, cy, n, grid=(n + 255) // 256, block=256)
    cupy.cuda.get_current_stream().synchronize()
    assert bool((cy == 2.0 * cupy.arange(n, dtype=cupy.float32) + 1).all()), "cupy: wrong"
    print("cupy: saxpy correct")
    import vadd  # the module wheel
    a = torch.rand(n, device="cuda"); b = torch.rand(n, device="cuda"); c = torch.empty_like(a)
    vadd.vadd(a, b, c, n, grid=(n + 255) // 256, block=256)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b), "module wheel: wrong result"
    print(f"module wheel: vadd correct ({vadd.tlc.image_target()}, from {vadd.__file__})")
    vadd.tlc.register_torch_ops("tlcwheel")
    c.zero_()
    torch.ops.tlcwheel.vadd(a, b, c, n, grid=[(n + 255) // 256], block=[256])
    torch.cuda.synchronize()
    assert torch.equal(c, a + b), "module wheel's torch op: wrong result"
    print("module wheel: its torch op correct")
    """)


def see_our_packages(python):
    """Lets the venv of `python` import what this interpreter's environment holds (torch, CuPy):
    --system-site-packages reaches the base interpreter's, not a venv's, and this interpreter
    may be one. A .pth file of this environment's folders, after the venv's own."""
    ours = {sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")}
    theirs = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(theirs, "gpu-machine-packages.pth"), "w") as pth:
        pth.write("".join(folder + "\n" for folder in sorted(ours)))


def main(tlc_wheel, module_wheel):
    venv = tempfile.mkdtemp(prefix="tlc-wheel-venv-")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    see_our_packages(python)
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--disable-pip-version-check", tlc_wheel, module_wheel], check=True)
    tlc = os.path.join(venv, "bin", "tlc")
    print(subprocess.run([tlc, "--version"], capture_output=True, text=True).stdout.strip())
    ldd = subprocess.run(["ldd", tlc], capture_output=True, text=True).stdout
    assert "LLVM" not in ldd and "clang" not in ldd, ldd
    env = dict(os.environ, TLC_CACHE_DIR=os.path.join(venv, "cache"))
    result = subprocess.run([python, "-c", CHECKS, SAXPY], env=env, capture_output=True,
                            text=True, cwd="/")
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    if result.returncode != 0:
        return 1
    again = subprocess.run([python, "-c", CHECKS, SAXPY], env=env, capture_output=True,
                           text=True, cwd="/")
    print("second process:", again.stdout.splitlines()[0] if again.stdout else again.stderr)
    return again.returncode


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
