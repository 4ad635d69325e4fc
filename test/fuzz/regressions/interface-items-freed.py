#!/usr/bin/env python3
"""Reproducer (test/fuzz/python_args.py found it): a use after free in the Python binding.
read_interface (python/src/Arrays.c) takes __cuda_array_interface__'s items as borrowed
references (interface_item: PyDict_GetItemWithError), then runs Python code while it still uses
them:
  data   interface_data converts data[0] through its __index__ (address_field), then reads
         data[1] from the same tuple;
  shape  read_layout_tuple converts shape[i] through its __index__ (integer_field), then reads
         shape[i + 1] (and the strides tuple, also borrowed), for a parameter that needs the
         layout (a tensor map: pykernels.tiles).
An __index__ that empties the dict frees the tuple, and PyTuple_GetItem reads freed memory.
Under Python's debug allocator (PYTHONMALLOC=debug, which overwrites freed memory) the interpreter
dies with SIGSEGV; without it the freed tuple usually still holds its items and the call goes on,
silently reading freed memory. Holding new references (PyDict_GetItemRef, or Py_INCREF of each
item) for as long as they are used fixes it.

Run with TLC_PYTHON_MODULES and TLC_TEST_LIBCUDA set as for test/python (scripts/fuzz --only
python does): each case runs in a child under PYTHONMALLOC=debug. Exit 1 while any crashes, 0
once every call returns or raises.
"""

import os
import subprocess
import sys

CASES = ["data", "shape"]


def parent():
    crashed = 0
    for case in CASES:
        child = subprocess.run([sys.executable, __file__, case],
                               env=dict(os.environ, PYTHONMALLOC="debug"))
        if child.returncode < 0:
            print(f"{case}: the interpreter died of signal {-child.returncode}")
            crashed = 1
    return crashed


def child(case):
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../python"))
    import harness

    class EmptiesTheInterface:
        """An int whose __index__ empties the dict its tuple is in, which frees the tuple."""

        def __index__(self):
            interface.clear()
            return 16 if case == "shape" else 0x1000

    interface = {"shape": (16,), "typestr": "<f4", "data": (0x1000, False), "version": 3,
                 "strides": None}
    if case == "data":
        interface["data"] = (EmptiesTheInterface(), False)
    else:
        interface["shape"] = (EmptiesTheInterface(), 8)

    class Array:
        @property
        def __cuda_array_interface__(self):
            return interface

    package = harness.import_package()
    # Python keeps up to 2000 freed tuples of each size for reuse, unerased: fill that list, so
    # that the tuple, once freed, goes back to the allocator, which overwrites it.
    junk = [(i, i) for i in range(5000)]
    del junk
    try:
        if case == "data":
            package.saxpy(Array(), 0, 1.0, 16, grid=1, block=1)
        else:
            package.tiles(Array(), 0, grid=1, block=1)
        print(f"{case}: launched")
    except (TypeError, ValueError, OverflowError) as error:
        print(f"{case}: {type(error).__name__}: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(child(sys.argv[1]) if len(sys.argv) > 1 else parent())
