"""bench/python's helpers without a GPU: parts.c (what a launch pays outside tlc's binding, timed
in C) against the C stand-in of a tensor with DLPack's exchange API (standins.c), and bench.py's
sum of the parts. The GPU benchmark trusts both; here they are compiled as scripts/gpu-test and
callgrind.py compile them, and checked for what they return and refuse."""

import contextlib
import io
import os
import subprocess
import sys
import sysconfig
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(ROOT, "bench", "python")


def compile_extension(source, name, folder):
    """`source` as the extension module `name` of this interpreter, in `folder`."""
    suffix = ".abi3.so" if name == "tlc_bench_parts" else sysconfig.get_config_var("EXT_SUFFIX")
    target = os.path.join(folder, name + suffix)
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"],
                    "-I", os.path.join(ROOT, "python", "src"), os.path.join(BENCH, source), "-o",
                    target], check=True)


class BenchPartsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = os.path.join(os.environ.get("TLC_TEST_SCRATCH", "/tmp"), "bench_parts")
        os.makedirs(folder, exist_ok=True)
        compile_extension("parts.c", "tlc_bench_parts", folder)
        compile_extension("standins.c", "standins", folder)
        sys.path.insert(0, folder)
        import standins
        import tlc_bench_parts

        cls.parts, cls.standins = tlc_bench_parts, standins

    def test_the_call_takes_a_launchers_arguments_and_does_nothing(self):
        self.assertIsNone(self.parts.call(1, 2, 3, 4.0, grid=1, block=32))
        self.assertIsNone(self.parts.call())

    def test_timings_are_seconds(self):
        tensor = self.standins.ExchangeTensor(0x1000, 0)
        for seconds in (self.parts.gil(1000), self.parts.exchange(tensor, 1000),
                        self.parts.stream(tensor, 1000)):
            self.assertIsInstance(seconds, float)
            self.assertGreater(seconds, 0.0)
            self.assertLess(seconds, 10.0)

    def test_refusals(self):
        tensor = self.standins.ExchangeTensor(0x1000, 0)
        with self.assertRaises(ValueError):
            self.parts.gil(0)
        with self.assertRaises(TypeError):
            self.parts.exchange(tensor)
        with self.assertRaises(ValueError):
            self.parts.stream(tensor, -1)
        # A type without the exchange API in its own dictionary, as the binding requires.
        with self.assertRaises(KeyError):
            self.parts.exchange(self.standins.Tensor(0x1000, 0), 10)


class BenchSumTests(unittest.TestCase):
    def test_the_least_a_torch_tensor_call_costs(self):
        sys.path.insert(0, BENCH)
        import bench

        results = {"C: tlc launcher": (3.0, 1.02), "part: Python call": (0.04, 0.01),
                   "part: GIL": (0.07, 0.02), "part: torch tensor view": (0.06, 0.02),
                   "part: torch stream": (0.02, 0.01), "tlc: torch tensors": (3.6, 1.22)}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            bench.print_parts(results)
        lines = printed.getvalue().splitlines()
        # 3.0 + 0.04 + 0.07 + 2 * 0.06 + 0.02: the view is paid once per tensor, empty4 has two.
        self.assertIn("costs at least 3.25 µs (1.10x the C floor)", lines[0])
        self.assertIn("its binding adds 0.35 µs (0.12x the C floor)", lines[1])
        with contextlib.redirect_stdout(io.StringIO()) as nothing:
            bench.print_parts({"tlc: torch tensors": (3.6, 1.22)})
        self.assertEqual(nothing.getvalue(), "")  # a run without the parts says nothing


if __name__ == "__main__":
    unittest.main()
