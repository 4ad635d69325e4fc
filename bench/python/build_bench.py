#!/usr/bin/env python3
"""bench/python/build_bench.py: building a kernel from Python, side by side in one run (GPU machine).

For one saxpy kernel: tlc.build(source=...) against torch.utils.cpp_extension.load_inline (the
kernel and a C++ launcher taking tensors, built by torch's ninja and nvcc), CuPy's
RawModule(code=...).get_function (NVRTC), and `nvcc -fatbin -arch=sm_90a` of the same source
(what tlc runs; the floor of a build from a file). Each side runs in a new process, timed inside
it around the call that makes the kernel usable (the frameworks' own imports are not counted;
tlc's is):
  cold  every cache empty (TLC_CACHE_DIR, TORCH_EXTENSIONS_DIR, CUPY_CACHE_DIR fresh)
  warm  the same call again in a new process, the caches kept
The median of --runs runs for each, sides interleaved. Targets (issue 34): tlc cold <= 1.1x
nvcc -fatbin; tlc warm <= 50 ms and below both peers' warm.

usage: build_bench.py [--runs N]     (needs torch, CuPy, nvcc and tlc's wheel installed)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

KERNEL = textwrap.dedent("""\
    extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = a * x[i] + y[i];
    }
    """)

TORCH_LAUNCHER = textwrap.dedent("""\
    #include <torch/extension.h>
    void saxpy_launch(double a, torch::Tensor x, torch::Tensor y) {
      int n = x.numel();
      saxpy<<<(n + 255) / 256, 256>>>((float)a, x.data_ptr<float>(), y.data_ptr<float>(), n);
    }
    """)

SIDES = {
    "tlc.build": """
import time; t = time.perf_counter()
import tlc
m = tlc.build(source=KERNEL, entry="saxpy", arch="sm_90a")
print(time.perf_counter() - t)
""",
    "load_inline": """
import torch, torch.utils.cpp_extension as ext, time
t = time.perf_counter()
m = ext.load_inline("saxpy_ext", cpp_sources="void saxpy_launch(double a, torch::Tensor x, torch::Tensor y);",
                    cuda_sources=KERNEL + LAUNCHER, functions=["saxpy_launch"],
                    extra_cuda_cflags=["-gencode=arch=compute_90a,code=sm_90a"])
print(time.perf_counter() - t)
""",
    "RawModule": """
import cupy, time
t = time.perf_counter()
f = cupy.RawModule(code=KERNEL, options=("--gpu-architecture=sm_90a",)).get_function("saxpy")
print(time.perf_counter() - t)
""",
}


def timed(side, env):
    code = f"KERNEL = {KERNEL!r}\nLAUNCHER = {TORCH_LAUNCHER!r}\n" + SIDES[side]
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{side} failed:\n{result.stderr[-2000:]}")
    return float(result.stdout.strip().splitlines()[-1])


def nvcc_fatbin(folder):
    source = os.path.join(folder, "saxpy.cu")
    with open(source, "w") as out:
        out.write(KERNEL)
    started = time.perf_counter()
    subprocess.run([os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc"),
                    "-fatbin", "-arch=sm_90a", source, "-o", source + ".fatbin"], check=True)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cold = {side: [] for side in list(SIDES) + ["nvcc -fatbin"]}
    warm = {side: [] for side in SIDES}
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as scratch:
            env = dict(os.environ, TLC_CACHE_DIR=scratch + "/tlc",
                       TORCH_EXTENSIONS_DIR=scratch + "/torch", CUPY_CACHE_DIR=scratch + "/cupy",
                       CUPY_CACHE_IN_MEMORY="0")
            cold["nvcc -fatbin"].append(nvcc_fatbin(scratch))
            for side in SIDES:
                cold[side].append(timed(side, env))
            for side in SIDES:
                warm[side].append(timed(side, env))
    rows = []
    for side, values in cold.items():
        rows.append((f"cold {side}", statistics.median(values), min(values), max(values)))
    for side, values in warm.items():
        rows.append((f"warm {side}", statistics.median(values), min(values), max(values)))
    print(f"{'':28} {'median s':>10} {'min':>8} {'max':>8}")
    for name, median, low, high in rows:
        print(f"{name:28} {median:10.3f} {low:8.3f} {high:8.3f}")
    median = {name: value for name, value, _, _ in rows}
    ratios = {
        "cold tlc.build / nvcc -fatbin (target <= 1.1)":
            median["cold tlc.build"] / median["cold nvcc -fatbin"],
        "warm tlc.build, ms (target <= 50)": 1000 * median["warm tlc.build"],
        "warm tlc.build / warm load_inline": median["warm tlc.build"] / median["warm load_inline"],
        "warm tlc.build / warm RawModule": median["warm tlc.build"] / median["warm RawModule"],
        "cold tlc.build / cold load_inline": median["cold tlc.build"] / median["cold load_inline"],
    }
    for name, value in ratios.items():
        print(f"{name:50} {value:8.3f}")
    print(json.dumps({"rows": rows, "ratios": ratios}))


if __name__ == "__main__":
    main()
