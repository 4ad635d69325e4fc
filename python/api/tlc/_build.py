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

Trust: what tlc.build imports is code, so the folders it makes things in are held to the rules
tlc's own build cache keeps (lib/cache/Cache.cpp): a folder, not a link; the user's own, or with
TLC_CACHE_SHARED_GROUP a member's of that group and of it; writable by nobody else (but that
group). A folder that breaks them is refused, never used.
"""

import errno
import fcntl
import functools
import grp
import hashlib
import importlib.util
import json
import os
import pwd
import re
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

from . import _gpu
from ._install import executable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FORMAT = 2  # of the output folders' key: bump when what the key covers changes
_PROGRESS_AFTER = 0.5  # seconds: a build longer than this says what it does on stderr
# NAME_<key>_N plus tlc's longest suffix (NAME_launcher.cpp) must fit a file name's 255 bytes.
_NAME_MAX = 200
_INTERRUPT_WAIT = 30.0  # seconds tlc gets to stop its tools and clean up after Ctrl-C
# Where a tlc option has a tlc.build argument (or setting) of its own, the refusal names it.
_INSTEAD = {"-o": "tlc.build picks the output folder", "--output": "tlc.build picks the output "
            "folder", "--name": "pass name=", "--arch": "pass arch= (or nvcc's -arch)",
            "--gencode": "use nvcc's -gencode", "-j": "pass jobs=", "--jobs": "pass jobs=",
            "--entry": "pass entry=", "--cuda-path": "set CUDA_PATH", "--no-cache": "set "
            "TLC_DISABLE_CACHE=1", "--Xnvcc": "flags reach nvcc as -Xnvcc already: give the flag "
            "itself", "-Xnvcc": "flags reach nvcc as -Xnvcc already: give the flag itself"}


class BuildError(RuntimeError):
    """A build that failed: ``message`` holds tlc's and the compilers' diagnostics, with the line
    and column in your source (a ``source=`` string is the file ``NAME.cu``), ``exit_code`` tlc's
    exit status (1: the source, 2: the options, 3: the toolchain; docs/cli.md)."""

    def __init__(self, message, exit_code=None, command=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = command


def _say(text):
    """Writes `text` to sys.stderr where there is one: it is None under pythonw or with stderr
    closed (2>&-), and a message must never fail a build that worked."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # a broken pipe, a closed stream
        pass


def _cache_root():
    """tlc's build cache, as the tlc command finds it (lib/cache/Cache.cpp: defaultCacheDir)."""
    if os.environ.get("TLC_CACHE_DIR"):
        return os.environ["TLC_CACHE_DIR"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "tlc")
    return os.path.join(os.path.expanduser("~"), ".cache", "tlc")


def _shared_group():
    """The group TLC_CACHE_SHARED_GROUP names, whose members share the cache (docs/team-cache.md),
    or None. A setting that cannot be used refuses the cache, as tlc's does."""
    name = os.environ.get("TLC_CACHE_SHARED_GROUP")
    if not name:
        return None
    try:
        gid = grp.getgrnam(name).gr_gid
    except KeyError:
        raise BuildError(f"tlc.build: TLC_CACHE_SHARED_GROUP names no group '{name}'") from None
    if gid != os.getegid() and gid not in os.getgroups():
        raise BuildError(f"tlc.build: TLC_CACHE_SHARED_GROUP names group '{name}', which you are "
                         f"not a member of")
    return gid


@functools.lru_cache(maxsize=None)
def _is_member(uid, gid):
    try:
        user = pwd.getpwuid(uid)
        return user.pw_gid == gid or gid in os.getgrouplist(user.pw_name, user.pw_gid)
    except (KeyError, OSError):
        return False


def _owner_problem(status, group):
    """Cache.cpp's trustedOwner: the user's, or a member's of the trusted group and of it."""
    if status.st_uid == os.geteuid() or (
            group is not None and status.st_gid == group and _is_member(status.st_uid, group)):
        return ""
    return f"belongs to user {status.st_uid}, not to you" + (
        f" nor to a member of group '{os.environ['TLC_CACHE_SHARED_GROUP']}' in it"
        if group is not None else "")


def _mode_problem(status, group):
    """Cache.cpp's trustedMode: writable by nobody else, or by the trusted group only."""
    mode = status.st_mode
    if not mode & stat.S_IWOTH and (not mode & stat.S_IWGRP
                                    or (group is not None and status.st_gid == group)):
        return ""
    return f"is writable by other users (mode {mode & 0o7777:04o})" + (
        "; for a cache its group shares, set TLC_CACHE_SHARED_GROUP to that group "
        "(docs/team-cache.md)" if not mode & stat.S_IWOTH and group is None else "")


def _distrust(status, group):
    """Why a part of the cache with this stat cannot be trusted ("" if it can)."""
    return _owner_problem(status, group) or _mode_problem(status, group)


_REFUSED = "; tlc.build will not build or import there"


def _untrusted(path, why):
    return BuildError(f"tlc.build: the cache folder '{path}' cannot be trusted: {why}{_REFUSED}")


def _share(path, group):
    """A folder tlc.build made, the trusted group's as tlc makes its own (2770), so that the
    group's other members can build there too."""
    if group is None:
        return
    os.chown(path, -1, group)
    os.chmod(path, (os.lstat(path).st_mode & 0o7777) | 0o2070)


def _check_folder(path, group):
    status = os.lstat(path)
    if stat.S_ISLNK(status.st_mode):
        raise _untrusted(path, "it is a symbolic link")
    if not stat.S_ISDIR(status.st_mode):
        raise _untrusted(path, "it is not a folder")
    why = _distrust(status, group)
    if why:
        raise _untrusted(path, "it " + why)


def _make_folder(path, group):
    """`path` made, the group's where the cache is shared; nothing if it exists already."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    else:
        _share(path, group)


def _cache_folder(path, group):
    """`path`, a folder in the cache that tlc.build makes things in, made if missing (its parent
    checked already) and then checked."""
    _make_folder(path, group)
    _check_folder(path, group)
    return path


def _cache_top(path, group):
    """The cache's own folder, made if missing and then, through any link, checked as tlc checks
    it (BuildCache::open): it and every folder above it, which must belong to this user or to
    root and, if others may write to them, be sticky as /tmp is, so nobody else can rename it."""
    if not os.path.lexists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _make_folder(path, group)
    real = os.path.realpath(path)
    _check_folder(real, group)
    above = os.path.dirname(real)
    while True:
        status = os.stat(above)
        why = ("" if status.st_uid == 0 else _owner_problem(status, group)) or (
            "" if status.st_mode & stat.S_ISVTX else _mode_problem(status, group))
        if why:
            raise _untrusted(real, f"'{above}' above it " + why)
        if above == os.path.dirname(above):
            return real
        above = os.path.dirname(above)


_private_folder = None  # this process's folder to build in when the cache cannot be trusted


def _private_build_folder():
    global _private_folder
    if _private_folder is None:
        _private_folder = tempfile.mkdtemp(prefix="tlc-build-")
    return _private_folder


def _file_mode(group):
    return 0o600 if group is None else 0o640


def _write_once(path, data, mode):
    """Writes `path` unless it already holds `data`: a temporary of its own (threads and
    processes write at once) and a rename, so no reader ever sees it half-written. Neither
    follows a link: the rename replaces one at `path`, and mkstemp never opens one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno not in (errno.ENOENT, errno.ELOOP):
            raise
    else:
        with os.fdopen(fd, "rb") as existing:
            if stat.S_ISREG(os.fstat(fd).st_mode) and existing.read() == data:
                return
    fd, temporary = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                                     dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), mode)
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _strings(name, values):
    """A list argument's str items (a path may be os.PathLike); None is an empty list."""
    if values is None:
        return []
    if isinstance(values, (str, bytes, os.PathLike)):
        raise TypeError(f"tlc.build: {name} takes a list of strings, not one string")
    try:
        items = [os.fspath(value) if isinstance(value, os.PathLike) else value
                 for value in values]
    except TypeError:
        raise TypeError(f"tlc.build: {name} takes a list of strings, not "
                        f"{type(values).__name__}") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"tlc.build: {name} takes a list of strings; it holds "
                            f"{type(item).__name__} {item!r}")
    return items


@functools.lru_cache(maxsize=None)
def _option_tables(tlc, identity):
    """tlc build's own options (spellings) and nvcc's (spellings, and those of them that take a
    value), read from `tlc build --help`, which prints both tables: whatever this tlc knows."""
    try:
        text = subprocess.run([tlc, "build", "--help"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        text = ""  # then -Xnvcc alone keeps flags from tlc's options
    own, _, nvcc = text.partition("\nnvcc's options")
    tlc_options, nvcc_options, nvcc_valued = set(), set(), set()
    for match in re.finditer(r"^  (-\S+)", own, re.M):
        tlc_options.update(match.group(1).split(","))
    placeholder = re.compile(r"(?:\{[^}]*\}|[A-Z][A-Z_]*(?:\[=[A-Z]+\])?)(?:,\.\.\.)?\Z")
    for match in re.finditer(r"^  (-[\w-]+(?:, -[\w-]+)*)(?: (\S+))?", nvcc, re.M):
        spellings = match.group(1).split(", ")
        nvcc_options.update(spellings)
        if match.group(2) and placeholder.match(match.group(2)):
            nvcc_valued.update(spellings)
    return frozenset(tlc_options - nvcc_options), frozenset(nvcc_valued)


def _nvcc_arguments(tlc, identity, flags):
    """`flags`, nvcc's options, as tlc's -Xnvcc: tlc reads each as nvcc's (nvcc's table routes -D,
    -I and the like to the parse too, an option the table lacks goes to nvcc as it is), never as
    one of its own. One of tlc's own is refused here, with what to pass instead."""
    tlc_only, nvcc_valued = _option_tables(tlc, identity)
    index = 0
    while index < len(flags):
        flag = flags[index]
        if not flag:
            raise ValueError("tlc.build: flags= holds an empty string")
        option = flag.split("=", 1)[0]
        if option in tlc_only or option in ("-Xnvcc", "--Xnvcc"):
            instead = _INSTEAD.get(option)
            raise ValueError(f"tlc.build: flags= holds {flag!r}, an option of tlc's own, not "
                             f"nvcc's: flags are nvcc's options (tlc build --help lists them)"
                             + (f"; {instead}" if instead else ""))
        index += 2 if flag in nvcc_valued else 1  # skips an option's value, '-Xcompiler -o'
    return [f"-Xnvcc={flag}" for flag in flags]


def _arch_arguments(arch):
    if arch is None:
        arch = _gpu.current_arch()  # the GPU's, asked of the driver; None without one
    if arch is None:
        return [], "nvcc's default"
    if isinstance(arch, str):
        archs = [arch]
    elif isinstance(arch, (bytes, bytearray)):
        raise TypeError(f"tlc.build: arch= takes a str or a list of str, not "
                        f"{type(arch).__name__}")
    else:
        archs = list(arch)
    for one in archs:
        if not isinstance(one, str):
            raise TypeError(f"tlc.build: arch= takes a str or a list of str; it holds "
                            f"{type(one).__name__} {one!r}")
    return [f"--arch={one}" for one in archs], ", ".join(archs)


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
        _say(f"tlc.build: compiling {self._what} ...\n")

    def done(self, ok):
        self._timer.cancel()
        if self._said and ok:
            elapsed = time.monotonic() - self._start
            _say(f"tlc.build: compiled {self._what} in {elapsed:.1f} s\n")


class _BuildLock:
    """An exclusive flock on `path` held while one process builds a folder. The holder writes its
    pid into the file, so that a waiter can say whom it waits for."""

    def __init__(self, path, what, group):
        self._path = path
        self._what = what
        self._group = group
        self._fd = None

    def __enter__(self):
        # Never through a link: the file is truncated and written, a link's target would be.
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW
        mode = 0o600 if self._group is None else 0o660
        try:
            fd = os.open(self._path, flags | os.O_CLOEXEC, mode)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise BuildError(f"tlc.build: the lock file '{self._path}' is a symbolic link; "
                                 f"tlc.build will not write through it") from None
            raise
        try:
            status = os.fstat(fd)
            if status.st_uid == os.geteuid() and stat.S_ISREG(status.st_mode):
                # The umask cut the group's bits off a lock the group shares.
                os.fchmod(fd, mode)
                status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise BuildError(f"tlc.build: the lock file '{self._path}' is not a regular "
                                 f"file")
            why = _distrust(status, self._group)
            if why:
                raise BuildError(f"tlc.build: the lock file '{self._path}' cannot be trusted: "
                                 f"it {why}")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                if error.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                _say(f"tlc.build: waiting for process {holder}, which is building {self._what} "
                     f"(lock {self._path})\n")
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(self, *exc):
        os.close(self._fd)  # releases the lock; the file stays, so no race on its removal


def _stop(process):
    """Ctrl-C, or anything else that ends the call, while tlc builds: SIGINT makes tlc stop its
    tools and remove what it made (exit 130), where SIGKILL would leave its staging folders and
    nvcc running. A second Ctrl-C while it does makes tlc end at once, still removing them; one
    that takes longer than _INTERRUPT_WAIT is killed."""
    deadline = time.monotonic() + _INTERRUPT_WAIT
    forward = True
    while True:
        try:
            if forward:
                forward = False
                process.send_signal(signal.SIGINT)  # nothing if it has ended
            process.communicate(timeout=max(0.0, deadline - time.monotonic()))
            return
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return
        except KeyboardInterrupt:
            forward = True


def _run_tlc(argv, shown):
    """Runs tlc and returns its diagnostics (stderr: warnings, and -v's commands); its stdout is
    not this process's, which stays the caller's. Raises BuildError when it fails. `shown`
    rewrites tlc's paths into the caller's names."""
    # tlc in a process group of its own, so that a terminal's Ctrl-C reaches Python alone, which
    # passes it on once (_stop): a second SIGINT makes tlc end at once.
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, **group)
    try:
        _, stderr = process.communicate()
    except BaseException:
        _stop(process)
        raise
    diagnostics = shown(stderr.decode("utf-8", "replace"))
    if process.returncode != 0:
        raise BuildError(diagnostics.rstrip() or f"tlc exited with {process.returncode}",
                         process.returncode, argv)
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
# One import at a time: a thread that found another's module half-imported in sys.modules would
# take it for an older build and build again under a new name.
_import_lock = threading.RLock()


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
    flags         nvcc's options, as on its command line ("-O3", "-DTILE=64", "-lineinfo"),
                  passed as tlc's -Xnvcc; one of tlc's own options is a ValueError. None: none
    include_dirs  folders for #include (None: none); relative paths here and in flags are
                  the caller's working folder's
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
    for folder in include_dirs:
        if "," in folder:
            # nvcc splits its option lists at commas, -I's too: no spelling reaches it whole.
            raise ValueError(f"tlc.build: include folder '{folder}' has a comma in its path, "
                             f"which nvcc reads as a list of folders: nvcc cannot take it")
    if sources is not None:
        inputs = [os.path.abspath(path) for path in _strings("sources", sources)]
        if not inputs:
            raise TypeError("tlc.build: sources= is empty")
        derived_from = os.path.basename(inputs[0])
        default_name = re.sub(r"\W", "_", os.path.splitext(derived_from)[0])
    else:
        if not isinstance(source, str):
            raise TypeError(f"tlc.build: source= takes CUDA source as a str, not "
                            f"{type(source).__name__}")
        try:
            encoded = source.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(f"tlc.build: source= holds {source[error.start]!r} at index "
                             f"{error.start}, a lone surrogate, which is no character: the "
                             f"source cannot be written as UTF-8") from None
        derived_from, default_name = None, "kernels"
    if name is None:
        name = default_name
        if not _IDENTIFIER.match(name) or len(name) > _NAME_MAX:
            raise ValueError(f"tlc.build: the module name {name!r}, made from "
                             f"{derived_from}, cannot name a module (an ASCII identifier of at "
                             f"most {_NAME_MAX} characters): pass name=")
    elif not isinstance(name, str):
        raise TypeError(f"tlc.build: name= takes a str, not {type(name).__name__}")
    elif not _IDENTIFIER.match(name):
        raise ValueError(f"tlc.build: name={name!r} is not an ASCII identifier (letters A-Z and "
                         f"a-z, digits and _, not first a digit), which it must be: it names "
                         f"the module's C symbols and files")
    elif len(name) > _NAME_MAX:
        raise ValueError(f"tlc.build: name= is {len(name)} characters long; at most "
                         f"{_NAME_MAX}, as it names the module's files")
    arch_arguments, arch_text = _arch_arguments(arch)
    tlc = executable()
    tlc_stat = os.stat(tlc)
    identity = [tlc, tlc_stat.st_size, tlc_stat.st_mtime_ns]
    nvcc_arguments = _nvcc_arguments(tlc, tuple(identity), flags)

    group = _shared_group()
    try:
        top = _cache_top(os.path.abspath(cache_dir or _cache_root()), group)
    except BuildError as error:
        if cache_dir is not None:
            raise  # the folder the caller chose
        # As the tlc command does with a cache it cannot trust: it warns and builds without one.
        top = _private_build_folder()
        group = None
        _say(f"{str(error).removesuffix(_REFUSED)}; building in '{top}' instead, which no later "
             f"call finds\n")
    root = _cache_folder(os.path.join(top, "python"), group)
    if source is not None:
        # Content-addressed, so the same source is the same file (and path) every time: nvcc
        # hashes the compiled file's path into internal names, and tlc's cache keys it.
        folder = _cache_folder(os.path.join(
            _cache_folder(os.path.join(root, "sources"), group),
            hashlib.sha256(encoded).hexdigest()[:32]), group)
        path = os.path.join(folder, name + ".cu")
        _write_once(path, encoded, _file_mode(group))
        inputs, source_name = [path], name + ".cu"

        def shown(text):
            return text.replace(folder + os.sep, "")  # the file is NAME.cu to the caller
    else:
        source_name = ", ".join(os.path.basename(path) for path in inputs)

        def shown(text):
            return text

    # tlc runs in the caller's working folder, so that relative paths in flags (-Iinc), in
    # CUDA_HOME or TLC_CACHE_DIR mean what they mean to the caller: the key covers it.
    key = hashlib.sha256(json.dumps({
        "format": _FORMAT, "tlc": identity, "name": name, "inputs": inputs, "cwd": os.getcwd(),
        "arch": arch_arguments, "flags": flags, "include": include_dirs,
        "toolkit": [os.environ.get(variable) for variable in ("CUDA_PATH", "CUDA_HOME")],
    }, sort_keys=True).encode()).hexdigest()

    for attempt in range(4):
        # The name the module has on disk and in sys.modules: unique to these inputs, so two
        # builds never share a library soname or a module in one process.
        module_name = f"{name}_{key[:12]}" + (f"_{attempt}" if attempt else "")
        out = os.path.join(root, module_name)
        argv = [tlc, "build", *inputs, "-o", out, "--python", "--name", module_name,
                *arch_arguments, *nvcc_arguments]
        for folder in include_dirs:
            argv += ["-I", folder]
        argv.append("-v" if verbose else "-q")
        if jobs:
            argv += ["-j", str(int(jobs))]
        what = f"{name} ({source_name}) for {arch_text}"
        with _BuildLock(os.path.join(root, module_name + ".lock"), what, group):
            progress = _Progress(what)
            try:
                diagnostics = _run_tlc(argv, shown)
            except BaseException:
                progress.done(False)
                raise
            progress.done(True)
            if diagnostics:
                _say(diagnostics)  # nvcc's and tlc's warnings, -v's commands
            with open(os.path.join(out, module_name + ".json"), encoding="utf-8") as file:
                manifest = json.load(file)
        if entry is not None:
            _check_entry(entry, manifest, source_name)
        with _import_lock:
            module = _import(out, module_name, manifest)
        if module is not None:
            return module
        # This process imported an older build of these inputs (a header changed since): its
        # library cannot be replaced in place, so this build goes under a name of its own.
    raise BuildError(f"tlc.build: {name} was rebuilt too often in this process to import it again",
                     None)
