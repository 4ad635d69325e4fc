"""``python -m tlc``: ``--cmake-dir`` prints the folder of tlc's CMake package (as pybind11 and
nanobind do); ``--executable`` the tlc command; anything else runs that command with the
arguments (``python -m tlc build kernels.cu -o out``)."""

import os
import sys

from ._install import cmake_dir, executable


def main(argv):
    if argv == ["--cmake-dir"]:
        print(cmake_dir())
        return 0
    if argv == ["--executable"]:
        print(executable())
        return 0
    tlc = executable()
    os.execv(tlc, [tlc] + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
