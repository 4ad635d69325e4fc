"""`tlc build --python` as a command: the launcher names a package cannot hold, the manifest and
`tlc verify`, the build cache restoring the package's subfolders, reproducible outputs and
--emit-only. Runs tlc (and so nvcc) itself; test/python/CMakeLists.txt sets the environment."""

import filecmp
import importlib.util
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import unittest

TLC = os.environ["TLC"]
SOURCES = os.path.join(os.environ["TLC_TEST_SOURCE_DIR"], "modules")
SCRATCH = os.environ["TLC_TEST_SCRATCH"]
PACKAGE_FILES = ["pykernels/__init__.py", "pykernels/__init__.pyi", "pykernels/py.typed",
                 "pykernels/tlc/__init__.py", "pykernels/tlc/__init__.pyi",
                 "pykernels/tlc/_ext.abi3.so"]


def scratch(name):
    path = os.path.join(SCRATCH, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def tlc(*args, cache=None):
    environment = dict(os.environ)
    if cache:
        environment["TLC_CACHE_DIR"] = cache
    else:
        environment["TLC_DISABLE_CACHE"] = "1"
    return subprocess.run([TLC, *args], capture_output=True, text=True, env=environment)


def build(source, out, *flags, cache=None):
    return tlc("build", os.path.join(SOURCES, source), "--arch", "sm_90a", "-o", out, *flags,
               cache=cache)


class NameTests(unittest.TestCase):
    def test_names_a_package_cannot_hold(self):
        out = os.path.join(scratch("names"), "out")
        result = build("bad_names.cu", out, "--python")
        self.assertEqual(result.returncode, 1, result.stderr)
        for name, why in [("tlc", "is the package's helper submodule (NAME.tlc)"),
                          ("lambda", "is a Python keyword"),
                          ("__path__", "is reserved for the package's own attributes (__dunder__ names)")]:
            self.assertRegex(result.stderr, rf"bad_names.cu:\d+:\d+: launcher name '{name}' of "
                             rf"kernel '[^']*' {re.escape(why)}; rename it with "
                             r"TLC_NAME\(\"...\"\) from tlc/annotations.h to build it with "
                             r"--python")
        self.assertFalse(os.path.exists(out), "a failed build publishes nothing")

    def test_the_c_api_takes_them(self):
        out = os.path.join(scratch("names_c"), "out")
        result = build("bad_names.cu", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "bad_names")))


class OutputTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = scratch("outputs")
        cls.cache = os.path.join(cls.root, "cache")
        cls.first = os.path.join(cls.root, "first")
        result = build("pykernels.cu", cls.first, "--python", cache=cls.cache)
        assert result.returncode == 0, result.stderr

    def test_manifest_lists_the_package_and_verify_checks_it(self):
        with open(os.path.join(self.first, "pykernels.json")) as file:
            outputs = json.load(file)["outputs"]
        files = {role: output["file"] for role, output in outputs.items()}
        self.assertEqual(files["python_extension"], "pykernels/tlc/_ext.abi3.so")
        self.assertEqual(sorted(f for r, f in files.items() if r.startswith("python_")),
                         sorted(PACKAGE_FILES))
        result = tlc("verify", self.first)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("ok: 9 files of pykernels match the manifest", result.stdout)

    def test_verify_refuses_compiled_python_it_cannot_check(self):
        # An unchecked-hash .pyc runs in place of the package's __init__.py whatever that says;
        # a library in a top-level __pycache__ is as unlisted as anywhere else.
        out = os.path.join(self.root, "planted")
        result = build("pykernels.cu", out, "--python", cache=self.cache)
        self.assertEqual(result.returncode, 0, result.stderr)
        evil = os.path.join(self.root, "evil.py")
        with open(evil, "w") as file:
            file.write("raise SystemExit('planted')\n")
        package_cache = os.path.join(out, "pykernels", "__pycache__")
        os.makedirs(package_cache)
        py_compile.compile(evil, cfile=importlib.util.cache_from_source(
            os.path.join(out, "pykernels", "__init__.py")),
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        for extra in ([], ["--allow-extra"]):
            result = tlc("verify", *extra, out)
            self.assertEqual(result.returncode, 1, result.stdout)
            self.assertIn("pykernels/__pycache__/__init__.", result.stderr)
            self.assertIn("__pycache__ holds what Python runs in place of the package's sources",
                          result.stderr)
        shutil.rmtree(package_cache)
        os.makedirs(os.path.join(out, "__pycache__"))
        with open(os.path.join(out, "__pycache__", "libevil.so"), "w") as file:
            file.write("x")
        result = tlc("verify", out)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("__pycache__/libevil.so: not in the manifest", result.stderr)
        shutil.rmtree(os.path.join(out, "__pycache__"))
        self.assertEqual(tlc("verify", out).returncode, 0)
        # An empty __pycache__ beside the outputs (its .pyc removed) runs nothing: --allow-extra
        # allows it, as any other folder there.
        os.makedirs(os.path.join(out, "__pycache__"))
        self.assertEqual(tlc("verify", "--allow-extra", out).returncode, 0)
        self.assertEqual(tlc("verify", out).returncode, 1)

    def test_the_cache_restores_the_package(self):
        second = os.path.join(self.root, "second")
        result = build("pykernels.cu", second, "--python", cache=self.cache)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("cached pykernels", result.stdout + result.stderr)
        for file in PACKAGE_FILES:
            self.assertTrue(filecmp.cmp(os.path.join(self.first, file),
                                        os.path.join(second, file), shallow=False), file)
        # The restored package imports and launches (against the fake driver).
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import pykernels; "
                "pykernels.saxpy(0, 0, 1.0, 1, grid=1, block=1); print('launched')")
        run = subprocess.run([sys.executable, "-c", code, second], capture_output=True,
                             text=True)
        self.assertEqual(run.stdout.strip(), "launched", run.stderr)

    def test_without_python_the_key_differs(self):
        plain = os.path.join(self.root, "plain")
        result = build("pykernels.cu", plain, cache=self.cache)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("cached", result.stdout + result.stderr)
        self.assertFalse(os.path.exists(os.path.join(plain, "pykernels")))

    def test_outputs_are_reproducible(self):
        elsewhere = os.path.join(scratch("outputs_elsewhere"), "deeper", "out")
        result = build("pykernels.cu", elsewhere, "--python")
        self.assertEqual(result.returncode, 0, result.stderr)
        for file in PACKAGE_FILES + ["libpykernels.so", "pykernels.json"]:
            self.assertTrue(filecmp.cmp(os.path.join(self.first, file),
                                        os.path.join(elsewhere, file), shallow=False), file)

    def test_hostile_folder_names_reach_no_shell(self):
        # The extension's commands run in the work folder with tlc's own names (ToolPaths.h):
        # a source and an output folder that a shell would run something from build as any.
        # What a shell would run there touches $PWNED_AT: an absolute path, as the tools run in a
        # work folder that is gone after the build.
        root = scratch("hostile")
        marker = os.path.join(root, "PWNED")
        os.environ["PWNED_AT"] = marker
        folder = os.path.join(root, 's $(touch "$PWNED_AT");x')
        os.makedirs(folder)
        shutil.copy(os.path.join(SOURCES, "pykernels.cu"), os.path.join(folder, "a;touch pwned.cu"))
        out = os.path.join(root, "o `touch \"$PWNED_AT\"` 'q'")
        result = tlc("build", os.path.join(folder, "a;touch pwned.cu"), "--name", "pykernels",
                     "--arch", "sm_90a", "-o", out, "--python")
        self.assertEqual(result.returncode, 0, result.stderr)
        for file in PACKAGE_FILES:
            self.assertTrue(os.path.isfile(os.path.join(out, file)), file)
        self.assertEqual(tlc("verify", out).returncode, 0)
        self.assertFalse(os.path.exists(marker))
        self.assertFalse(os.path.exists(os.path.join(folder, "pwned.cu")))

    def test_emit_only_writes_the_sources(self):
        out = os.path.join(scratch("emit"), "out")
        result = build("pykernels.cu", out, "--python", "--emit-only")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "pykernels_python.c")))
        for file in PACKAGE_FILES[:-1]:
            self.assertTrue(os.path.exists(os.path.join(out, file)), file)
        self.assertFalse(os.path.exists(os.path.join(out, PACKAGE_FILES[-1])))


if __name__ == "__main__":
    unittest.main()
