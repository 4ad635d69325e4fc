"""bench/python/callgrind.py: the instructions one launch from Python costs in tlc's binding,
counted by valgrind's callgrind (repeatable, unlike a timer) on a machine without a GPU: the
launches go to the fake CUDA driver (test/fake_cuda, through TLC_TEST_LIBCUDA), the arrays are
stand-ins written in C (standins.c: a torch.Tensor with C methods, a CuPy-like array whose
__cuda_array_interface__ builds a new dict per read), so what is counted is the binding's work
and not a Python stand-in's.

For each tlc given (--tlc, and --baseline to compare, e.g. a build of the previous commit), the
script builds bench/python/kernels.cu with --python, then counts per call, for each variant:

  call       the whole call from Python: everything counted in a loop of N calls, over N
  function   inside the extension's function for the launcher (launch_<kernel>, inclusive)
  launcher   of which the typed C launcher and the fake driver (pybench_<kernel>, inclusive)
  binding    function - launcher: argument parsing, arrays, options (what the binding costs)

Variants: empty4 (const float*, float*, int, float; bench/python/bench.py's kernel), quad (four
float pointers) and quad_any (four void pointers: what the element type check costs is quad's
count minus quad_any's), with ints, torch-like tensors (the stream is torch's current stream),
the same with stream=, the same through DLPack's C exchange API (as torch from 2.10 reads), and
CuPy-like arrays.

usage: callgrind.py --tlc BUILD/bin/tlc --fake-cuda BUILD/lib/libtlc_fake_cuda.so
                    [--baseline OTHER/bin/tlc] [--calls N] [--work DIR]
Needs valgrind, a C compiler (cc) and the Python headers of the interpreter running it.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the repository: python/src/DlpackExchange.h

# "<kernel> <arguments>": the worker below knows each.
VARIANTS = [
    "empty4 ints",
    "empty4 torch",
    "empty4 torch stream=",
    "empty4 torch exchange",
    "empty4 cuda_array_interface",
    "quad ints",
    "quad torch",
    "quad torch stream=",
    "quad torch exchange",
    "quad cuda_array_interface",
    "quad_any torch",
    "quad_any cuda_array_interface",
]


# ---- the worker: runs under valgrind ----------------------------------------------------------


class DType:
    """A torch.dtype stand-in: the binding reads a dtype's name from str() once per object."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


def install_torch(standins):
    import types

    torch = types.ModuleType("torch")
    torch._C = types.ModuleType("torch._C")
    torch._C._cuda_getCurrentRawStream = standins.current_stream
    torch.Tensor = standins.Tensor
    torch.float32 = DType("float32")
    sys.modules["torch"] = torch
    sys.modules["torch._C"] = torch._C
    return torch


def call_of(pybench, standins, torch, variant):
    """The launcher, its four arguments, and whether the call passes stream=."""
    kernel, kind = variant.split(" ", 1)
    base = 0x10000000
    if kind == "ints":
        arrays = [base + i * 0x1000 for i in range(4)]
    elif kind.startswith("torch"):
        tensor = standins.ExchangeTensor if kind.endswith("exchange") else standins.Tensor
        arrays = [tensor(base + i * 0x1000, 0, torch.float32) for i in range(4)]
    else:
        arrays = [standins.CudaArray(base + i * 0x1000) for i in range(4)]
    arguments = (arrays[0], arrays[1], 1 << 20, 1.0) if kernel == "empty4" else tuple(arrays)
    return getattr(pybench, kernel), arguments, kind == "torch stream="


def loop(function, arguments, stream, calls):
    """`calls` calls as a program writes them: keywords spelled in the call (a vectorcall with
    keyword names, not a dict), as bench/python/bench.py calls."""
    a, b, c, d = arguments
    if stream:
        for _ in range(calls):
            function(a, b, c, d, grid=1, block=32, stream=0)
    else:
        for _ in range(calls):
            function(a, b, c, d, grid=1, block=32)


def worker(package_dir, calls):
    """Every variant: a warm-up call (the first loads the fake driver and the image), then
    `calls` calls between two marks, so that the even-numbered dumps are the loops."""
    import ctypes

    import standins

    torch = install_torch(standins)
    sys.path.insert(0, os.path.dirname(package_dir))  # tlc build -o OUT: OUT/pybench
    import pybench

    driver = ctypes.CDLL(os.environ["TLC_TEST_LIBCUDA"])
    # Unmarked: the first loop pays for first uses (the driver's log growing, caches).
    loop(*call_of(pybench, standins, torch, VARIANTS[0]), calls)
    for variant in VARIANTS:
        call = call_of(pybench, standins, torch, variant)
        loop(*call, 1)
        driver.fake_cuda_clear_log()
        standins.mark()
        loop(*call, calls)
        standins.mark()


# ---- the orchestrator -----------------------------------------------------------------------


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"callgrind.py: {' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return result


def build_standins(work):
    """standins.c as an extension module of this interpreter, in `work`."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = os.path.join(work, "standins" + suffix)
    run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-Wall", "-Wextra",
         "-I", sysconfig.get_paths()["include"], "-I", os.path.join(ROOT, "python", "src"),
         os.path.join(HERE, "standins.c"), "-o", target])
    return work


def build_package(tlc, out):
    run([tlc, "build", os.path.join(HERE, "kernels.cu"), "--name", "pybench", "--arch", "sm_90a",
         "--python", "--no-cache", "-q", "-o", out])
    return os.path.join(out, "pybench")


def inclusive(dump, functions):
    """Each function's inclusive count in a callgrind dump (0 where it was not called)."""
    output = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump]).stdout
    counts = dict.fromkeys(functions, 0)
    for line in output.splitlines():
        match = re.match(r"\s*([\d,]+)\s.*?:(\w+)(?: \[|$)", line)
        if match and match.group(2) in counts:
            counts[match.group(2)] += int(match.group(1).replace(",", ""))
    return counts


def total(dump):
    with open(dump) as file:
        for line in file:
            match = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if match:
                return int(match.group(1))
    sys.exit(f"callgrind.py: no totals in {dump}")


def measure(package_dir, standins_dir, fake_cuda, calls, work):
    """Per variant: instructions per call, whole and by part (the module docstring)."""
    prefix = os.path.join(work, "callgrind.out")
    for old in os.listdir(work):
        if old.startswith("callgrind.out"):
            os.remove(os.path.join(work, old))
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={prefix}",
               "--dump-before=standins_mark", sys.executable, os.path.abspath(__file__),
               "--worker", package_dir, "-", str(calls)]
    environment = dict(os.environ, TLC_TEST_LIBCUDA=fake_cuda, PYTHONPATH=standins_dir,
                       PYTHONDONTWRITEBYTECODE="1")
    run(command, env=environment)
    results = {}
    for index, variant in enumerate(VARIANTS):
        dump = f"{prefix}.{2 * index + 2}"  # dumps are numbered from 1; 2k: the k-th loop
        kernel = variant.split(" ", 1)[0]
        parts = inclusive(dump, [f"launch_{kernel}", f"pybench_{kernel}"])
        function = parts[f"launch_{kernel}"] / calls
        launcher = parts[f"pybench_{kernel}"] / calls
        results[variant] = {"call": total(dump) / calls, "function": function,
                            "launcher": launcher, "binding": function - launcher}
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tlc", help="the tlc to measure")
    parser.add_argument("--baseline", help="another tlc, measured the same way, shown first")
    parser.add_argument("--fake-cuda", help="libtlc_fake_cuda.so")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--work", help="a folder for the builds (default: a temporary one)")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        worker(options.worker[0], int(options.worker[2]))
        return
    if not options.tlc or not options.fake_cuda:
        parser.error("--tlc and --fake-cuda are required")
    if not shutil.which("valgrind"):
        sys.exit("callgrind.py: needs valgrind")
    work = options.work or tempfile.mkdtemp(prefix="tlc-callgrind-")
    os.makedirs(work, exist_ok=True)
    standins_dir = build_standins(work)
    tlcs = [("baseline", options.baseline)] if options.baseline else []
    tlcs.append(("tlc", options.tlc))
    packages = {label: build_package(os.path.abspath(path), os.path.join(work, label))
                for label, path in tlcs}
    results = {}
    for label, _ in tlcs:
        measured = measure(packages[label], standins_dir, os.path.abspath(options.fake_cuda),
                           options.calls, work)
        for variant, counts in measured.items():
            results[(label, variant)] = counts
    columns = ["call", "function", "launcher", "binding"]
    print(f"Instructions per call (callgrind Ir, {options.calls} calls, fake driver)")
    header = f"{'variant':30}" + "".join(
        f"{label + ' ' + column:>20}" for column in columns for label, _ in tlcs)
    print(header)
    for variant in VARIANTS:
        cells = "".join(f"{results[(label, variant)][column]:>20.0f}" for column in columns
                        for label, _ in tlcs)
        print(f"{variant:30}{cells}")


if __name__ == "__main__":
    main()
