#!/usr/bin/env python3
"""bench/build: what tlc costs a build, as ratios measured in one run (CPU only).

1. Cold `tlc build --arch sm_90a` of a one-kernel file (samples/vadd) against what a user would
   do by hand for the same image: `nvcc -fatbin -arch=sm_90a` on the file (SASS and PTX, as
   `--arch sm_90a` means to nvcc and to tlc), then `c++ -shared` of a minimal loader
   (bench/build_loader.c). Target: <= 1.3. The same for a large generated file (many kernels,
   long nvcc time), where tlc's own work should vanish into nvcc's. Target: <= 1.05. Also shown,
   without a target: the same against `nvcc -cubin` (SASS only), the baseline of the rounds
   before every image carried PTX.
2. A no-change rebuild (the cache restores the outputs and rewrites nothing) and its ratio to
   the cold build. Targets: <= 50 ms and <= 3 %.
3. A 64-file module built with -j2 against one file's cold build x 64 / 2. Target: <= 1.1.
4. Two machines sharing one Redis (a redis-server the bench starts on 127.0.0.1; skipped, saying
   so, where there is none), for samples/vadd and the large file: machine 1 builds cold and
   stores; machine 2 (an empty local cache, its first tlc build) and machine 3 (an empty cache
   for this module, but it has built another) build from the remote. Their builds over a local
   hit's (target <= 1.5) and over the cold build (target <= 0.1). `--shared-only` runs only
   this part, `--fixed-only` only the fixed cost of part 1.

5. `--daily` (issue 37: what nvcc users do every day), each against nvcc doing the same by hand,
   wall time and CPU time (the processes' user + system time, children included):
   a cold small file, SASS only (P4: tlc build vs nvcc -cubin + the loader; target wall <= 1.0,
   CPU <= 1.3); a cold 3-file module (tlc vs nvcc -fatbin -rdc=true of each file, nvcc -dlink,
   the loader, one after another); "cold" is the module's first build by a tlc that has built
   others (its tools known, the CUDA headers' preamble made); one file of three edited (tlc's rebuild over its cold build, target
   <= 0.4; and over nvcc recompiling that file, linking and the loader by hand); a no-change
   rebuild; and the CPU time of a template-heavy file (CUB's block primitives, several
   instantiations: tlc vs nvcc -cubin + the loader, target <= 1.05), built cold by a tlc that
   has built two other files starting with the same CUB includes (the parse's preamble of those
   includes made), and, without a target, as the first file to include them.

Each measurement is the median of several runs, the sides interleaved.
usage: bench/build.py [--tlc PATH] [--runs N] [--shared-only | --fixed-only | --daily]
"""
import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA = os.environ.get("CUDA_PATH", "/usr/local/cuda")
ARCH = "sm_90a"


def run(args, **kwargs):
    result = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"bench/build: {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return result


def timed(args, env=None, setup=None):
    if setup:
        setup()
    start = time.perf_counter()
    run(args, env=env)
    return time.perf_counter() - start


def fresh_cache(work, env, label, seed=None):
    """`env` with a TLC_CACHE_DIR no build has used (a copy of `seed`'s where given), made anew
    for each call: a cold build remembers nothing of the runs before it."""
    counter = fresh_cache.count = getattr(fresh_cache, "count", 0) + 1
    folder = os.path.join(work, f"cache-{label}-{counter}")
    if seed:
        shutil.copytree(seed, folder, symlinks=True)
        # The copy's pages written out before the build it serves: a user's cache was written
        # by builds long before, and the kernel's writeback of tens of megabytes just copied
        # (the parse's preambles) would otherwise run during the build measured.
        os.sync()
    return dict(env, TLC_CACHE_DIR=folder)


def cold_build(args, work, env, label, seed=None):
    """One timed cold build in a cache folder of its own (see fresh_cache)."""
    def build():
        return timed(args, fresh_cache(work, env, label, seed))

    return build


def median_of(runs, measure):
    return statistics.median(measure() for _ in range(runs))


def by_hand(work, source, name, image="fatbin"):
    """nvcc -fatbin (or -cubin), then c++ -shared of a minimal loader: the work tlc automates."""
    def build():
        out = os.path.join(work, "hand-" + name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        start = time.perf_counter()
        # -fatbin -arch=sm_90a: SASS and PTX, what tlc's --arch sm_90a builds; -cubin: SASS only.
        target = (["-fatbin", f"-arch={ARCH}"] if image == "fatbin" else
                  ["-cubin", f"-gencode=arch=compute_{ARCH[3:]},code={ARCH}"])
        run([os.path.join(CUDA, "bin", "nvcc"), *target, "-O3", "-std=c++17", source, "-o",
             os.path.join(out, name + "." + image)])
        run(["c++", "-x", "c", "-O2", "-fPIC", "-shared", "-isystem",
             os.path.join(CUDA, "include"), os.path.join(ROOT, "bench", "build_loader.c"), "-o",
             os.path.join(out, "libloader.so")])
        return time.perf_counter() - start

    return build


def fixed_cost(tlc, work, env, source, runs):
    """The fixed cost, like for like: SASS only on both sides, each tlc build a first build in an
    empty cache folder; and, without a target, tlc knowing the tools already (the cache folder
    earlier builds of two other modules left). Interleaved. Medians: (tlc, by hand, tools known)."""
    sass = ["--gencode", f"arch=compute_{ARCH[3:]},code={ARCH}"]
    sass_args = [tlc, "build", source, *sass, "--name", "vadd", "-o",
                 os.path.join(work, "sass-out"), "-q", "--no-cache"]
    known = os.path.join(work, "cache-known")
    # Two other modules built before: the second made the parse's preamble (the first parse of a
    # command line only marks it, frontend/Preamble.h).
    for other_name in ("other", "another"):
        other = os.path.join(work, "other", other_name + ".cu")
        os.makedirs(os.path.dirname(other), exist_ok=True)
        with open(other, "w") as out:
            out.write(f"__global__ void {other_name}(int* x) {{ x[threadIdx.x] = 1; }}\n")
        run([tlc, "build", other, *sass, "--name", other_name, "-o",
             os.path.join(work, other_name + "-out"), "-q"], env=dict(env, TLC_CACHE_DIR=known))
    known_args = [a for a in sass_args if a != "--no-cache"]
    times = {"tlc": [], "hand": [], "known": []}
    hand_cubin = by_hand(work, source, "vadd", "cubin")
    for _ in range(runs):
        times["tlc"].append(cold_build(sass_args, work, env, "sass")())
        times["hand"].append(hand_cubin())
        times["known"].append(cold_build(known_args, work, env, "known", known)())
    return [statistics.median(times[kind]) for kind in ("tlc", "hand", "known")]


def report_fixed_cost(sass_s, cubin_s, known_s, times=False):
    if times:
        print(f"  cold tlc build --gencode SASS only        {sass_s:8.3f}")
        print(f"  nvcc -cubin + c++ -shared (SASS only)     {cubin_s:8.3f}")
        print(f"  tlc build SASS only, tools known          {known_s:8.3f}")
    fixed = sass_s / cubin_s
    print(f"  cold tlc / by hand, SASS only             {fixed:8.3f}  target <= 1.1: "
          f"{verdict(fixed <= 1.1)}")
    print(f"  tools known / by hand, SASS only          {known_s / cubin_s:8.3f}  (no target)")


def write_large(folder, kernels):
    """One file of many kernels with real work in them: nvcc's time dominates."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "large.cu")
    with open(path, "w") as out:
        out.write(f"// generated by bench/build: {kernels} kernels with unrolled loops\n")
        for i in range(kernels):
            out.write(f"__global__ void work_{i}(float* x, const float* y, int n) {{\n"
                      f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      f"  float acc = {i}.0f;\n"
                      f"#pragma unroll\n"
                      f"  for (int k = 0; k < 64; ++k)\n"
                      f"    acc = acc * y[(i + k) % n] + __sinf(acc + k);\n"
                      f"  if (i < n) x[i] = acc;\n}}\n")
    return path


def write_module(folder, files):
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i in range(files):
        path = os.path.join(folder, f"part{i:02d}.cu")
        with open(path, "w") as out:
            out.write(f"// generated by bench/build: one of {files} inputs\n"
                      f"__global__ void scale_{i}(float* x, float factor, int n) {{\n"
                      f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      f"  if (i < n) x[i] = x[i] * factor + {i}.0f;\n}}\n")
        paths.append(path)
    return paths


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_redis(work):
    """A redis-server on a free port of 127.0.0.1, nothing saved; None where there is none."""
    program = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin:/usr/bin")
    if not program:
        return None, None
    port = free_port()
    server = subprocess.Popen(
        [program, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", work, "--daemonize", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, f"redis://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    server.kill()
    sys.exit("bench/build: redis-server did not start")


def build_on(tlc, source, name, machine, out, url):
    """`tlc build` on one simulated machine (its own local cache) sharing the remote `url`."""
    args = [tlc, "build", source, "--arch", ARCH, "--name", name, "-o",
            os.path.join(machine, out)]
    env = dict(os.environ, TLC_CACHE_DIR=os.path.join(machine, "cache"), TLC_REMOTE_STORAGE=url)
    start = time.perf_counter()
    result = run(args, env=env)
    return time.perf_counter() - start, result.stderr


def two_machines(tlc, work, source, name, runs):
    """Machine 1 builds cold and stores to the shared Redis. Machine 2, its local cache empty,
    builds from the remote: its first tlc build ever, so it also reads the toolkit's tools once
    to key them (Cache.h). Machine 3 has built something else before (it knows the tools) and
    builds from the remote too. Then machine 2 again: a local hit. Each repetition starts from an
    empty Redis and empty caches, so all are measured side by side."""
    warm_up = os.path.join(work, "other", "other.cu")
    os.makedirs(os.path.dirname(warm_up), exist_ok=True)
    with open(warm_up, "w") as out:
        out.write("__global__ void other(int* x) { x[threadIdx.x] = 1; }\n")
    times = {"cold": [], "new": [], "known": [], "local": []}
    for i in range(runs):
        server, url = start_redis(work)
        if not server:
            print("bench/build: no redis-server (Debian: redis-server), so no two-machine part")
            return None
        try:
            one, two, three = (os.path.join(work, f"shared-{name}-{i}", machine)
                               for machine in ("m1", "m2", "m3"))
            build_on(tlc, warm_up, "other", three, "other", url)
            expected = {"cold": (one, "out", None), "new": (two, "out", "cached " + name +
                                                             " (remote "),
                        "known": (three, "out", "cached " + name + " (remote "),
                        "local": (two, "out-again", "cached " + name + " (")}
            for kind, (machine, out, said) in expected.items():
                os.sync()  # the previous build's writes flushed: none slows the next one's
                seconds, errors = build_on(tlc, source, name, machine, out, url)
                if "warning" in errors or (said is None) != ("cached" not in errors) or \
                        (said and said not in errors) or (kind == "local" and "remote" in errors):
                    sys.exit(f"bench/build: {kind} build of {name} was not what it should be:\n"
                             f"{errors}")
                times[kind].append(seconds)
        finally:
            server.kill()
            server.wait()
    return name, {kind: statistics.median(values) for kind, values in times.items()}


def report_two_machines(shared):
    if not shared:
        return
    name, t = shared
    print(f"  {name}: machine 1 cold build, stored          {t['cold']:8.3f}")
    print(f"  {name}: machine 2 from Redis, first build     {t['new']:8.3f}")
    print(f"  {name}: machine 3 from Redis, knows the tools {t['known']:8.3f}")
    print(f"  {name}: machine 2 again, local hit            {t['local']:8.3f}")
    for kind, label in (("new", "machine 2"), ("known", "machine 3")):
        ratio = t[kind] / t["local"]
        print(f"  {name}: {label} / local hit                {ratio:8.3f}  target <= 1.5: "
              f"{verdict(ratio <= 1.5)}")
    for kind, label in (("new", "machine 2"), ("known", "machine 3")):
        ratio = t[kind] / t["cold"]
        print(f"  {name}: {label} / cold build               {ratio:8.3f}  target <= 0.1: "
              f"{verdict(ratio <= 0.1)}")


def measured(args, env=None, cwd=None):
    """Wall and CPU seconds (user + system, the processes it waited for included) of `args`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"bench/build: {' '.join(args)} failed:\n{result.stdout}{result.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measured_all(commands, env=None):
    wall = cpu = 0.0
    for args in commands:
        w, c = measured(args, env)
        wall, cpu = wall + w, cpu + c
    return wall, cpu


def write_templated(folder, name="templated"):
    """A template-heavy file written for the bench: CUB's block-wide reduce, scan and radix sort,
    instantiated for several types and tile sizes (nvcc's templates dominate, as in CUB- and
    CUTLASS-style libraries). Files of other names start with the same includes and differ in
    their kernel's name."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".cu")
    lines = ["// generated by bench/build: CUB block primitives, instantiated",
             "#include <cub/block/block_reduce.cuh>",
             "#include <cub/block/block_scan.cuh>",
             "#include <cub/block/block_radix_sort.cuh>",
             "template <typename T, int THREADS, int ITEMS>",
             "__global__ void block_work(const T* in, T* out, T* total) {",
             "  using Reduce = cub::BlockReduce<T, THREADS>;",
             "  using Scan = cub::BlockScan<T, THREADS>;",
             "  using Sort = cub::BlockRadixSort<T, THREADS, ITEMS>;",
             "  __shared__ union { typename Reduce::TempStorage r; typename Scan::TempStorage s;",
             "                     typename Sort::TempStorage o; } storage;",
             "  T items[ITEMS];",
             "  for (int i = 0; i < ITEMS; ++i) items[i] = in[threadIdx.x * ITEMS + i];",
             "  Sort(storage.o).Sort(items);",
             "  __syncthreads();",
             "  Scan(storage.s).InclusiveSum(items, items);",
             "  __syncthreads();",
             "  T sum = Reduce(storage.r).Sum(items[ITEMS - 1]);",
             "  for (int i = 0; i < ITEMS; ++i) out[threadIdx.x * ITEMS + i] = items[i];",
             "  if (threadIdx.x == 0) *total = sum;",
             "}"]
    for type_name in ("int", "unsigned", "float", "double"):
        for threads, items in ((128, 4), (256, 8)):
            lines.append(f"template __global__ void block_work<{type_name}, {threads}, {items}>("
                         f"const {type_name}*, {type_name}*, {type_name}*);")
    text = "\n".join(lines) + "\n"
    with open(path, "w") as out:
        out.write(text if name == "templated" else text.replace("block_work", "block_" + name))
    return path


def daily(tlc, work, env, runs):
    """Part 5: the daily habits of issue 37, each side by side with nvcc by hand."""
    nvcc = os.path.join(CUDA, "bin", "nvcc")
    loader = ["c++", "-x", "c", "-O2", "-fPIC", "-shared", "-isystem",
              os.path.join(CUDA, "include"), os.path.join(ROOT, "bench", "build_loader.c"), "-o"]
    sass = f"-gencode=arch=compute_{ARCH[3:]},code={ARCH}"
    source = os.path.join(ROOT, "samples", "vadd", "vadd.cu")
    files = write_module(os.path.join(work, "daily-module"), 3)
    templated = write_templated(os.path.join(work, "daily-templated"))
    hand = os.path.join(work, "daily-hand")
    os.makedirs(hand, exist_ok=True)

    # A cold build is the first of its module by a tlc that has built others before: its
    # caches know the tools and hold the parse's preamble of the CUDA headers (a user's first
    # build ever pays those once; fixed_cost measures that). Each cold build gets a copy of such
    # a cache, so nothing of its own module is in it.
    seed = os.path.join(work, "daily-seed")
    for other_name in ("other", "another"):
        other = os.path.join(work, "daily-other", other_name + ".cu")
        os.makedirs(os.path.dirname(other), exist_ok=True)
        with open(other, "w") as out:
            out.write(f"__global__ void {other_name}(int* x) {{ x[threadIdx.x] = 1; }}\n")
        run([tlc, "build", other, "--gencode", f"arch=compute_{ARCH[3:]},code={ARCH}", "--name",
             other_name, "-o", os.path.join(work, "daily-" + other_name), "-q"],
            env=dict(env, TLC_CACHE_DIR=seed))
    # The same for modules of several files, whose parse is another command line (relocatable
    # code): without this, the first rebuild after a cold build would also make that preamble,
    # once, and the edit would be charged for it.
    for other_name in ("othermod", "anothermod"):
        others = write_module(os.path.join(work, "daily-" + other_name + "-src"), 2)
        run([tlc, "build", *others, "--gencode", f"arch=compute_{ARCH[3:]},code={ARCH}", "--name",
             other_name, "-o", os.path.join(work, "daily-" + other_name), "-q"],
            env=dict(env, TLC_CACHE_DIR=seed))

    # A project's files that include CUB share the parse's preamble of those includes
    # (frontend/Preamble.h): the template-heavy file is built cold by a tlc that has built two
    # others starting with the same includes (a preamble is made by the second parse of its
    # includes). Its cold build in a cache of the other files alone is measured too: the first
    # file of a project to include them.
    plain_seed = os.path.join(work, "daily-seed-plain")
    shutil.copytree(seed, plain_seed, symlinks=True)
    for other_name in ("othercub", "anothercub"):
        other = write_templated(os.path.join(work, "daily-other"), other_name)
        run([tlc, "build", other, "--gencode", f"arch=compute_{ARCH[3:]},code={ARCH}", "--name",
             other_name, "-o", os.path.join(work, "daily-" + other_name), "-q"],
            env=dict(env, TLC_CACHE_DIR=seed))

    def tlc_cold(inputs, name, from_seed=seed):
        return measured([tlc, "build", *inputs, "--gencode",
                         f"arch=compute_{ARCH[3:]},code={ARCH}", "--name", name, "-o",
                         os.path.join(work, "daily-" + name), "-q"],
                        fresh_cache(work, env, "daily", from_seed))

    def hand_small(path, name):
        return measured_all([[nvcc, "-cubin", sass, "-O3", "-std=c++17", path, "-o",
                              os.path.join(hand, name + ".cubin")],
                             loader + [os.path.join(hand, "lib" + name + ".so")]])

    def hand_module(inputs):
        objects = [os.path.join(hand, f"part{i}.fatbin") for i in range(len(inputs))]
        return measured_all(
            [[nvcc, "-fatbin", "-rdc=true", sass, "-O3", "-std=c++17", path, "-o", obj]
             for path, obj in zip(inputs, objects)] +
            [[nvcc, "-dlink", "-cubin", sass, "-Xnvlink", "-ignore-host-info", *objects, "-o",
              os.path.join(hand, "module.cubin")], loader + [os.path.join(hand, "libm.so")]])

    def hand_one_edited(inputs):
        objects = [os.path.join(hand, f"part{i}.fatbin") for i in range(len(inputs))]
        return measured_all(
            [[nvcc, "-fatbin", "-rdc=true", sass, "-O3", "-std=c++17", inputs[1], "-o",
              objects[1]],
             [nvcc, "-dlink", "-cubin", sass, "-Xnvlink", "-ignore-host-info", *objects, "-o",
              os.path.join(hand, "module.cubin")], loader + [os.path.join(hand, "libm.so")]])

    rows = {key: [] for key in ("small tlc", "small hand", "module tlc", "module hand",
                                "edited tlc", "edited hand", "unchanged tlc", "templated tlc",
                                "templated first tlc", "templated hand")}
    for run_index in range(runs):
        rows["small tlc"].append(tlc_cold([source], "vadd"))
        rows["small hand"].append(hand_small(source, "vadd"))
        rows["module tlc"].append(tlc_cold(files, "m"))
        rows["module hand"].append(hand_module(files))
        # One file of three edited: a cache of this run's own, warmed by a cold build.
        cache = fresh_cache(work, env, "daily-edit", seed)
        module_args = [tlc, "build", *files, "--gencode", f"arch=compute_{ARCH[3:]},code={ARCH}",
                       "--name", "m", "-o", os.path.join(work, f"daily-inc-{run_index}"), "-q"]
        measured(module_args, cache)
        with open(files[1], "a") as out:
            out.write(f"// edited {run_index}\n")
        rows["edited tlc"].append(measured(module_args, cache))
        rows["edited hand"].append(hand_one_edited(files))
        rows["unchanged tlc"].append(measured(module_args, cache))
        rows["templated tlc"].append(tlc_cold([templated], "templated"))
        rows["templated first tlc"].append(tlc_cold([templated], "templated", plain_seed))
        rows["templated hand"].append(hand_small(templated, "templated"))
    wall = {k: statistics.median(w for w, _ in v) for k, v in rows.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in rows.items()}
    print("\n== bench/build --daily (seconds; wall and CPU, medians; ratios)")
    for key in rows:
        print(f"  {key:28} wall {wall[key]:7.3f}   cpu {cpu[key]:7.3f}")
    def ratio(label, value, target=None):
        mark = f"  target <= {target}: {verdict(value <= target)}" if target else ""
        print(f"  {label:52} {value:7.3f}{mark}")
    ratio("P4: cold small file, tlc / nvcc -cubin + loader (wall)",
          wall["small tlc"] / wall["small hand"], 1.0)
    ratio("    the same, CPU", cpu["small tlc"] / cpu["small hand"], 1.3)
    ratio("cold 3-file module, tlc / nvcc by hand (wall)", wall["module tlc"] / wall["module hand"])
    ratio("    the same, CPU", cpu["module tlc"] / cpu["module hand"])
    ratio("one file of three edited / tlc's cold module (wall)",
          wall["edited tlc"] / wall["module tlc"], 0.4)
    # With as many cores as files, a cold module's compiles run side by side, as long as one:
    # the CPU is what an edit saves there (on 2 cores, the wall clock too).
    ratio("    the same, CPU", cpu["edited tlc"] / cpu["module tlc"], 0.4)
    ratio("one file of three edited, tlc / nvcc by hand (wall)",
          wall["edited tlc"] / wall["edited hand"])
    ratio("no-change rebuild / tlc's cold module (wall)",
          wall["unchanged tlc"] / wall["module tlc"])
    ratio("template-heavy file, tlc / nvcc -cubin + loader (CPU)",
          cpu["templated tlc"] / cpu["templated hand"], 1.05)
    ratio("    the same, wall", wall["templated tlc"] / wall["templated hand"])
    ratio("    the first file to include its headers (CPU)",
          cpu["templated first tlc"] / cpu["templated hand"])


def verdict(ok):
    return "met" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tlc", default=os.path.join(ROOT, "build", "bin", "tlc"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shared-only", action="store_true",
                        help="only the two machines sharing one Redis")
    parser.add_argument("--fixed-only", action="store_true",
                        help="only the fixed cost of a cold build, SASS only on both sides")
    parser.add_argument("--daily", action="store_true",
                        help="only part 5: a small file, a 3-file module, one file edited, "
                             "a no-change rebuild, a template-heavy file, against nvcc")
    options = parser.parse_args()
    tlc = options.tlc
    work = tempfile.mkdtemp(prefix="tlc-bench-build-")
    # The bench's builds name their remote themselves (part 4) or have none.
    env = dict(os.environ, TLC_CACHE_DIR=os.path.join(work, "cache"), TLC_REMOTE_STORAGE="")
    source = os.path.join(ROOT, "samples", "vadd", "vadd.cu")
    if options.shared_only:
        print(f"bench/build: {os.cpu_count()} cores, median of {options.runs} runs each")
        large = write_large(os.path.join(work, "large"), 120)
        shared = [two_machines(tlc, work, source, "vadd", options.runs),
                  two_machines(tlc, work, large, "large", max(3, options.runs // 3))]
        print("\n== bench/build, two machines sharing one Redis (seconds; ratios)")
        for each in shared:
            report_two_machines(each)
        shutil.rmtree(work, ignore_errors=True)
        return
    if options.daily:
        print(f"bench/build: {os.cpu_count()} cores, median of {options.runs} runs each")
        daily(tlc, work, env, options.runs)
        shutil.rmtree(work, ignore_errors=True)
        return
    if options.fixed_only:
        print(f"bench/build: {os.cpu_count()} cores, median of {options.runs} runs each")
        measured = fixed_cost(tlc, work, env, source, options.runs)
        print("\n== bench/build, the fixed cost of a cold build (seconds; ratios)")
        report_fixed_cost(*measured, times=True)
        shutil.rmtree(work, ignore_errors=True)
        return
    large = write_large(os.path.join(work, "large"), 120)
    out = os.path.join(work, "out")
    cold_args = [tlc, "build", source, "--arch", ARCH, "--name", "vadd", "-o", out, "-q",
                 "--no-cache"]
    large_args = [tlc, "build", large, "--arch", ARCH, "--name", "large", "-o",
                  os.path.join(work, "large-out"), "-q", "--no-cache"]
    print(f"bench/build: {os.cpu_count()} cores, median of {options.runs} runs each")

    # 1. cold tlc build vs by hand, interleaved so both see the same machine.
    def interleaved(args, hands, runs):
        tlc_times, hand_times = [], [[] for _ in hands]
        for _ in range(runs):
            tlc_times.append(timed(args, env))
            for hand, times in zip(hands, hand_times):
                times.append(hand())
        return [statistics.median(tlc_times)] + [statistics.median(t) for t in hand_times]

    cold_s, manual_s = interleaved(cold_args, [by_hand(work, source, "vadd")], options.runs)

    sass_s, cubin_s, known_s = fixed_cost(tlc, work, env, source, options.runs)
    large_s, large_manual_s = interleaved(large_args, [by_hand(work, large, "large")],
                                          max(1, options.runs // 2))

    # 2. no-change rebuild: the cache holds the outputs, OUTDIR already has them.
    cached_args = [a for a in cold_args if a != "--no-cache"]
    run(cached_args, env=env)  # fill the cache
    rebuild_s = median_of(options.runs * 2, lambda: timed(cached_args, env))

    # 3. 64 files with -j2 against one file x 64 / 2.
    files = write_module(os.path.join(work, "module"), 64)
    one_s = median_of(options.runs, lambda: timed(
        [tlc, "build", files[0], "--arch", ARCH, "--name", "one", "-o",
         os.path.join(work, "one"), "-q", "--no-cache"], env))
    many_s = median_of(max(1, options.runs // 2), lambda: timed(
        [tlc, "build", *files, "--arch", ARCH, "--name", "many", "-o",
         os.path.join(work, "many"), "-q", "--no-cache", "-j2"], env))

    # 4. two machines sharing one Redis.
    shared = [two_machines(tlc, work, source, "vadd", options.runs),
              two_machines(tlc, work, large, "large", max(3, options.runs // 3))]

    print("\n== bench/build (seconds; ratios)")
    print(f"  cold tlc build (samples/vadd)             {cold_s:8.3f}")
    print(f"  nvcc -fatbin + c++ -shared loader by hand {manual_s:8.3f}")
    print(f"  cold tlc build --gencode SASS only        {sass_s:8.3f}")
    print(f"  nvcc -cubin + c++ -shared (SASS only)     {cubin_s:8.3f}")
    print(f"  tlc build SASS only, tools known          {known_s:8.3f}")
    print(f"  cold tlc build (120-kernel file)          {large_s:8.3f}")
    print(f"  nvcc -fatbin + c++ -shared loader by hand {large_manual_s:8.3f}")
    print(f"  no-change rebuild (cache hit)             {rebuild_s:8.3f}")
    print(f"  one-file module, cold                     {one_s:8.3f}")
    print(f"  64-file module, cold, -j2                 {many_s:8.3f}")
    ratio = cold_s / manual_s
    print(f"  cold tlc / by hand, one kernel            {ratio:8.3f}  target <= 1.3: "
          f"{verdict(ratio <= 1.3)}")
    report_fixed_cost(sass_s, cubin_s, known_s)
    large_ratio = large_s / large_manual_s
    print(f"  cold tlc / by hand, large file            {large_ratio:8.3f}  target <= 1.05: "
          f"{verdict(large_ratio <= 1.05)}")
    print(f"  no-change rebuild                         {rebuild_s * 1000:6.1f} ms target <= 50 ms: "
          f"{verdict(rebuild_s <= 0.050)}")
    share = rebuild_s / cold_s
    print(f"  no-change rebuild / cold                  {share * 100:6.2f} %  target <= 3 %: "
          f"{verdict(share <= 0.03)}")
    scale = many_s / (one_s * 64 / 2)
    print(f"  64 files -j2 / (one file x 64 / 2)        {scale:8.3f}  target <= 1.1: "
          f"{verdict(scale <= 1.1)}")
    for each in shared:
        report_two_machines(each)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
