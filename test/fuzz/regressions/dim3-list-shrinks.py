#!/usr/bin/env python3
"""Reproducer (test/fuzz/python_args.py found it): grid=, block= or cluster= given as a list whose
item's __index__ empties the list. python/src/Parse.c's parse_dim3 reads the size once, then
PyList_GetItem(value, i) for each item: once an item has shrunk the list, the next read fails
with IndexError ("list index out of range"), which the launcher raises instead of a TypeError or
ValueError naming the option. No memory is misused (each item is read through a new reference);
only the exception's type and message are wrong. A tuple cannot shrink; a list copied with
PySequence_Fast (or PySequence_Tuple) before it is read would not either.

Run with TLC_PYTHON_MODULES and TLC_TEST_LIBCUDA set as for test/python (scripts/fuzz --only
python does). Exits 1 while the launcher raises IndexError, 0 once it raises what it should.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../python"))
import harness  # noqa: E402


class Shrinks:
    def __init__(self, items):
        self.items = items

    def __index__(self):
        self.items.clear()
        return 1


package = harness.import_package()
block = [None, 1]
block[0] = Shrinks(block)
try:
    package.no_params(grid=1, block=block)
    print("launched")
    sys.exit(0)
except IndexError as error:
    print(f"IndexError: {error}")
    sys.exit(1)
except (TypeError, ValueError) as error:
    print(f"{type(error).__name__}: {error}")
    sys.exit(0)
