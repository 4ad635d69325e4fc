"""Where this installation of tlc is: the wheel unpacks the ``tlc`` executable into the
environment's scripts folder (<prefix>/bin) and its data (templates, headers, the runtime and
binding archives, Clang's headers, the CMake package) under <prefix>/share, include and lib, as
``cmake --install`` lays them out, while this package goes to site-packages. The prefix is found
from this file's place for the usual schemes (a venv, the system, ``--user``, ``--target``), else
from the wheel's RECORD."""

import functools
import os
import sys
import sysconfig


def _is_prefix(prefix):
    return os.path.isfile(os.path.join(prefix, "bin", "tlc")) and os.path.isdir(
        os.path.join(prefix, "share", "tlc", "templates"))


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))  # <site-packages>/tlc
    site = os.path.dirname(here)
    # <prefix>/lib/python3.X/site-packages (venvs, the system, ~/.local, conda), then
    # --target DIR (scripts and data unpacked into DIR itself).
    yield os.path.dirname(os.path.dirname(os.path.dirname(site)))
    yield site
    for scheme in (sysconfig.get_default_scheme(), "posix_user"):
        try:
            yield sysconfig.get_path("data", scheme)
        except KeyError:
            pass
    yield sys.prefix


@functools.lru_cache(maxsize=None)
def prefix():
    """The installation prefix of the ``tlc`` this package belongs to."""
    for candidate in _candidates():
        if candidate and _is_prefix(candidate):
            return candidate
    # Anything else pip can do: ask the wheel's RECORD where the executable went.
    from importlib import metadata

    try:
        files = metadata.distribution("tlc").files or []
    except metadata.PackageNotFoundError:
        files = []
    for file in files:
        if str(file).replace("\\", "/").endswith("bin/tlc"):
            candidate = os.path.dirname(os.path.dirname(os.path.abspath(str(file.locate()))))
            if _is_prefix(candidate):
                return candidate
    raise RuntimeError("tlc: cannot find the tlc executable this package was installed with "
                       "(reinstall it: pip install --force-reinstall tlc)")


def executable():
    """The ``tlc`` command of this installation."""
    return os.path.join(prefix(), "bin", "tlc")


def cmake_dir():
    """The folder holding tlc's CMake package (tlcConfig.cmake): pass it as ``tlc_DIR``, or
    ``-DCMAKE_PREFIX_PATH`` its prefix, and ``find_package(tlc)`` finds it."""
    return os.path.join(prefix(), "lib", "cmake", "tlc")
