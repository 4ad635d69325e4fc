"""tlc.build: CUDA source in, the imported launcher package out.

One call is one ``tlc build --python`` of this installation's ``tlc``, into a folder of tlc's
build cache named after the call's inputs (``<cache>/python/<name>_<key>``), then an import of
the package it made. The ``tlc`` command does the work and keeps the cache: a second call with
the same source and options, in this process or another, is its cache hit; a changed source,
header or flag rebuilds.

Concurrency: calls that build the same folder take an exclusive ``flock`` on its lock file, so one
compiles and the others then find its result in the cache. The kernel releases such a lock when
its holder dies, SIGKILL included, so no later call ever waits for a dead builder; a call that
waits for a live one says so on stderr, with the holder's pid.
"""

import errno
import fcntl
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time

from . import _gpu
from ._install import executable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FORMAT = 1  # of the output folders' key: bump when what the key covers changes
_PROGRESS_AFTER = 0.5  # seconds: a build longer than this says what it does on stderr


class BuildError(RuntimeError):
    """A build that failed: ``message`` holds tlc's and the compilers' diagnostics, with the line
    and column in your source (a ``source=`` string is the file ``NAME.cu``), ``exit_code`` tlc's
    exit status (1: the source, 2: the options, 3: the toolchain; docs/cli.md)."""

    def __init__(self, message, exit_code=None, command=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = command


def _cache_root():
    """tlc's build cache, as the tlc command finds it (lib/cache/Cache.cpp: defaultCacheDir)."""
    if os.environ.get("TLC_CACHE_DIR"):
        return os.environ["TLC_CACHE_DIR"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "tlc")
    return os.path.join(os.path.expanduser("~"), ".cache", "tlc")


def _private_folder(path):
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def _write_once(path, data):
    """Writes `path` unless it already holds `data`: a temporary and a rename, so no reader
    ever sees it half-written."""
    try:
        with open(path, "rb") as existing:
            if existing.read() == data:
                return
    except FileNotFoundError:
        pass
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def _strings(name, values):
    if isinstance(values, (str, bytes, os.PathLike)):
        raise TypeError(f"tlc.build: {name} takes a list of strings, not one string")
    return [os.fspath(value) for value in values]


def _arch_arguments(arch):
    if arch is None:
        arch = _gpu.current_arch()  # the GPU's, asked of the driver; None without one
    if arch is None:
        return [], "nvcc's default"
    archs = [arch] if isinstance(arch, str) else list(arch)
    arguments = []
    for one in archs:
        arguments += ["--arch", str(one)]
    return arguments, ", ".join(str(one) for one in archs)


class _Progress:
    """Says on stderr what a build does once it takes longer than a moment (none on a cache
    hit), and how long it took."""

    def __init__(self, what):
        self._what = what
        self._start = time.monotonic()
        self._said = False
        self._timer = threading.Timer(_PROGRESS_AFTER, self._say)
        self._timer.daemon = True
        self._timer.start()

    def _say(self):
        self._said = True
        print(f"tlc.build: compiling {self._what} ...", file=sys.stderr, flush=True)

    def done(self, ok):
        self._timer.cancel()
        if self._said and ok:
            elapsed = time.monotonic() - self._start
            print(f"tlc.build: compiled {self._what} in {elapsed:.1f} s", file=sys.stderr,
                  flush=True)


class _BuildLock:
    """An exclusive flock on `path` held while one process builds a folder. The holder writes its
    pid into the file, so that a waiter can say whom it waits for."""

    def __init__(self, path, what):
        self._path = path
        self._what = what
        self._fd = None

    def __enter__(self):
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                os.close(fd)
                raise
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            print(f"tlc.build: waiting for process {holder}, which is building {self._what} "
                  f"(lock {self._path})", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc):
        os.close(self._fd)  # releases the lock; the file stays, so no race on its removal


def _run_tlc(argv, cwd):
    """Runs tlc and returns its diagnostics (stderr: warnings, and -v's commands); its stdout is
    not this process's, which stays the caller's. Raises BuildError when it fails."""
    completed = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    diagnostics = completed.stderr.decode("utf-8", "replace")
    if completed.returncode != 0:
        raise BuildError(diagnostics.rstrip() or f"tlc exited with {completed.returncode}",
                         completed.returncode, argv)
    return diagnostics


def _kernels(manifest):
    return [kernel for kernel in manifest.get("kernels", []) if isinstance(kernel, dict)]


def _check_entry(entry, manifest, source_name):
    """`entry` must name a __global__ kernel of the module: by its C++ name, launcher name or
    symbol."""
    kernels = _kernels(manifest)
    for kernel in kernels:
        if entry in (kernel.get("display_name"), kernel.get("name"), kernel.get("launcher"),
                     kernel.get("symbol")):
            return kernel
    listed = ", ".join(sorted(str(kernel.get("display_name")) for kernel in kernels)) or "none"
    raise BuildError(f"tlc.build: entry '{entry}' is not a __global__ kernel of {source_name}; "
                     f"its kernels: {listed}", 2)


_loaded = {}  # module name -> the SHA-256 of the library it was imported with


def _import(folder, module_name, manifest):
    library = manifest.get("outputs", {}).get("library", {}).get("sha256")
    if module_name in sys.modules:
        if _loaded.get(module_name) == library:
            return sys.modules[module_name]
        return None  # another library under this name is loaded: the caller renames
    package = os.path.join(folder, module_name)
    spec = importlib.util.spec_from_file_location(
        module_name, os.path.join(package, "__init__.py"), submodule_search_locations=[package])
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    _loaded[module_name] = library
    return module


def build(source=None, sources=None, name=None, arch=None, flags=(), include_dirs=(), entry=None,
          *, cache_dir=None, verbose=False, jobs=None):
    """Compiles CUDA source with tlc and returns the imported launcher package.

    source        CUDA C++ as a string (what a DSL generates); it is compiled as NAME.cu
    sources       or: .cu files (paths), compiled as one module
    name          the module's name (default: the first file's stem, or "kernels")
    arch          "sm_90a", "compute_80", a list of them, or "native"; None: the current GPU's
                  (asked of the driver, no torch needed), or nvcc's default without a GPU
    flags         nvcc's options, as on its command line ("-O3", "-DTILE=64", "-lineinfo")
    include_dirs  folders for #include
    entry         the name of a __global__ kernel the source must define (its C++ name,
                  launcher name or symbol); BuildError names it and lists the kernels otherwise
    cache_dir     where the built modules go (default: tlc's build cache; TLC_CACHE_DIR)
    verbose       show tlc's commands (-v)
    jobs          parallel jobs (default: the CPUs this process may use)

    The module's attributes are the launchers (module.<kernel>(args..., grid=, block=)), plus
    module.tlc (launchers(), get(), register_torch_ops(), ...): docs/python.md.
    """
    if (source is None) == (sources is None):
        raise TypeError("tlc.build: give either source= (CUDA source as a string) or sources= "
                        "(a list of .cu files)")
    flags = _strings("flags", flags)
    include_dirs = [os.path.abspath(folder) for folder in _strings("include_dirs", include_dirs)]
    if sources is not None:
        inputs = [os.path.abspath(path) for path in _strings("sources", sources)]
        if not inputs:
            raise TypeError("tlc.build: sources= is empty")
        default_name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(inputs[0]))[0])
    else:
        if not isinstance(source, str):
            raise TypeError(f"tlc.build: source= takes CUDA source as a str, not "
                            f"{type(source).__name__}")
        default_name = "kernels"
    name = default_name if name is None else name
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError(f"tlc.build: name={name!r} is not a Python identifier")
    arch_arguments, arch_text = _arch_arguments(arch)
    tlc = executable()

    root = _private_folder(os.path.join(os.path.abspath(cache_dir or _cache_root()), "python"))
    if source is not None:
        # Content-addressed, so the same source is the same file (and path) every time: nvcc
        # hashes the compiled file's path into internal names, and tlc's cache keys it.
        encoded = source.encode("utf-8")
        folder = _private_folder(os.path.join(root, "sources",
                                              hashlib.sha256(encoded).hexdigest()[:32]))
        _write_once(os.path.join(folder, name + ".cu"), encoded)
        inputs, cwd, source_name = [name + ".cu"], folder, name + ".cu"
    else:
        cwd, source_name = None, ", ".join(os.path.basename(path) for path in inputs)

    tlc_stat = os.stat(tlc)
    key = hashlib.sha256(json.dumps({
        "format": _FORMAT, "tlc": [tlc, tlc_stat.st_size, tlc_stat.st_mtime_ns],
        "name": name, "inputs": [os.path.join(cwd, path) if cwd else path for path in inputs],
        "arch": arch_arguments, "flags": flags, "include": include_dirs,
        "toolkit": [os.environ.get(variable) for variable in ("CUDA_PATH", "CUDA_HOME")],
    }, sort_keys=True).encode()).hexdigest()

    for attempt in range(4):
        # The name the module has on disk and in sys.modules: unique to these inputs, so two
        # builds never share a library soname or a module in one process.
        module_name = f"{name}_{key[:12]}" + (f"_{attempt}" if attempt else "")
        out = os.path.join(root, module_name)
        argv = [tlc, "build", *inputs, "-o", out, "--python", "--name", module_name,
                *arch_arguments, *flags]
        for folder in include_dirs:
            argv += ["-I", folder]
        argv.append("-v" if verbose else "-q")
        if jobs:
            argv += ["-j", str(int(jobs))]
        what = f"{name} ({source_name}) for {arch_text}"
        with _BuildLock(os.path.join(root, module_name + ".lock"), what):
            progress = _Progress(what)
            try:
                diagnostics = _run_tlc(argv, cwd)
            except BaseException:
                progress.done(False)
                raise
            progress.done(True)
            if diagnostics:
                sys.stderr.write(diagnostics)  # nvcc's and tlc's warnings, -v's commands
            with open(os.path.join(out, module_name + ".json"), encoding="utf-8") as file:
                manifest = json.load(file)
        if entry is not None:
            _check_entry(entry, manifest, source_name)
        module = _import(out, module_name, manifest)
        if module is not None:
            return module
        # This process imported an older build of these inputs (a header changed since): its
        # library cannot be replaced in place, so this build goes under a name of its own.
    raise BuildError(f"tlc.build: {name} was rebuilt too often in this process to import it again",
                     None)
