"""tlc's wheel, installed as a user installs it (issue 34). The CTest fixture wheel.build makes it
(build-wheel: `pip wheel .`); Install puts it into a fresh virtual environment that every other
suite uses; each suite runs in a process of its own.

What a suite cannot check here it skips, printing "wheel test skipped:" and why (CTest reports it
skipped): the mount namespace that hides the system's LLVM or CUDA needs root and unshare, and
NVIDIA's CUDA wheels need PyPI.
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
import zipfile

SOURCE = os.environ["TLC_SOURCE_DIR"]
SCRATCH = os.environ["TLC_WHEEL_SCRATCH"]
DIST = os.path.join(SCRATCH, "dist")
VENV = os.path.join(SCRATCH, "venv")
PYTHON = os.path.join(VENV, "bin", "python")
TLC = os.path.join(VENV, "bin", "tlc")
SYSTEM_TOOLKIT = os.environ.get("TLC_SYSTEM_TOOLKIT", "/usr/local/cuda")
VADD = os.path.join(SOURCE, "samples", "vadd", "vadd.cu")
# Libraries a manylinux wheel may leave to the system (PEP 600's list, the ones tlc could use).
ALLOWED_LIBRARIES = {"libc.so.6", "libm.so.6", "libz.so.1", "libgcc_s.so.1", "libpthread.so.0",
                     "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2"}

SCALE = textwrap.dedent("""\
    extern "C" __global__ void scale(float* x, float a, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= a;
    }
    """)


def skip(why):
    print(f"wheel test skipped: {why}", flush=True)
    raise unittest.SkipTest(why)


def setUpModule():
    """Every suite skips, saying why, where build-wheel could not build the wheel because the
    package index is unreachable (it leaves DIST/SKIPPED saying so)."""
    skipped = os.path.join(DIST, "SKIPPED")
    if os.path.exists(skipped):
        with open(skipped) as note:
            skip(note.read().strip().removeprefix("wheel test skipped: "))


def wheel_file():
    wheels = glob.glob(os.path.join(DIST, "tlc-*.whl"))
    if len(wheels) != 1:
        raise AssertionError(f"expected one tlc wheel in {DIST}, found {wheels}")
    return wheels[0]


def run(argv, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    return subprocess.run(argv, **kwargs)


def environment(**changes):
    """This process's environment for the venv's commands: no toolkit variables of the CI's, a
    cache of the test's own."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("CUDA_PATH", "CUDA_HOME", "VIRTUAL_ENV", "CONDA_PREFIX")}
    env["PATH"] = os.path.join(VENV, "bin") + os.pathsep + env.get("PATH", "")
    env.update({key: value for key, value in changes.items() if value is not None})
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
    return env


def python(code, cwd=None, **env):
    return run([PYTHON, "-c", textwrap.dedent(code)], cwd=cwd, env=environment(**env))


def can_unshare():
    return os.geteuid() == 0 and shutil.which("unshare") and run(
        ["unshare", "-m", "true"]).returncode == 0


def in_throwaway_root():
    """test/wheel/fresh-root's brand-new root (a chroot, where unshare -m is refused) says so: its
    mounts are its own, so a path can be mounted over there and back."""
    return os.environ.get("TLC_WHEEL_THROWAWAY_ROOT") == "1" and os.geteuid() == 0


def can_hide():
    return can_unshare() or in_throwaway_root()


def hidden(paths, argv, env):
    """Runs argv where each of `paths` is an empty tmpfs: in a mount namespace of its own, or in
    a throwaway root mounted over for the run and back."""
    mounts = " && ".join(f"mount -t tmpfs none {path}" for path in paths)
    if can_unshare():
        return run(["unshare", "-m", "sh", "-c", f'{mounts} && exec "$@"', "sh", *argv], env=env)
    for path in paths:
        subprocess.run(["mount", "-t", "tmpfs", "none", path], check=True)
    try:
        return run(argv, env=env)
    finally:
        for path in reversed(paths):
            subprocess.run(["umount", path], check=True)


class Install(unittest.TestCase):
    """The fixture: a fresh venv with the wheel, as `pip install tlc-*.whl` makes it."""

    def test_install_into_a_fresh_venv(self):
        wheel = wheel_file()
        shutil.rmtree(VENV, ignore_errors=True)
        created = run([sys.executable, "-m", "venv", VENV])
        self.assertEqual(created.returncode, 0, created.stderr)
        installed = run([PYTHON, "-m", "pip", "install", "--no-deps",
                         "--disable-pip-version-check", wheel])
        self.assertEqual(installed.returncode, 0, installed.stderr)
        self.assertTrue(os.access(TLC, os.X_OK), "the tlc command is on the venv's PATH")


class Command(unittest.TestCase):
    """The `tlc` command the wheel installed: self-contained, honest about its platform."""

    def test_the_wheel_is_tagged_for_the_glibc_its_files_need(self):
        wheel = wheel_file()
        tag = re.search(r"-manylinux_(\d+)_(\d+)_x86_64\.whl$", wheel)
        self.assertIsNotNone(tag, wheel)
        newest = (0, 0)
        with tempfile.TemporaryDirectory() as folder:
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(folder)
            for path in glob.glob(os.path.join(folder, "**", "*"), recursive=True):
                if os.path.isdir(path):
                    continue
                with open(path, "rb") as file:
                    if file.read(4) != b"\x7fELF":
                        continue
                dynamic = run(["readelf", "-dW", "--version-info", path]).stdout
                for needed in re.findall(r"\(NEEDED\).*\[(.+)\]", dynamic):
                    self.assertIn(needed, ALLOWED_LIBRARIES, f"{path} needs {needed}")
                for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", dynamic):
                    newest = max(newest, (int(major), int(minor)))
        self.assertEqual(newest, (int(tag.group(1)), int(tag.group(2))),
                         "the platform tag states the newest glibc symbol the files use")
        size = os.path.getsize(wheel)
        print(f"wheel: {os.path.basename(wheel)}, {size / 2**20:.1f} MiB")
        self.assertLess(size, 40 * 2**20)

    def test_no_llvm_library_of_the_system_is_loaded(self):
        ldd = run(["ldd", TLC]).stdout
        self.assertNotRegex(ldd, r"(?i)llvm|clang", ldd)
        version = run([TLC, "--version"], env=environment())
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertIn(os.path.join(VENV, "lib", "tlc", "clang"), version.stdout,
                      "Clang's headers are the wheel's own")
        with tempfile.TemporaryDirectory() as out:
            argv = [TLC, "build", VADD, "-o", out + "/vadd", "--no-cache", "-q"]
            env = environment(TLC_CACHE_DIR=out + "/cache")
            if not os.path.isdir("/usr/lib/llvm-22"):
                built = run(argv, env=env)  # no LLVM of the system's here at all
            elif can_hide():
                built = hidden(["/usr/lib/llvm-22"], argv, env)
            else:
                skip("no root or unshare here to hide the system's LLVM")
            self.assertEqual(built.returncode, 0, built.stderr)
            self.assertTrue(os.path.exists(out + "/vadd/libvadd.so"))

    def test_version_says_which_toolkit_and_where(self):
        version = run([TLC, "--version"], env=environment(CUDA_PATH=SYSTEM_TOOLKIT))
        self.assertRegex(version.stdout,
                         rf"cuda [0-9.]+ \({re.escape(SYSTEM_TOOLKIT)}, chosen by CUDA_PATH\)")

    def test_python_m_tlc_names_the_cmake_package(self):
        shown = run([PYTHON, "-m", "tlc", "--cmake-dir"], env=environment())
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(shown.stdout.strip(), os.path.join(VENV, "lib", "cmake", "tlc"))
        self.assertTrue(os.path.isfile(os.path.join(shown.stdout.strip(), "tlcConfig.cmake")))
        api = python("import tlc; print(tlc.cmake_dir()); print(tlc.executable())")
        self.assertEqual(api.stdout.split(), [shown.stdout.strip(), TLC])


class Build(unittest.TestCase):
    """tlc.build() from Python."""

    def setUp(self):
        self.cache = tempfile.mkdtemp(dir=SCRATCH, prefix="cache-")

    def build(self, code, **env):
        return python(code, TLC_CACHE_DIR=self.cache, **env)

    def test_source_string_builds_and_imports(self):
        # The progress line comes once a build takes longer than a moment: none, here, so that
        # a fast machine's build says it too.
        built = self.build(f"""
            import tlc, tlc._build
            tlc._build._PROGRESS_AFTER = 0
            m = tlc.build(source={SCALE!r}, entry="scale", arch="sm_90a")
            print(m.__name__, sorted(m.tlc.launchers()), m.scale.__doc__.splitlines()[0])
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        name, launchers, *_ = built.stdout.split(" ", 2)
        self.assertRegex(name, r"^kernels_[0-9a-f]{12}$")
        self.assertIn("'scale'", built.stdout)
        self.assertIn("tlc.build: compiling kernels (kernels.cu) for sm_90a", built.stderr)
        self.assertEqual(built.stdout.count("\n"), 1, "nothing else on stdout")

    def test_a_second_process_hits_the_cache_and_a_change_rebuilds(self):
        code = """
            import sys, tlc
            m = tlc.build(source=sys.argv[1], arch="sm_90a", flags=sys.argv[2:])
            print(m.__name__)
        """
        def build(source, *flags):
            return run([PYTHON, "-c", textwrap.dedent(code), source, *flags],
                       env=environment(TLC_CACHE_DIR=self.cache))
        first = build(SCALE)
        self.assertEqual(first.returncode, 0, first.stderr)
        again = build(SCALE)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(again.stdout, first.stdout)
        self.assertNotIn("compiling", again.stderr, "a cache hit says nothing")
        changed = build(SCALE + "// edited\n")
        self.assertEqual(changed.returncode, 0, changed.stderr)
        self.assertNotEqual(changed.stdout, first.stdout)
        flagged = build(SCALE, "-DTILE=64")
        self.assertEqual(flagged.returncode, 0, flagged.stderr)
        self.assertNotIn(flagged.stdout, (first.stdout, changed.stdout))

    def test_an_entry_that_is_no_kernel_is_named_with_the_kernels_there(self):
        built = self.build(f"""
            import tlc
            try:
                tlc.build(source={SCALE!r} + "__device__ int helper() {{ return 1; }}\\n",
                          entry="helper", arch="sm_90a")
            except tlc.BuildError as error:
                assert isinstance(error, RuntimeError)
                print(error)
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertIn("entry 'helper' is not a __global__ kernel of kernels.cu; its kernels: scale",
                      built.stdout)

    def error_of(self, source):
        built = self.build(f"""
            import tlc
            try:
                tlc.build(source={source!r}, arch="sm_90a")
            except tlc.BuildError as error:
                print(error.exit_code)
                print(error)
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertTrue(built.stdout.startswith("1\n"), built.stdout)
        self.assertNotIn(self.cache, built.stdout, "no path of tlc's own in the message")
        self.assertNotIn("/tlc-build-", built.stdout, "no temporary path in the message")
        return built.stdout

    def test_a_syntax_error_names_the_line_in_the_source(self):
        # In a declaration: Clang's parse says it, at the line and column.
        message = self.error_of(SCALE.replace("int n)", "int n"))
        self.assertRegex(message, r"kernels\.cu:1:\d+: error: expected '\)'")
        self.assertIn('extern "C" __global__ void scale(float* x, float a, int n {', message)
        # In a function body: nvcc says it (it compiles bodies), in the same format.
        message = self.error_of(SCALE.replace("x[i] *= a;", "x[i] *= a"))
        self.assertRegex(message, r"kernels\.cu:4:\d+: error: expected a \";\"")

    def test_files_with_an_include_folder(self):
        folder = tempfile.mkdtemp(dir=SCRATCH, prefix="sources-")
        os.makedirs(os.path.join(folder, "inc"))
        with open(os.path.join(folder, "inc", "tile.h"), "w") as header:
            header.write("#define TILE 4\n")
        with open(os.path.join(folder, "tiled.cu"), "w") as source:
            source.write('#include "tile.h"\n__global__ void fill(int* p) { p[0] = TILE; }\n')
        built = self.build(f"""
            import tlc
            m = tlc.build(sources=[{folder!r} + "/tiled.cu"], include_dirs=[{folder!r} + "/inc"],
                          arch="sm_90a")
            print(m.__name__, list(m.tlc.launchers()))
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertRegex(built.stdout, r"^tiled_[0-9a-f]{12} \['fill'\]")

    def test_arguments_that_are_wrong_raise_before_building(self):
        checked = self.build("""
            import tlc
            for kwargs in ({}, {"source": "x", "sources": ["a.cu"]}, {"source": b"x"},
                           {"source": "x", "name": "not a name"}, {"source": "x", "flags": "-O3"}):
                try:
                    tlc.build(**kwargs)
                except (TypeError, ValueError) as error:
                    print(type(error).__name__)
        """)
        self.assertEqual(checked.stdout.split(),
                         ["TypeError", "TypeError", "TypeError", "ValueError", "TypeError"])

    def test_arguments_that_are_wrong_say_what_is_wanted(self):
        checked = self.build(r"""
            import tlc
            for kwargs in ({"source": "x", "name": "a" * 201}, {"source": "x", "name": "ñame"},
                           {"sources": ["1abc.cu"]}, {"source": "x", "arch": b"sm_90a"},
                           {"source": "x", "arch": ["sm_90a", 90]}, {"source": "x\ud800"},
                           {"source": "x", "flags": [b"-O3"]}):
                try:
                    tlc.build(**kwargs)
                    print("built")
                except (TypeError, ValueError) as error:
                    print(type(error).__name__, error)
        """)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        lines = checked.stdout.splitlines()
        self.assertEqual([line.split()[0] for line in lines],
                         ["ValueError", "ValueError", "ValueError", "TypeError", "TypeError",
                          "ValueError", "TypeError"], checked.stdout)
        self.assertIn("name= is 201 characters long; at most 200", lines[0])
        self.assertIn("name='ñame' is not an ASCII identifier", lines[1])
        self.assertIn("made from 1abc.cu", lines[2])
        self.assertIn("pass name=", lines[2])
        self.assertNotIn("name='1abc'", lines[2], "the caller passed no name")
        self.assertIn("arch= takes a str or a list of str, not bytes", lines[3])
        self.assertIn("it holds int 90", lines[4])
        self.assertIn("lone surrogate", lines[5])
        self.assertIn("flags takes a list of strings; it holds bytes", lines[6])
        self.assertNotIn("compiling", checked.stderr, "refused before building")

    def test_none_for_flags_and_include_dirs_is_none(self):
        built = self.build(f"""
            import tlc
            m = tlc.build(source={SCALE!r}, arch="sm_90a", flags=None, include_dirs=None)
            print(list(m.tlc.launchers()))
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(built.stdout, "['scale']\n")

    def test_flags_reach_tlc_only_as_nvccs_options(self):
        folder = tempfile.mkdtemp(dir=SCRATCH, prefix="flags-")
        victim = os.path.join(folder, "victim")
        with open(victim, "w") as file:
            file.write("precious\n")
        shell = os.path.join(folder, "shell-ran")
        refused = [["--launcher", "/bin/sh", "--launcher", "-c", "--launcher", f"touch {shell}"],
                   ["--depfile", victim], [f"--depfile={victim}"], ["--emit-only"], ["--help"],
                   ["-o", folder], ["--python"], ["--force"], ["--wheel"], ["-p", folder],
                   ["--base-dir", folder], ["--cuda-path", folder], ["-Xnvcc", "-O3"]]
        checked = self.build(f"""
            import tlc
            for flags in {refused!r}:
                try:
                    tlc.build(source={SCALE!r}, arch="sm_90a", flags=flags)
                    print("built")
                except ValueError as error:
                    print(error)
            try:
                tlc.build(source={SCALE!r}, arch="sm_90a", flags=["-j4"])
                print("built")
            except tlc.BuildError as error:
                print("nvcc's:", error.exit_code)
        """)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        lines = checked.stdout.splitlines()
        self.assertEqual(len(lines), len(refused) + 1, checked.stdout)
        for flags, line in zip(refused, lines):
            self.assertIn(f"flags= holds {flags[0]!r}, an option of tlc's own, not nvcc's", line)
        # tlc never reads one as its own (here its -j): -Xnvcc hands it to nvcc, which refuses it.
        self.assertEqual(lines[-1], "nvcc's: 1")
        self.assertFalse(os.path.exists(shell), "no shell ran")
        with open(victim) as file:
            self.assertEqual(file.read(), "precious\n")
        self.assertEqual(sorted(os.listdir(folder)), ["victim"])
        # nvcc's options in nvcc's spellings, one or two entries each, and -D and -I reach the
        # parse as they do on tlc's command line: the kernel's name and an array size are macros.
        os.makedirs(os.path.join(folder, "inc"))
        with open(os.path.join(folder, "inc", "size.h"), "w") as header:
            header.write("#define SIZE 64\n")
        kernel = ('#include "size.h"\n__global__ void KNAME(float* x) { __shared__ float '
                  's[SIZE * TILE]; s[threadIdx.x] = x[0]; x[1] = s[threadIdx.x]; }\n')
        built = self.build(f"""
            import tlc
            m = tlc.build(source={kernel!r}, arch="sm_90a",
                          flags=["-DTILE=64", "-D", "KNAME=tiled", "-Xcompiler", "-O3", "-I",
                                 {folder + "/inc"!r}, "-lineinfo", "-v"])
            print(list(m.tlc.launchers()))
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(built.stdout, "['tiled']\n")
        self.assertIn("#$ ", built.stderr, "-v is nvcc's (its commands), not tlc's")

    def test_relative_paths_are_the_callers_in_both_modes(self):
        code = r"""
            import os, tlc
            source = '#include "tile.h"\n__global__ void KNAME(int* p) { p[0] = TILE; }\n'
            names = []
            for cwd in ("a", "b"):
                os.chdir(cwd)
                for kwargs in ({"source": source, "flags": ["-Iinc"]},
                               {"source": source, "include_dirs": ["inc"]},
                               {"source": source.split("\n", 1)[1],
                                "flags": ["-include", "inc/tile.h"]},
                               {"sources": ["tiled.cu"], "flags": ["-Iinc"]}):
                    m = tlc.build(arch="sm_90a", **kwargs)
                    names.append(m.__name__)
                    print(cwd, list(m.tlc.launchers()))
                os.chdir("..")
            print(*sorted(set(names)), end=" \n")
        """
        folder = tempfile.mkdtemp(dir=SCRATCH, prefix="relative-")
        for cwd in ("a", "b"):
            os.makedirs(os.path.join(folder, cwd, "inc"))
            with open(os.path.join(folder, cwd, "inc", "tile.h"), "w") as header:
                header.write(f"#define TILE 4\n#define KNAME fill_{cwd}\n")
            with open(os.path.join(folder, cwd, "tiled.cu"), "w") as source:
                source.write('#include "tile.h"\n__global__ void KNAME(int* p) { p[0] = TILE; }\n')
        built = python(code, cwd=folder, TLC_CACHE_DIR=self.cache)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(built.stdout.splitlines()[:8],
                         ["a ['fill_a']"] * 4 + ["b ['fill_b']"] * 4, "each cwd's headers")
        # Modules of their own by their keys, none a rebuild renamed (NAME_<key>_1) because its
        # folder held the other cwd's.
        self.assertRegex(built.stdout.splitlines()[8], r"^(\w+_[0-9a-f]{12} ){8}$")

    def test_an_include_folder_with_a_comma_is_refused(self):
        folder = tempfile.mkdtemp(dir=SCRATCH, prefix="inc,comma-")
        checked = self.build(f"""
            import tlc
            try:
                tlc.build(source={SCALE!r}, arch="sm_90a", include_dirs=[{folder!r}])
            except ValueError as error:
                print(error)
        """)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        self.assertIn(f"include folder '{folder}' has a comma in its path", checked.stdout)

    def test_no_stderr_fails_no_build(self):
        # pythonw, or stderr closed (2>&-): sys.stderr is None. A slow build says it compiles,
        # and this source has a warning of nvcc's to show.
        source = "__global__ void warned(float* x) { int unused; x[0] = 1; }\n"
        built = self.build(f"""
            import sys, tlc
            sys.stderr = None
            m = tlc.build(source={source!r}, arch="sm_90a")
            print(list(m.tlc.launchers()))
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(built.stdout, "['warned']\n", "nothing else on stdout")
        again = self.build(f"""
            import tlc
            m = tlc.build(source={source!r}, arch="sm_90a")
        """)
        self.assertIn('variable "unused" was declared but never referenced', again.stderr)

    def test_threads_build_one_source_at_once(self):
        built = self.build(f"""
            import threading, tlc
            start = threading.Barrier(8)
            names, errors = [], []
            def one():
                start.wait()
                try:
                    names.append(tlc.build(source={SCALE + "// threads"!r}, arch="sm_90a").__name__)
                except BaseException as error:
                    errors.append(repr(error))
            threads = [threading.Thread(target=one) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            print(len(names), len(set(names)), errors)
        """)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual(built.stdout, "8 1 []\n", "one module, imported once, for all eight")


class Lock(unittest.TestCase):
    """Two builders of one module: one compiles, the other waits and says for whom; a builder
    killed at any point leaves nothing that makes a later call wait."""

    CODE = """
        import sys, tlc
        m = tlc.build(source=sys.argv[1], arch="sm_90a")
        print(m.__name__, flush=True)
    """

    def start(self, source, cache):
        return subprocess.Popen([PYTHON, "-c", textwrap.dedent(self.CODE), source],
                                env=environment(TLC_CACHE_DIR=cache), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def lock_holder(self, cache, timeout=60):
        """The pid a builder wrote into its lock file, once it holds it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for lock in glob.glob(os.path.join(cache, "python", "*.lock")):
                with open(lock) as file:
                    text = file.read().strip()
                if text:
                    return int(text)
            time.sleep(0.01)
        self.fail("no builder took the lock")

    def test_a_builder_killed_while_it_holds_the_lock_makes_no_one_wait(self):
        cache = tempfile.mkdtemp(dir=SCRATCH, prefix="lock-kill-")
        source = SCALE + "// killed\n"
        first = self.start(source, cache)
        holder = self.lock_holder(cache)
        self.assertEqual(holder, first.pid)
        first.send_signal(signal.SIGKILL)
        first.wait()
        started = time.monotonic()
        second = self.start(source, cache)
        out, err = second.communicate(timeout=300)
        self.assertEqual(second.returncode, 0, err)
        self.assertRegex(out, r"^kernels_[0-9a-f]{12}\n$")
        self.assertNotIn(f"waiting for process {first.pid}", err)
        print(f"the second builder returned after {time.monotonic() - started:.1f} s")

    def test_a_waiting_builder_names_the_live_holder(self):
        cache = tempfile.mkdtemp(dir=SCRATCH, prefix="lock-wait-")
        source = SCALE + "// waited for\n"
        first = self.start(source, cache)
        holder = self.lock_holder(cache)
        second = self.start(source, cache)
        out2, err2 = second.communicate(timeout=300)
        out1, err1 = first.communicate(timeout=300)
        self.assertEqual(first.returncode, 0, err1)
        self.assertEqual(second.returncode, 0, err2)
        self.assertEqual(out1, out2)
        self.assertIn(f"tlc.build: waiting for process {holder}, which is building kernels", err2)
        self.assertNotIn("compiling", err2, "the second found the first's build in the cache")

    @staticmethod
    def running(pid):
        try:
            with open(f"/proc/{pid}/stat") as file:
                return file.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    def test_ctrl_c_stops_tlc_and_leaves_nothing_behind(self):
        cache = tempfile.mkdtemp(dir=SCRATCH, prefix="lock-interrupt-")
        tools = tempfile.mkdtemp(dir=SCRATCH, prefix="slow-cc-")
        temporary = os.path.join(tools, "tmp")
        os.mkdir(temporary)
        pids = os.path.join(tools, "pids")
        # A host compiler that takes its time, so that the interrupt comes while nvcc runs it.
        slow = os.path.join(tools, "slow-g++")
        with open(slow, "w") as script:
            script.write(f'#!/bin/sh\necho $$ >> {pids}\nsleep 300 &\necho $! >> {pids}\n'
                         f'wait\nexec g++ "$@"\n')
        os.chmod(slow, 0o755)
        code = """
            import signal, sys, tlc
            signal.signal(signal.SIGINT, signal.default_int_handler)  # even if ours ignores it
            try:
                tlc.build(source=sys.argv[1], arch="sm_90a", flags=["-ccbin", sys.argv[2]])
            except KeyboardInterrupt:
                print("KeyboardInterrupt", flush=True)
        """
        child = subprocess.Popen(
            [PYTHON, "-c", textwrap.dedent(code), SCALE + "// interrupted\n", slow],
            env=environment(TLC_CACHE_DIR=cache, TMPDIR=temporary), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        started = []
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and len(started) < 2:
                time.sleep(0.1)
                if os.path.exists(pids):
                    with open(pids) as file:
                        started = [int(pid) for pid in file.read().split()]
            self.assertGreaterEqual(len(started), 2, "nvcc ran the host compiler")
            tlc_pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()
                        and self.parent(int(entry)) == child.pid]
            # To Python alone, as Jupyter's interrupt is: tlc hears of it from tlc.build only.
            child.send_signal(signal.SIGINT)
            interrupted = time.monotonic()
            out, err = child.communicate(timeout=120)
            self.assertEqual(out, "KeyboardInterrupt\n", err)
            self.assertLess(time.monotonic() - interrupted, 30, "tlc stopped at once")
            with open(pids) as file:
                started = [int(pid) for pid in file.read().split()]
            for pid in started + tlc_pids:
                self.assertFalse(self.running(pid), f"process {pid} is left running")
            left = [name for name in os.listdir(os.path.join(cache, "python"))
                    if name.startswith(".tlc-")] + os.listdir(temporary)
            self.assertEqual(left, [], "tlc removed what it made")
        finally:
            child.kill()
            child.communicate()
            for pid in started:
                if self.running(pid):
                    os.kill(pid, signal.SIGKILL)

    @staticmethod
    def parent(pid):
        try:
            with open(f"/proc/{pid}/stat") as file:
                return int(file.read().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ValueError, IndexError):
            return None

    def test_a_planted_link_is_never_written_through(self):
        cache = tempfile.mkdtemp(dir=SCRATCH, prefix="lock-link-")
        victim = os.path.join(cache, "victim")
        with open(victim, "w") as file:
            file.write("precious\n")
        code = """
            import hashlib, os, sys, tlc
            cache, victim, source = sys.argv[1:]
            # The temporary the source is written through, named as a guesser would name it.
            folder = os.path.join(cache, "python", "sources",
                                  hashlib.sha256(source.encode()).hexdigest()[:32])
            os.makedirs(folder, mode=0o700)
            os.symlink(victim, os.path.join(folder, f"kernels.cu.{os.getpid()}.tmp"))
            m = tlc.build(source=source, arch="sm_90a")
            lock = os.path.join(cache, "python", m.__name__ + ".lock")
            os.unlink(lock)
            os.symlink(victim, lock)
            try:
                tlc.build(source=source, arch="sm_90a")
            except tlc.BuildError as error:
                print(error)
        """
        built = run([PYTHON, "-c", textwrap.dedent(code), cache, victim, SCALE + "// linked\n"],
                    env=environment(TLC_CACHE_DIR=cache))
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertRegex(built.stdout, r"the lock file '.*\.lock' is a symbolic link")
        with open(victim) as file:
            self.assertEqual(file.read(), "precious\n")

    def test_a_cache_folder_others_could_write_is_refused(self):
        cache = tempfile.mkdtemp(dir=SCRATCH, prefix="lock-trust-")
        elsewhere = tempfile.mkdtemp(dir=SCRATCH, prefix="elsewhere-")
        python_folder = os.path.join(cache, "python")
        code = f"""
            import tlc
            try:
                m = tlc.build(source={SCALE + "// trusted?"!r}, arch="sm_90a")
                print("built")
            except tlc.BuildError as error:
                print(error)
        """
        def attempt(**env):
            built = python(code, TLC_CACHE_DIR=cache, **env)
            self.assertEqual(built.returncode, 0, built.stderr)
            return built.stdout
        self.assertEqual(attempt(), "built\n")
        os.chmod(python_folder, 0o777)
        self.assertIn(f"'{python_folder}' cannot be trusted: it is writable by other users "
                      f"(mode 0777)", attempt())
        os.chmod(python_folder, 0o775)
        self.assertIn("set TLC_CACHE_SHARED_GROUP to that group", attempt())
        # A group the cache's rules trust (docs/team-cache.md) is trusted here too.
        import grp
        group = grp.getgrgid(os.getegid()).gr_name
        os.chmod(python_folder, 0o2770)
        self.assertEqual(attempt(TLC_CACHE_SHARED_GROUP=group), "built\n")
        os.chmod(cache, 0o700)  # the group's now, as tlc made it (2770)
        os.chmod(python_folder, 0o700)
        sources = os.path.join(python_folder, "sources")
        os.rename(sources, os.path.join(elsewhere, "sources"))
        os.symlink(os.path.join(elsewhere, "sources"), sources)
        self.assertIn(f"'{sources}' cannot be trusted: it is a symbolic link", attempt())
        os.unlink(sources)
        if os.geteuid() == 0:
            os.mkdir(sources, 0o700)
            os.chown(sources, 65534, -1)
            self.assertIn(f"'{sources}' cannot be trusted: it belongs to user 65534", attempt())

    def test_a_cache_others_could_write_builds_elsewhere(self):
        # As the tlc command does: a warning, and a build that no later call finds.
        cache = tempfile.mkdtemp(dir=SCRATCH, prefix="open-cache-")
        os.chmod(cache, 0o777)
        built = python(f"""
            import tlc
            m = tlc.build(source={SCALE + "// open cache"!r}, arch="sm_90a")
            print(m.__file__)
        """, TLC_CACHE_DIR=cache)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertIn(f"'{cache}' cannot be trusted: it is writable by other users (mode 0777); "
                      f"building in ", built.stderr)
        self.assertFalse(built.stdout.startswith(cache), built.stdout)
        self.assertNotIn("python", os.listdir(cache))  # (tlc keeps its probes/ there, private)


class CMakePackage(unittest.TestCase):
    """find_package(tlc) with the wheel alone: tlc_DIR from tlc.cmake_dir()."""

    def test_a_cmake_project_builds_a_launcher_library(self):
        if not shutil.which("cmake"):
            skip("no cmake here")
        project = tempfile.mkdtemp(dir=SCRATCH, prefix="cmake-")
        shutil.copy(VADD, os.path.join(project, "vadd.cu"))
        with open(os.path.join(project, "CMakeLists.txt"), "w") as lists:
            lists.write(textwrap.dedent("""\
                cmake_minimum_required(VERSION 3.25)
                project(consumer LANGUAGES C CXX)
                find_package(tlc REQUIRED)
                tlc_add_launcher_library(vadd SOURCES vadd.cu ARCHS sm_90a)
                add_executable(uses uses.c)
                target_link_libraries(uses PRIVATE vadd)
                """))
        with open(os.path.join(project, "uses.c"), "w") as uses:
            uses.write('#include "vadd.h"\nint main(void) { return tlc_vadd_load != 0 ? 0 : 1; }\n')
        cmake_dir = python("import tlc; print(tlc.cmake_dir())").stdout.strip()
        env = environment(TLC_CACHE_DIR=project + "/cache", CUDA_PATH=SYSTEM_TOOLKIT)
        configured = run(["cmake", "-S", project, "-B", project + "/build", "-G", "Ninja",
                          f"-Dtlc_DIR={cmake_dir}"], env=env)
        self.assertEqual(configured.returncode, 0, configured.stdout + configured.stderr)
        built = run(["cmake", "--build", project + "/build"], env=env)
        self.assertEqual(built.returncode, 0, built.stdout + built.stderr)
        self.assertIn(TLC, built.stdout + open(project + "/build/build.ninja").read(),
                      "tlc::tlc is the wheel's tlc")


class CudaWheels(unittest.TestCase):
    """`pip install tlc[cuda]`: NVIDIA's CUDA wheels as the toolkit, the system's hidden."""

    def test_build_with_the_system_toolkit_hidden(self):
        if not can_hide():
            skip("no root or unshare here to hide the system's CUDA toolkit")
        venv = os.path.join(SCRATCH, "venv-cuda")
        shutil.rmtree(venv, ignore_errors=True)
        self.assertEqual(run([sys.executable, "-m", "venv", venv]).returncode, 0)
        installed = run([os.path.join(venv, "bin", "pip"), "install", "--disable-pip-version-check",
                         "-q", wheel_file() + "[cuda]"])
        if installed.returncode != 0:
            skip(f"pip could not install tlc[cuda] (no PyPI here?): {installed.stderr[-400:]}")
        tlc = os.path.join(venv, "bin", "tlc")
        env = environment(TLC_CACHE_DIR=venv + "/cache", CUDA_PATH=None, CUDA_HOME=None)
        env["PATH"] = os.path.join(venv, "bin") + ":/usr/bin:/bin"
        real = os.path.realpath(SYSTEM_TOOLKIT)
        version = hidden([real], [tlc, "--version"], env)
        self.assertIn("chosen by NVIDIA's CUDA wheels in tlc's own Python environment",
                      version.stdout, version.stdout + version.stderr)
        self.assertIn(os.path.join("site-packages", "nvidia", "cu13"), version.stdout)
        with tempfile.TemporaryDirectory() as out:
            built = hidden([real], [tlc, "build", VADD, "-o", out + "/vadd", "--arch", "sm_90a",
                                    "--python", "-q"], env)
            self.assertEqual(built.returncode, 0, built.stdout + built.stderr)
            self.assertTrue(os.path.exists(out + "/vadd/vadd/tlc/_ext.abi3.so"))
        code = f"import tlc; m = tlc.build(source={SCALE!r}, arch='sm_90a'); print(m.__name__)"
        from_python = hidden([real], [os.path.join(venv, "bin", "python"), "-c", code], env)
        self.assertEqual(from_python.returncode, 0, from_python.stderr)


class ModuleWheels(unittest.TestCase):
    """`tlc build --python --wheel`: the module as a wheel, installed where no toolkit is."""

    def test_a_module_wheel_installs_and_imports_in_a_second_venv(self):
        out = tempfile.mkdtemp(dir=SCRATCH, prefix="module-wheel-")
        built = run([TLC, "build", VADD, "-o", out + "/vadd", "--arch", "sm_90a", "--python",
                     "--wheel", "-q"], env=environment(TLC_CACHE_DIR=out + "/cache"))
        self.assertEqual(built.returncode, 0, built.stderr)
        wheels = glob.glob(out + "/vadd/vadd-*.whl")
        self.assertEqual(len(wheels), 1, os.listdir(out + "/vadd"))
        self.assertRegex(os.path.basename(wheels[0]),
                         r"^vadd-0\.1\.0-cp310-abi3-manylinux_2_\d+_x86_64\.whl$")
        with zipfile.ZipFile(wheels[0]) as archive:
            names = archive.namelist()
            metadata = archive.read("vadd-0.1.0.dist-info/METADATA").decode()
        self.assertIn("vadd/libvadd.so", names)
        self.assertIn("vadd/tlc/_ext.abi3.so", names)
        self.assertIn("sm_90a", metadata)
        self.assertNotIn("Requires-Dist", metadata, "no dependency, torch's least of all")
        venv = os.path.join(out, "venv")
        self.assertEqual(run([sys.executable, "-m", "venv", venv]).returncode, 0)
        installed = run([os.path.join(venv, "bin", "pip"), "install", "--no-deps",
                         "--disable-pip-version-check", wheels[0]])
        self.assertEqual(installed.returncode, 0, installed.stderr)
        imported = run([os.path.join(venv, "bin", "python"), "-c",
                        "import vadd; print(sorted(vadd.tlc.launchers())); "
                        "print(vadd.tlc.image_target.__name__)"],
                       env={"PATH": "/usr/bin:/bin"}, cwd="/")
        self.assertEqual(imported.returncode, 0, imported.stderr)
        self.assertIn("['vadd']", imported.stdout)


if __name__ == "__main__":
    unittest.main()
