"""The Python package tlc builds (tlc build --python), imported from the build folder and run
against the fake CUDA driver: its names and signatures, its stubs, every argument error, and the
launches the driver records for each kind of argument. Run by CTest, one TestCase class per
process (test/python/CMakeLists.txt)."""

import ast
import ctypes
import importlib.util
import inspect
import itertools
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

import harness
from harness import (CudaArray, CudaArrayOnDevice, DLPackArray, LegacyDLPackArray, RawInterface,
                     Tensor, interface)

LAUNCHERS = ["axpy_float", "axpy_unsigned_int", "by_value", "Error", "halves", "image_target",
             "launchers", "nn_fill_long_long_4", "no_params", "nvcc_only", "pairs", "pointees",
             "register_torch_ops", "renamed", "saxpy", "scale_double_ptr_double",
             "scale_float_ptr_float", "tagged", "tiles", "untyped", "widths"]
# The C++ names launchers() lists besides the launchers' (the overloads' "scale" names two).
CXX_NAMES = {"axpy<float>": "axpy_float", "axpy<unsigned int>": "axpy_unsigned_int",
             "nn::fill<long long, 4U>": "nn_fill_long_long_4"}
OPTIONS = ["grid", "block", "shared_mem", "stream", "device", "cluster", "cooperative",
           "programmatic_dependent_launch", "l2_persist_base", "l2_persist_bytes",
           "l2_persist_hit_ratio"]
LAUNCH = {"grid": 4, "block": 128}


class Pair(ctypes.Structure):
    """pykernels.cu's struct Pair, laid out as on the device."""

    _fields_ = [("first", ctypes.c_int), ("second", ctypes.c_float),
                ("third", ctypes.c_double)]


class Index:
    """A number that is not an int but gives one (__index__), as a NumPy integer does."""

    def __index__(self):
        return 7


class Real:
    """A number that is not a float but gives one (__float__), as a NumPy float does."""

    def __float__(self):
        return 2.0


def float_bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def double_bits(value):
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def half_bits(value):
    """Python's own binary16 conversion (round to nearest even)."""
    return struct.unpack("<H", struct.pack("<e", value))[0]


def bfloat16_bits(value):
    """bfloat16 of a value float32 holds exactly: float32's bits rounded to nearest even."""
    bits = float_bits(value)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


class PackageTests(unittest.TestCase):
    """Names, signatures and stubs; no launches."""

    @classmethod
    def setUpClass(cls):
        with harness.ImportRecorder() as imports:
            cls.package = harness.import_package()
        cls.imported = imports.names

    def test_attributes_are_the_launchers_and_tlc(self):
        names = {name for name in dir(self.package) if not name.startswith("__")}
        self.assertEqual(names, set(LAUNCHERS) | {"tlc"})
        self.assertEqual(sorted(self.package.__all__), sorted(LAUNCHERS))

    def test_kernels_named_like_helpers_are_launchers(self):
        for name in ["register_torch_ops", "Error", "launchers", "image_target"]:
            function = getattr(self.package, name)
            self.assertEqual(type(function).__name__, "builtin_function_or_method", name)
            self.assertEqual(function.__name__, name)
            self.assertEqual(function.__module__, "pykernels")
        helpers = self.package.tlc
        self.assertTrue(issubclass(helpers.Error, RuntimeError))
        self.assertEqual(helpers.Error.__module__, "pykernels.tlc")
        self.assertTrue(callable(helpers.register_torch_ops))
        self.assertEqual(sorted(helpers.launchers()), sorted(LAUNCHERS + list(CXX_NAMES)))
        self.assertEqual(list(helpers.launch_options), OPTIONS)

    def test_importing_never_imports_torch(self):
        self.assertNotIn("torch", self.imported)
        self.assertNotIn("torch", sys.modules)

    def test_signatures(self):
        signature = inspect.signature(self.package.saxpy)
        parameters = list(signature.parameters.values())
        self.assertEqual([p.name for p in parameters], ["y", "x", "a", "n"] + OPTIONS)
        for parameter in parameters[:4]:
            self.assertEqual(parameter.kind, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            self.assertIs(parameter.default, inspect.Parameter.empty)
        for parameter in parameters[4:]:
            self.assertEqual(parameter.kind, inspect.Parameter.KEYWORD_ONLY, parameter.name)
        defaults = {p.name: p.default for p in parameters[4:]}
        self.assertIs(defaults["grid"], inspect.Parameter.empty)
        self.assertIs(defaults["block"], inspect.Parameter.empty)
        self.assertEqual(defaults["shared_mem"], 0)
        self.assertIsNone(defaults["stream"])
        self.assertEqual(defaults["l2_persist_hit_ratio"], 1.0)
        self.assertEqual(list(inspect.signature(self.package.no_params).parameters), OPTIONS)

    def test_keywords_that_would_collide_get_an_underscore(self):
        names = list(inspect.signature(self.package.renamed).parameters)[:3]
        self.assertEqual(names, ["grid_", "lambda_", "stream_"])
        self.assertEqual([row[0] for row in self.package.tlc.parameters("renamed")], names)

    def test_docstrings_name_the_kernel_and_its_parameters(self):
        doc = self.package.saxpy.__doc__
        self.assertIn("saxpy (pykernels.cu:", doc)
        self.assertIn("y: float * (a CUDA array or an address; the kernel may write it)", doc)
        self.assertIn("x: const float * (a CUDA array or an address)\n", doc)

    def test_parameter_tables(self):
        self.assertEqual(self.package.tlc.parameters("saxpy"), (
            ("y", "pointer", "float *", True, None, ("float32",)),
            ("x", "pointer", "const float *", False, None, ("float32",)),
            ("a", "scalar", "float", False, "f32", None),
            ("n", "scalar", "int", False, "i32", None),
        ))
        self.assertEqual(self.package.tlc.parameters("by_value")[0][:2], ("pair", "record"))
        self.assertEqual(self.package.tlc.parameters("untyped")[0][:2], ("handle", "record"))
        self.assertEqual([p[:2] for p in self.package.tlc.parameters("nvcc_only")],
                         [("arg0", "pointer"), ("arg1", "record")])
        self.assertEqual(self.package.tlc.parameters("tiles")[0][:2], ("in_", "tensor_map"))

    def stubs(self, *path):
        with open(os.path.join(harness.OUTPUT_DIR, "pykernels", *path)) as file:
            return ast.parse(file.read())

    def test_stubs_match_the_functions(self):
        functions = {node.name: node for node in self.stubs("__init__.pyi").body
                     if isinstance(node, ast.FunctionDef) and not node.name.startswith("__")}
        self.assertEqual(sorted(functions), sorted(LAUNCHERS))
        for name, node in functions.items():
            stub = [a.arg for a in node.args.args] + [a.arg for a in node.args.kwonlyargs]
            self.assertEqual(stub, list(inspect.signature(getattr(self.package, name)).parameters),
                             name)
            self.assertEqual(ast.unparse(node.returns), "None")
        annotations = {a.arg: ast.unparse(a.annotation) for a in functions["saxpy"].args.args}
        self.assertEqual(annotations, {"y": "tlc.Pointer", "x": "tlc.Pointer", "a": "float",
                                       "n": "int"})
        widths = [ast.unparse(a.annotation) for a in functions["widths"].args.args]
        self.assertEqual(widths, ["bool"] + ["int"] * 8 + ["float", "float", "tlc.Pointer"])
        self.assertEqual(ast.unparse(functions["by_value"].args.args[0].annotation), "tlc.Record")
        self.assertEqual(ast.unparse(functions["tiles"].args.args[0].annotation), "tlc.Array")
        self.assertIn("saxpy (pykernels.cu:", ast.get_docstring(functions["saxpy"]))

    def test_helper_stubs_define_what_the_package_stubs_name(self):
        defined = {node.targets[0].id for node in self.stubs("tlc", "__init__.pyi").body
                   if isinstance(node, ast.Assign)}
        self.assertLessEqual({"Pointer", "Array", "Record", "Dim3", "Stream"}, defined)
        self.assertTrue(os.path.exists(os.path.join(harness.OUTPUT_DIR, "pykernels", "py.typed")))

    def test_launchers_by_cxx_name(self):
        get, launchers = self.package.tlc.get, self.package.tlc.launchers()
        for cxx_name, name in CXX_NAMES.items():
            self.assertIs(launchers[cxx_name], getattr(self.package, name))
            self.assertIs(get(cxx_name), getattr(self.package, name))
            self.assertIs(get(name), getattr(self.package, name))
        axpy_float, axpy_unsigned = self.package.axpy_float, self.package.axpy_unsigned_int
        fill = self.package.nn_fill_long_long_4
        for spelling, launcher in [
            (" axpy < float > ", axpy_float), ("axpy<unsigned>", axpy_unsigned),
            ("axpy<unsigned int>", axpy_unsigned), ("axpy<int unsigned>", axpy_unsigned),
            ("nn::fill<long long,4U>", fill), ("nn::fill<long long int, 4>", fill),
            ("::nn::fill<signed long long, 0x4>", fill), ("nn :: fill < long long , 4ull >", fill),
            ("saxpy", self.package.saxpy),
            ("scale_float_ptr_float", self.package.scale_float_ptr_float),
        ]:
            with self.subTest(spelling):
                self.assertIs(get(spelling), launcher)
        self.assertNotIn("scale", launchers)
        with self.assertRaisesRegex(KeyError, r"pykernels.tlc.get: 'scale' names 2 kernels, the "
                                    r"launchers scale_(float_ptr_float|double_ptr_double), "
                                    r"scale_(float_ptr_float|double_ptr_double); get one by its "
                                    r"launcher name"):
            get("scale")
        for missing in ["axpy<double>", "axpy", "nn::fill<long long, 5>", "fill<long long, 4>"]:
            with self.subTest(missing), self.assertRaisesRegex(
                    KeyError, rf"no launcher of pykernels is named '{re.escape(missing)}', as a "
                    r"launcher or by its kernel's C\+\+ name"):
                get(missing)
        # A literal past Python's digit limit names no kernel; a name is a str.
        with self.assertRaisesRegex(KeyError, r"no launcher of pykernels is named 'axpy<1111"):
            get("axpy<" + "1" * 5000 + ">")
        for wrong in (None, b"axpy<float>", 3):
            with self.subTest(wrong=wrong), self.assertRaisesRegex(
                    TypeError, r"pykernels.tlc.get takes a launcher's name as a str, not "):
                get(wrong)

    def test_stubs_type_get_by_cxx_name(self):
        stubs = self.stubs("__init__.pyi").body
        protocols = {node.name: node for node in stubs if isinstance(node, ast.ClassDef)}
        overloads = [node for node in stubs
                     if isinstance(node, ast.FunctionDef) and node.name == "__tlc_get__"]
        typed = {}
        for node in overloads[:-1]:
            names = ast.literal_eval(node.args.args[0].annotation.slice)
            typed[names[0]] = (names[1], ast.unparse(node.returns))
        self.assertEqual({cxx: name for cxx, (name, _) in typed.items()}, CXX_NAMES)
        for cxx_name, (name, returned) in typed.items():
            call = next(f for f in protocols[returned].body if f.name == "__call__")
            arguments = [a.arg for a in call.args.args[1:]] + [a.arg for a in call.args.kwonlyargs]
            signature = inspect.signature(getattr(self.package, name))
            self.assertEqual(arguments, list(signature.parameters))
        self.assertEqual(ast.unparse(overloads[-1].args.args[0].annotation), "str")
        self.assertEqual(ast.unparse(overloads[-1].returns), "Callable[..., None]")
        self.assertIs(self.package.__tlc_get__, self.package.tlc.get)
        helpers = self.stubs("tlc", "__init__.pyi").body
        imports = [node for node in helpers if isinstance(node, ast.ImportFrom) and node.level == 2]
        self.assertEqual([(a.name, a.asname) for node in imports for a in node.names],
                         [("__tlc_get__", "get")])

    @unittest.skipUnless(importlib.util.find_spec("mypy"), "mypy is not installed")
    def test_a_type_checker_reads_get_by_cxx_name(self):
        with tempfile.TemporaryDirectory() as folder:
            program = os.path.join(folder, "use.py")
            with open(program, "w") as file:
                file.write("import pykernels\n"
                           "f = pykernels.tlc.get('axpy<float>')\n"
                           "reveal_type(f)\n"
                           "f(1.0, 0, 0, grid=1, block=1)\n"
                           "f(1.0, 0, 0, grid=1, block=1, bogus=3)\n")
            result = subprocess.run(
                [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
                 program], capture_output=True, text=True,
                env=dict(os.environ, MYPYPATH=harness.OUTPUT_DIR))
        self.assertIn('Revealed type is "pykernels.__tlc_launcher_axpy_float__"', result.stdout)
        self.assertIn('Unexpected keyword argument "bogus"', result.stdout)
        self.assertIn("Found 1 error in 1 file", result.stdout, result.stdout)

    def test_extension_is_abi3_and_finds_the_library_beside_the_package(self):
        extension = self.package.tlc._ext.__file__
        self.assertTrue(extension.endswith(os.path.join("pykernels", "tlc", "_ext.abi3.so")))


class ArgumentErrorTests(unittest.TestCase):
    """What the binding refuses, and how it says so. Nothing here reaches the driver."""

    @classmethod
    def setUpClass(cls):
        cls.package = harness.import_package()
        cls.driver = harness.FakeDriver()

    def setUp(self):
        self.driver.clear()

    def tearDown(self):
        self.assertEqual(self.driver.launches(), [], "a refused call must not launch")

    def refused(self, exception, pattern, function, *args, **kwargs):
        with self.assertRaisesRegex(exception, pattern):
            function(*args, **kwargs)

    def test_arguments_and_keywords(self):
        saxpy = self.package.saxpy
        self.refused(TypeError, r"saxpy\(\) takes 4 positional arguments but 5 were given",
                     saxpy, 1, 2, 3.0, 4, 5, **LAUNCH)
        self.refused(TypeError, r"saxpy\(\) missing required argument 'n' \(int, position 4\)",
                     saxpy, 1, 2, 3.0, **LAUNCH)
        self.refused(TypeError, r"saxpy\(\) got an unexpected keyword argument 'z'",
                     saxpy, 1, 2, 3.0, 4, z=1, **LAUNCH)
        self.refused(TypeError, r"saxpy\(\) got multiple values for argument 'y'",
                     saxpy, 1, 2, 3.0, 4, y=1, **LAUNCH)
        self.refused(TypeError, r"saxpy\(\) missing required keyword argument 'grid'",
                     saxpy, 1, 2, 3.0, 4, block=1)
        self.refused(TypeError, r"saxpy\(\) missing required keyword argument 'block'",
                     saxpy, 1, 2, 3.0, 4, grid=1)
        self.refused(TypeError, r"renamed\(\) missing required argument 'grid_'",
                     self.package.renamed, lambda_=1, stream_=2, **LAUNCH)

    def test_wrong_types(self):
        saxpy = self.package.saxpy
        self.refused(TypeError, r"saxpy\(\): argument 'y' \(float \*\) takes a CUDA array "
                     r"\(a torch.Tensor, an object with __cuda_array_interface__ or __dlpack__\), "
                     r"an int address or None, not str", saxpy, "x", 2, 3.0, 4, **LAUNCH)
        self.refused(TypeError, r"argument 'y' \(float \*\) .* not bool", saxpy, True, 2, 3.0, 4,
                     **LAUNCH)
        self.refused(TypeError, r"argument 'x' \(const float \*\) .* not list", saxpy, 1, [2],
                     3.0, 4, **LAUNCH)
        self.refused(TypeError, r"argument 'n' \(int\) takes an int, not float", saxpy, 1, 2,
                     3.0, 4.0, **LAUNCH)
        self.refused(TypeError, r"argument 'a' \(float\) takes a float, not str", saxpy, 1, 2,
                     "3", 4, **LAUNCH)
        self.refused(TypeError, r"argument 'b' \(bool\) takes a bool, not float",
                     self.package.widths, 0.5, *([0] * 10), 1, **LAUNCH)

    def test_scalar_ranges(self):
        widths = self.package.widths
        values = [True, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, 1]
        names = ["b", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"]
        for index, value, pattern in [
            (0, 2, r"'b' \(bool\) = 2 is out of range \(0..1\)"),
            (1, 128, r"'i8' \(signed char\) = 128 is out of range \(-128..127\)"),
            (1, -129, r"'i8' .* = -129 is out of range"),
            (2, -1, r"'u8' \(unsigned char\) = -1 is out of range \(0..255\)"),
            (3, 1 << 15, r"'i16' .* out of range \(-32768..32767\)"),
            (4, 1 << 16, r"'u16' .* out of range \(0..65535\)"),
            (5, 1 << 31, r"'i32' \(int\) = 2147483648 is out of range"),
            (6, 1 << 32, r"'u32' .* out of range \(0..4294967295\)"),
            (7, 1 << 63, r"'i64' .* out of range \(-9223372036854775808..9223372036854775807\)"),
            (8, 1 << 64, r"'u64' .* out of range \(0..18446744073709551615\)"),
            (8, -1, r"'u64' .* = -1 is out of range"),
            (9, 1e39, r"'f32' \(float\) = 1e\+39 is beyond float32's range"),
            (9, 10**400, r"'f32' \(float\) takes a number within a double's range; this int is "
                         r"beyond it"),
            (9, 10**5000, r"'f32' \(float\) takes a number within a double's range"),
        ]:
            arguments = list(values)
            arguments[index] = value
            with self.subTest(names[index], value=value):
                self.refused(OverflowError, pattern, widths, *arguments, **LAUNCH)

    def test_half_ranges(self):
        self.refused(OverflowError, r"argument 'h' \(__half\) = 65520.0 is beyond float16's range",
                     self.package.halves, 65520.0, 0.0, 0, **LAUNCH)
        self.refused(OverflowError, r"argument 'b' \(__nv_bfloat16\) = 3.4e\+38 is beyond "
                     r"bfloat16's range", self.package.halves, 0.0, 3.4e38, 0, **LAUNCH)

    def test_pairs(self):
        pairs = self.package.pairs
        self.refused(TypeError, r"pairs\(\): argument 'h' \(__half2\) takes a pair of floats "
                     r"\(x, y\), not float", pairs, 1.0, (0, 0), 0, **LAUNCH)
        self.refused(TypeError, r"argument 'b' \(__nv_bfloat162\) takes a pair of floats \(x, y\), "
                     r"not tuple", pairs, (0, 0), (1.0, 2.0, 3.0), 0, **LAUNCH)
        self.refused(OverflowError, r"argument 'h' \(__half2\) = 70000.0 is beyond float16's "
                     r"range", pairs, (1.0, 70000.0), (0, 0), 0, **LAUNCH)
        self.refused(TypeError, r"argument 'h' \(__half2\) takes a float, not str", pairs,
                     ("1", 0), (0, 0), 0, **LAUNCH)

    def test_options(self):
        saxpy = self.package.saxpy
        args = (1, 2, 3.0, 4)
        self.refused(ValueError, r"saxpy\(\): option 'grid' takes 1 to 3 dimensions, not 4",
                     saxpy, *args, grid=(1, 2, 3, 4), block=1)
        self.refused(TypeError, r"option 'block' takes an int or a tuple of 1 to 3 ints, not str",
                     saxpy, *args, grid=1, block="x")
        self.refused(OverflowError, r"option 'grid' = -1 is out of range \(0..4294967295\)",
                     saxpy, *args, grid=(-1,), block=1)
        self.refused(OverflowError, r"option 'shared_mem' = 4294967296 is out of range",
                     saxpy, *args, shared_mem=1 << 32, **LAUNCH)
        self.refused(OverflowError, r"option 'device' = -1 is out of range",
                     saxpy, *args, device=-1, **LAUNCH)
        self.refused(TypeError, r"option 'stream' takes an int \(a CUstream\), or an object with "
                     r"__cuda_stream__ or cuda_stream, not str", saxpy, *args, stream="s",
                     **LAUNCH)
        self.refused(ValueError, r"option 'l2_persist_hit_ratio' must be within 0..1, not 1.5",
                     saxpy, *args, l2_persist_hit_ratio=1.5, **LAUNCH)

    def test_read_only_arrays_only_for_const_pointers(self):
        read_only = CudaArray(0x1000, read_only=True)
        self.refused(ValueError, r"saxpy\(\): argument 'y' \(float \*\) points to data the kernel "
                     r"may write \(the pointee is not const\), but the array is read-only",
                     self.package.saxpy, read_only, 2, 3.0, 4, **LAUNCH)
        self.refused(ValueError, r"argument 'y' \(float \*\) .* read-only",
                     self.package.saxpy, DLPackArray(0x1000, read_only=True), 2, 3.0, 4,
                     **LAUNCH)

    def test_arrays_outside_cuda_memory(self):
        self.refused(ValueError, r"argument 'x' \(const float \*\) is not in CUDA memory "
                     r"\(DLPack device type 1\)", self.package.saxpy, 1,
                     DLPackArray(0x1000, device_type=harness.K_DL_CPU), 3.0, 4, **LAUNCH)
        self.refused(ValueError, r"argument 'y' .* is a masked array",
                     self.package.saxpy, CudaArray(0x1000, mask=CudaArray(0x2000)), 2, 3.0, 4,
                     **LAUNCH)
        self.refused(ValueError, r"exports DLPack 2.0; this tlc reads DLPack 1.x and 0.x",
                     self.package.saxpy, DLPackArray(0x1000, major=2), 2, 3.0, 4, **LAUNCH)

    def test_structs_by_value(self):
        self.refused(ValueError, r"by_value\(\): argument 'pair' \(Pair\) takes the struct's 16 "
                     r"bytes, not 8", self.package.by_value, bytes(8), 0, **LAUNCH)
        # Untyped parameters take exactly the size nvcc's image gives them.
        self.refused(ValueError, r"untyped\(\): argument 'handle' \(Handle\) takes the struct's "
                     r"16 bytes, not 12", self.package.untyped, bytes(12), 0, **LAUNCH)
        self.refused(TypeError, r"argument 'pair' \(Pair\) takes bytes \(or a buffer such as a "
                     r"ctypes.Structure\), not int", self.package.by_value, 5, 0, **LAUNCH)
        # bytes() would take these (any iterable of small ints; the last never ends): a struct's
        # bytes are a buffer's.
        for iterable in ([0] * 16, range(16), dict.fromkeys(range(16)), itertools.repeat(1)):
            self.refused(TypeError, r"argument 'pair' \(Pair\) takes bytes \(or a buffer such as "
                         r"a ctypes.Structure\), not ", self.package.by_value, iterable, 0,
                         **LAUNCH)

    def test_tensor_maps(self):
        tiles = self.package.tiles
        self.refused(TypeError, r"tiles\(\): argument 'in_' \(const CUtensorMap\) takes a CUDA "
                     r"array .* not int", tiles, 0x1000, 0, **LAUNCH)
        self.refused(ValueError, r"argument 'in_' .* has 1 dimension; the tensor map takes 2",
                     tiles, CudaArray(0x1000, shape=(16,)), 0, **LAUNCH)
        self.refused(ValueError, r"argument 'in_' .* has 2-byte elements; the tensor map's are "
                     r"4-byte", tiles, CudaArray(0x1000, shape=(8, 16), typestr="<f2"), 0,
                     **LAUNCH)


class WithTorchStandIn(unittest.TestCase):
    """A stand-in torch installed as `torch`, the fake driver (with DEVICES, when a class sets
    them, before anything loads it) and the package; each test starts with no launch and no
    stream asked for."""

    DEVICES = None

    @classmethod
    def setUpClass(cls):
        cls.driver = harness.FakeDriver()
        if cls.DEVICES:
            cls.driver.set_devices(cls.DEVICES)  # before anything loads the driver
        cls.torch = harness.TorchStandIn()
        cls.torch.install()
        cls.package = harness.import_package()

    @classmethod
    def tearDownClass(cls):
        cls.torch.remove()

    def setUp(self):
        self.driver.clear()
        self.torch.stream_requests.clear()


class MalformedArrayTests(WithTorchStandIn):
    """Arrays whose self-description is wrong: every field is checked before it is used, and the
    message names the launcher, the argument and the field. Nothing reaches the driver."""

    def tearDown(self):
        self.assertEqual(self.driver.launches(), [], "a refused call must not launch")

    def saxpy_refuses(self, exception, pattern, y, x=0):
        with self.assertRaisesRegex(exception, r"^saxpy\(\): argument '(y|x)' \((const )?float "
                                    r"\*\) " + pattern):
            self.package.saxpy(y, x, 1.0, 16, **LAUNCH)

    def tiles_refuses(self, exception, pattern, array):
        with self.assertRaisesRegex(exception, r"^tiles\(\): argument 'in_' \(const CUtensorMap\) "
                                    + pattern):
            self.package.tiles(array, 0, **LAUNCH)

    # ---- __cuda_array_interface__ -----------------------------------------------------------

    def test_interface_stream(self):
        spelled = (r"which is not a stream: None, 1 \(the legacy default stream\), 2 \(the "
                   r"per-thread default stream\) or a cudaStream_t's address")
        for stream, exception, pattern in [
            (-7, ValueError, r"= -7, " + spelled),
            (-1, ValueError, r"= -1, "),
            (1 << 64, ValueError, r"= 18446744073709551616, "),
            ("1", TypeError, r"of type str; it must be an int \(a stream: "),
            (1.0, TypeError, r"of type float; "),
            (True, TypeError, r"of type bool; "),
        ]:
            with self.subTest(stream=stream):
                array = RawInterface(interface(stream=stream))
                self.saxpy_refuses(exception, r"has __cuda_array_interface__\['stream'\] "
                                   + pattern, array)
                # Not only where the stream is used: a later array's is checked too.
                self.saxpy_refuses(exception, r"has __cuda_array_interface__\['stream'\] ",
                                   0x2000, array)

    def test_interface_streams_the_interface_allows(self):
        for stream, launched in [(None, 0), (1, 1), (2, 2), (0x7F00, 0x7F00), (0, 0)]:
            with self.subTest(stream=stream):
                self.driver.clear()
                self.package.saxpy(RawInterface(interface(stream=stream)), 0, 1.0, 16, **LAUNCH)
                self.assertEqual(self.driver.only_launch()["stream"], launched)
        self.driver.clear()

    def test_interface_data(self):
        tuple_expected = r"; it must be a tuple \(address, read_only\)"
        for data, exception, pattern in [
            ((0x1000,), TypeError, r"\['data'\] = \(4096,\)" + tuple_expected),
            ((0x1000, False, 3), TypeError, r"\['data'\] = \(4096, False, 3\)" + tuple_expected),
            ([0x1000, False], TypeError, r"\['data'\] = \[4096, False\]" + tuple_expected),
            (0x1000, TypeError, r"\['data'\] = 4096" + tuple_expected),
            ((-5, False), ValueError, r"\['data'\]\[0\] = -5, which is not an address "
                                      r"\(0 to 2\*\*64 - 1\)"),
            ((1 << 64, False), ValueError, r"\['data'\]\[0\] = 18446744073709551616, which is "
                                           r"not an address"),
            (("0x10", False), TypeError, r"\['data'\]\[0\] of type str; it must be an int "
                                         r"\(an address"),
            ((1.5, False), TypeError, r"\['data'\]\[0\] of type float; "),
            ((0x1000, "no"), TypeError, r"\['data'\]\[1\] = 'no'; it must be a bool \(whether "
                                        r"the array is read-only\)"),
            ((0x1000, 0), TypeError, r"\['data'\]\[1\] = 0; it must be a bool"),
        ]:
            with self.subTest(data=data):
                self.saxpy_refuses(exception, r"has __cuda_array_interface__" + pattern,
                                   RawInterface(interface(data=data)))
        self.saxpy_refuses(TypeError, r"has a __cuda_array_interface__ without 'data' "
                           r"\(address, read_only\)", RawInterface(interface(drop=["data"])))

    def test_interface_that_is_not_a_dict(self):
        self.saxpy_refuses(TypeError, r"has a __cuda_array_interface__ of type list; it must be a "
                           r"dict", RawInterface([("data", (0x1000, False))]))

    def test_interface_layout_of_a_tensor_map(self):
        field = r"has __cuda_array_interface__"
        matrix = {"shape": (8, 16)}
        for fields, exception, pattern in [
            ({"shape": (8, -16)}, ValueError,
             r"\['shape'\]\[1\] = -16, which is not a size \(0 to 2\*\*63 - 1\)"),
            ({"shape": (1 << 63, 16)}, ValueError, r"\['shape'\]\[0\] = 9223372036854775808, "),
            ({"shape": (8.0, 16)}, TypeError, r"\['shape'\]\[0\] of type float; "),
            ({"shape": "8x16"}, TypeError, r"\['shape'\] of type str; it must be a tuple"),
            ({"shape": [8, 16]}, TypeError, r"\['shape'\] of type list; it must be a tuple"),
            ({"shape": (1 << 40, 1 << 40)}, ValueError,
             r"\['shape'\] that makes the array larger than 2\*\*63 bytes"),
            ({**matrix, "strides": (64,)}, ValueError,
             r"\['strides'\] with 1 entries for 2 dimensions"),
            ({**matrix, "strides": [64, 4]}, TypeError,
             r"\['strides'\] of type list; it must be a tuple or None"),
            ({**matrix, "strides": (64, "4")}, TypeError, r"\['strides'\]\[1\] of type str; "),
            ({**matrix, "strides": (1 << 63, 4)}, ValueError,
             r"\['strides'\]\[0\] = 9223372036854775808, which is not a stride"),
            ({**matrix, "strides": (-64, 4)}, ValueError,
             r"\['strides'\]\[0\] < 0: a tensor map cannot read negative strides"),
            ({**matrix, "typestr": "f4"}, ValueError,
             r"\['typestr'\] = 'f4'; it must be a byte order \(<, >, \|, =\), a kind and a size "
             r"from 1 to 65535 bytes, such as '<f4'"),
            ({**matrix, "typestr": "<f0"}, ValueError, r"\['typestr'\] = '<f0'; "),
            ({**matrix, "typestr": "<f99999"}, ValueError, r"\['typestr'\] = '<f99999'; "),
            ({**matrix, "typestr": "<x4"}, ValueError, r"\['typestr'\] = '<x4'; "),
            ({**matrix, "typestr": "<f4 "}, ValueError, r"\['typestr'\] = '<f4 '; "),
            ({**matrix, "typestr": "\0f4"}, ValueError, r"\['typestr'\] = '\\x00f4'; "),
            ({**matrix, "typestr": 4}, TypeError,
             r"\['typestr'\] of type int; it must be a str such as '<f4'"),
        ]:
            with self.subTest(fields=fields):
                self.tiles_refuses(exception, field + pattern, RawInterface(interface(**fields)))
        self.tiles_refuses(TypeError, r"has a __cuda_array_interface__ without 'typestr'",
                           RawInterface(interface(drop=["typestr"], **matrix)))
        self.tiles_refuses(TypeError, r"has a __cuda_array_interface__ without 'shape'",
                           RawInterface(interface(drop=["shape"])))

    # ---- DLPack -----------------------------------------------------------------------------

    def test_dlpack_layout_of_a_tensor_map(self):
        for array, pattern in [
            (DLPackArray(0x1000, shape=None, ndim=2), r"has DLPack shape = NULL with ndim 2"),
            (DLPackArray(0x1000, shape=None, ndim=-1), r"has DLPack ndim = -1, which is negative"),
            (DLPackArray(0x1000, shape=None, ndim=1 << 30),
             r"has 1073741824 dimensions; a tensor map takes at most 5"),
            (DLPackArray(0x1000, shape=(8, -16)), r"has DLPack shape\[1\] = -16, which is "
                                                  r"negative"),
            (DLPackArray(0x1000, shape=(1 << 61, 1 << 61)),
             r"has DLPack shape that makes the array larger than 2\*\*63 bytes"),
            (DLPackArray(0x1000, shape=(8, 16), strides=(1 << 62, 1)),
             r"has DLPack strides\[0\] = 4611686018427387904 elements of 4 bytes, beyond "
             r"2\*\*63 bytes"),
            (DLPackArray(0x1000, shape=(8, 16), strides=(-16, 1)),
             r"has DLPack strides\[0\] < 0: a tensor map cannot read negative strides"),
            (DLPackArray(0x1000, shape=(8, 16), bits=0),
             r"has DLPack dtype with 0 bits and 1 lanes, which is no element type"),
            (DLPackArray(0x1000, shape=(8, 16), lanes=0),
             r"has DLPack dtype with 32 bits and 0 lanes, which is no element type"),
        ]:
            with self.subTest(pattern):
                self.tiles_refuses(ValueError, pattern, array)

    def test_dlpack_null_strides_are_compact(self):
        self.package.tiles(DLPackArray(0x200000, shape=(8, 32)), 0, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["tensor_maps"][0]["strides"], [128])
        self.driver.clear()

    def test_dlpack_address_and_device(self):
        self.saxpy_refuses(ValueError, r"has DLPack byte_offset = 32, which takes data "
                           r"\(0xfffffffffffffff0\) beyond the address space",
                           DLPackArray((1 << 64) - 16, byte_offset=32))
        self.saxpy_refuses(ValueError, r"has DLPack device_id = -3, which is not a device "
                           r"ordinal", DLPackArray(0x1000, device_id=-3))

    # ---- torch ------------------------------------------------------------------------------

    def test_tensor_methods(self):
        self.saxpy_refuses(ValueError, r"has data_ptr\(\) = -1, which is not an address",
                           Tensor(-1))
        self.saxpy_refuses(TypeError, r"has data_ptr\(\) of type float; ", Tensor(1.5))
        self.saxpy_refuses(TypeError, r"has get_device\(\) of type str; it must be an int \(a "
                           r"device \(-1 for the CPU, or a CUDA ordinal\)\)", Tensor(0x1000, "0"))
        self.saxpy_refuses(ValueError, r"has get_device\(\) = -2, which is not a device",
                           Tensor(0x1000, -2))
        self.tiles_refuses(ValueError, r"has shape\[0\] = -8, which is not a size",
                           Tensor(0x1000, shape=(-8, 16), strides=(16, 1)))
        self.tiles_refuses(ValueError, r"has stride\(\)\[0\] < 0: a tensor map cannot read "
                           r"negative strides", Tensor(0x1000, shape=(8, 16), strides=(-16, 1)))


# pointees' parameters (pykernels.cu) and the element types each takes (None: any array).
POINTEES = {
    "f32": {"float32"}, "f64": {"float64"}, "f16": {"float16"}, "bf16": {"bfloat16"},
    "b": {"bool"}, "i8": {"int8"}, "i8t": {"int8"}, "i16": {"int16"}, "u16": {"uint16"},
    "i32": {"int32"}, "u32": {"uint32"}, "i64": {"int64"}, "ll": {"int64"}, "u64": {"uint64"},
    "size": {"uint64"}, "level": {"int16"}, "e4m3": {"float8_e4m3fn"},
    "e4m3x4": {"float8_e4m3fn"}, "e5m2": {"float8_e5m2"}, "e8m0": {"float8_e8m0fnu"},
    "e2m3": {"float6_e2m3fn"}, "e3m2": {"float6_e3m2fn"}, "e2m1": {"float4_e2m1fn"},
    "e2m1x2": {"float4_e2m1fn_x2"}, "f4": {"float32", "complex64"},
    "f2": {"float32", "complex64"}, "d2": {"float64", "complex128"}, "i2": {"int32"},
    "u4": {"uint32"}, "c4": {"int8"}, "h2": {"float16", "complex32"}, "bf2": {"bfloat16"},
    "dims": {"uint32"}, "any": None, "chars": None, "bytes": None, "u8": None, "raw": None,
    "pairs": None, "pointers": None,
}

# What each protocol can say, and the dtype (as torch names it; "other" for none tlc knows).
TORCH_DTYPES = {name: name for name in harness.TORCH_DTYPES}
TORCH_DTYPES.update({"qint8": "other", "quint4x2": "other", "bits8": "other", "uint4": "other"})
TYPESTRS = {
    "|b1": "bool", "|i1": "int8", "|u1": "uint8", "<i2": "int16", "<u2": "uint16",
    "<i4": "int32", "<u4": "uint32", "<i8": "int64", "<u8": "uint64", "<f2": "float16",
    "<f4": "float32", "=f4": "float32", "<f8": "float64", "<c8": "complex64",
    "<c16": "complex128", ">i1": "int8", ">f4": "other", "|V2": "other", "<M8": "other",
    "|b2": "other", "<f16": "other",
}
PADDED = harness.DLPACK_SUBBYTE_PADDED
DLPACK_DTYPES = {  # (code, bits, flags)
    (0, 8, 0): "int8", (0, 16, 0): "int16", (0, 32, 0): "int32", (0, 64, 0): "int64",
    (1, 8, 0): "uint8", (1, 16, 0): "uint16", (1, 32, 0): "uint32", (1, 64, 0): "uint64",
    (2, 16, 0): "float16", (2, 32, 0): "float32", (2, 64, 0): "float64",
    (4, 16, 0): "bfloat16", (5, 32, 0): "complex32", (5, 64, 0): "complex64",
    (5, 128, 0): "complex128", (6, 8, 0): "bool", (7, 8, 0): "float8_e3m4",
    (8, 8, 0): "float8_e4m3", (9, 8, 0): "float8_e4m3b11fnuz", (10, 8, 0): "float8_e4m3fn",
    (11, 8, 0): "float8_e4m3fnuz", (12, 8, 0): "float8_e5m2", (13, 8, 0): "float8_e5m2fnuz",
    (14, 8, 0): "float8_e8m0fnu", (15, 6, PADDED): "float6_e2m3fn",
    (15, 6, 0): "float6_e2m3fn (packed)", (16, 6, PADDED): "float6_e3m2fn",
    (16, 6, 0): "float6_e3m2fn (packed)", (17, 4, PADDED): "float4_e2m1fn",
    (17, 4, 0): "float4_e2m1fn_x2", (3, 64, 0): "other", (2, 8, 0): "other", (0, 4, 0): "other",
    (10, 16, 0): "other", (6, 1, 0): "other",
}


class ElementTypeTests(WithTorchStandIn):
    """A pointer's pointee against the array's dtype, for every pair: torch dtypes,
    __cuda_array_interface__ typestrs and DLPack codes against pointees' parameters. Refused
    before anything reaches the driver."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.types = {row[0]: row[2] for row in cls.package.tlc.parameters("pointees")}

    def test_the_parameter_table_lists_what_each_pointer_takes(self):
        rows = self.package.tlc.parameters("pointees")
        self.assertEqual([row[0] for row in rows], list(POINTEES))
        for keyword, kind, _ctype, _writable, _scalar, dtypes in rows:
            expected = POINTEES[keyword]
            with self.subTest(keyword):
                self.assertEqual(None if dtypes is None else set(dtypes), expected)
                if dtypes is not None:
                    self.assertEqual(len(dtypes), len(expected))
        for row in self.package.tlc.parameters("widths")[:-1]:
            self.assertIsNone(row[5], "scalars take no arrays")

    def launch(self, keyword, array):
        arguments = dict.fromkeys(POINTEES, 0)
        arguments[keyword] = array
        self.package.pointees(**arguments, **LAUNCH)

    def check_every_pair(self, arrays):
        """`arrays`: (array, its dtype's name, how the message spells it)."""
        for keyword, accepted in POINTEES.items():
            for array, dtype, spelled in arrays:
                with self.subTest(parameter=keyword, array=spelled):
                    self.driver.clear()
                    if accepted is None or dtype in accepted:
                        self.launch(keyword, array)
                        self.assertEqual(len(self.driver.launches()), 1)
                        continue
                    ctype = re.escape(self.types[keyword])
                    names = "|".join(sorted(accepted))
                    shown = (f"one of {re.escape(spelled)}" if dtype == "other"
                             else f"{re.escape(dtype)} \\({re.escape(spelled)}\\)")
                    with self.assertRaisesRegex(
                            TypeError,
                            rf"^pointees\(\): argument '{keyword}' \({ctype}\) takes an array of "
                            rf"({names})( or ({names}))?, not {shown}; to pass its memory as it "
                            r"is, pass its address as an int \(e.g. tensor.data_ptr\(\)\)$"):
                        self.launch(keyword, array)
                    self.assertEqual(self.driver.launches(), [], "refused before the driver")

    def test_torch_dtypes(self):
        self.check_every_pair([(Tensor(0x1000, dtype=name), dtype, f"torch.{name}")
                               for name, dtype in TORCH_DTYPES.items()])

    def test_cuda_array_interface_typestrs(self):
        self.check_every_pair([(CudaArray(0x1000, typestr=typestr), dtype, f"typestr '{typestr}'")
                               for typestr, dtype in TYPESTRS.items()])

    def test_dlpack_codes(self):
        arrays = []
        for (code, bits, flags), dtype in DLPACK_DTYPES.items():
            arrays.append((DLPackArray(0x1000, code=code, bits=bits, flags=flags), dtype,
                           f"DLPack code {code}, {bits} bits"))
        # Lanes are elements of the type; a legacy capsule has no flags: sub-byte types packed.
        arrays.append((DLPackArray(0x1000, code=2, bits=32, lanes=4), "float32",
                       "DLPack code 2, 32 bits"))
        arrays.append((LegacyDLPackArray(0x1000, code=17, bits=4, flags=PADDED),
                       "float4_e2m1fn_x2", "DLPack code 17, 4 bits"))
        self.check_every_pair(arrays)

    def test_messages(self):
        saxpy = self.package.saxpy
        with self.assertRaisesRegex(TypeError, r"^saxpy\(\): argument 'y' \(float \*\) takes an "
                                    r"array of float32, not float16 \(torch.float16\); to pass its "
                                    r"memory as it is, pass its address as an int \(e.g. "
                                    r"tensor.data_ptr\(\)\)$"):
            saxpy(Tensor(0x1000, dtype="float16"), 0, 1.0, 16, **LAUNCH)
        with self.assertRaisesRegex(TypeError, r"^pointees\(\): argument 'f2' \(float2 \*\) takes "
                                    r"an array of float32 or complex64, not int32 "
                                    r"\(typestr '<i4'\)"):
            self.launch("f2", CudaArray(0x1000, typestr="<i4"))
        with self.assertRaisesRegex(TypeError, r"argument 'e4m3' \(__nv_fp8_e4m3 \*\) takes an "
                                    r"array of float8_e4m3fn, not float8_e5m2 \(DLPack code 12, 8 "
                                    r"bits\)"):
            self.launch("e4m3", DLPackArray(0x1000, code=12, bits=8))
        with self.assertRaisesRegex(TypeError, r"argument 'x' \(const float \*\) takes an array of "
                                    r"float32, not one of typestr '\|V2'"):
            saxpy(0, CudaArray(0x1000, typestr="|V2"), 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.launches(), [])

    def test_an_address_passes_any_memory(self):
        half = Tensor(0x1000, dtype="float16")
        self.package.saxpy(half.data_ptr(), 0, 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"][0], 0x1000)


class LaunchTests(unittest.TestCase):
    """What reaches the driver, for ints, structs, 16-bit floats, streams and options."""

    @classmethod
    def setUpClass(cls):
        cls.package = harness.import_package()
        cls.driver = harness.FakeDriver()

    def setUp(self):
        self.driver.clear()

    def test_ints_as_addresses(self):
        self.package.saxpy(0x7000, 0x8000, 2.5, 1000, grid=(8,), block=(128, 1, 1))
        launch = self.driver.only_launch()
        self.assertEqual(launch["function"], "cuLaunchKernel")
        self.assertIn("saxpy", launch["symbol"])
        self.assertEqual(launch["params"], [0x7000, 0x8000, float_bits(2.5), 1000])
        self.assertEqual(launch["grid"], [8, 1, 1])
        self.assertEqual(launch["block"], [128, 1, 1])
        self.assertEqual(launch["shared_bytes"], 0)
        self.assertEqual(launch["stream"], 0)  # the legacy default stream
        self.assertEqual(launch["device"], 0)

    def test_keywords_in_any_order(self):
        self.package.saxpy(n=7, block=32, a=-1.0, x=0x20, grid=(2, 3, 4), y=None, shared_mem=512)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"], [0, 0x20, float_bits(-1.0), 7])
        self.assertEqual(launch["grid"], [2, 3, 4])
        self.assertEqual(launch["shared_bytes"], 512)

    def test_keywords_that_are_not_interned(self):
        # Names built at run time are equal to the module's keywords, not identical to them.
        keyword = lambda name: "".join(list(name))  # noqa: E731
        arguments = {keyword("y"): 0x10, keyword("x"): 0x20, keyword("a"): 1.0, keyword("n"): 3,
                     keyword("grid"): 2, keyword("block"): 64, keyword("stream"): 0x44}
        self.assertIsNot(next(iter(arguments)), "y")
        self.package.saxpy(**arguments)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"], [0x10, 0x20, float_bits(1.0), 3])
        self.assertEqual((launch["grid"], launch["block"], launch["stream"]),
                         ([2, 1, 1], [64, 1, 1], 0x44))

    def test_every_width(self):
        self.package.widths(True, -1, 255, -2, 65535, -3, 4294967295, -(1 << 63), (1 << 64) - 1,
                            1.5, -0.25, 0x9000, **LAUNCH)
        params = self.driver.only_launch()["params"]
        self.assertEqual(params, [1, 0xFF, 0xFF, 0xFFFE, 0xFFFF, 0xFFFFFFFD, 0xFFFFFFFF,
                                  1 << 63, (1 << 64) - 1, float_bits(1.5), double_bits(-0.25),
                                  0x9000])

    def test_numpy_like_scalars_through_their_protocols(self):
        self.package.saxpy(Index(), 0, Real(), Index(), **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"], [7, 0, float_bits(2.0), 7])

    def test_half_and_bfloat16_from_floats(self):
        halves = [1.5, -2.0, 65504.0, 6e-08, 5.960464477539063e-08, 2.9802322387695312e-08,
                  1.00048828125, 1.00146484375, 0.1, 1e-9, -0.0, math.inf, -math.inf, 3]
        for value in halves:
            with self.subTest(half=value):
                self.driver.clear()
                self.package.halves(value, 1.0, 0, **LAUNCH)
                self.assertEqual(self.driver.only_launch()["params"][0], half_bits(value))
        bfloats = [1.5, -2.5, 1.00390625, 1.01171875, 3.140625, 1e-40, 3.3895313892515355e38,
                   -0.0, 1e-45]
        for value in bfloats:
            with self.subTest(bfloat16=value):
                self.driver.clear()
                self.package.halves(0.0, value, 0, **LAUNCH)
                self.assertEqual(self.driver.only_launch()["params"][1], bfloat16_bits(value))
        self.driver.clear()
        self.package.halves(math.nan, math.nan, 0, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"][:2], [0x7E00, 0x7FC0])

    def test_half2_and_bfloat162_from_pairs(self):
        self.package.pairs((1.5, -2.0), [0.1, 3.0], 0, **LAUNCH)
        params = self.driver.only_launch()["params"]
        self.assertEqual(params[0], half_bits(1.5) | half_bits(-2.0) << 16)
        self.assertEqual(params[1], bfloat16_bits(0.1) | bfloat16_bits(3.0) << 16)
        self.assertEqual([row[4] for row in self.package.tlc.parameters("pairs")[:2]],
                         ["f16x2", "bf16x2"])

    def test_structs_as_bytes_or_buffers(self):
        pair = Pair(7, 2.5, 1.0)
        for argument in [bytes(pair), bytearray(bytes(pair)), pair, memoryview(bytes(pair))]:
            with self.subTest(type(argument).__name__):
                self.driver.clear()
                self.package.by_value(argument, 0x40, **LAUNCH)
                params = self.driver.only_launch()["params"]
                self.assertEqual(params, [7 | float_bits(2.5) << 32, 0x40])

    def test_untyped_parameters_as_bytes(self):
        handle = struct.pack("<qd", 0x1234, 0.5)
        self.package.untyped(handle, 0x40, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"], [0x1234, 0x40])
        # A kernel only nvcc saw: its pointer typed from the symbol, an int address taken.
        self.driver.clear()
        self.package.nvcc_only(0x80, bytes(Pair(9, 1.5, 2.0)), **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"], [0x80, 9 | float_bits(1.5) << 32])

    def test_renamed_parameters(self):
        self.package.renamed(grid_=0x10, lambda_=2, stream_=3, grid=1, block=1, stream=0x99)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"], [0x10, 2, 3])
        self.assertEqual(launch["stream"], 0x99)

    def test_kernels_named_like_helpers(self):
        self.package.Error(0x10, **LAUNCH)
        self.package.register_torch_ops(0x20, **LAUNCH)
        launches = self.driver.launches()
        self.assertEqual([launch["params"] for launch in launches], [[0x10], [0x20]])

    def test_no_params(self):
        self.package.no_params(grid=1, block=1)
        self.assertEqual(self.driver.only_launch()["params"], [])

    def test_empty_tag_parameters_are_not_arguments(self):
        names = list(inspect.signature(self.package.tagged).parameters)
        self.assertEqual(names, ["out", "n"] + OPTIONS)
        self.package.tagged(0x10, 5, **LAUNCH)
        params = self.driver.only_launch()["params"]
        self.assertEqual((params[0], params[-1]), (0x10, 5))
        self.assertEqual(len(params), 3)  # the tag is passed, value-initialised

    def test_streams(self):
        class TorchLikeStream:
            cuda_stream = 0x1234

        class ProtocolStream:
            def __cuda_stream__(self):
                return (0, 0x5678)

        for stream, expected in [(0x42, 0x42), (TorchLikeStream(), 0x1234),
                                 (ProtocolStream(), 0x5678), (None, 0)]:
            with self.subTest(stream=stream):
                self.driver.clear()
                self.package.no_params(stream=stream, **LAUNCH)
                self.assertEqual(self.driver.only_launch()["stream"], expected)

    def test_launch_features(self):
        array = CudaArray(0xA000)
        self.package.saxpy(0, 0, 1.0, 1, grid=4, block=32, cluster=2, cooperative=True,
                           programmatic_dependent_launch=True, l2_persist_base=array,
                           l2_persist_bytes=4096)
        launch = self.driver.only_launch()
        self.assertEqual(launch["function"], "cuLaunchKernelEx")
        attributes = {}
        for attribute in launch["attributes"]:
            attributes.update(attribute)
        self.assertEqual(attributes["cluster"], [2, 1, 1])
        self.assertEqual(attributes["cooperative"], 1)
        self.assertEqual(attributes["programmatic"], 1)
        self.assertEqual((attributes["base"], attributes["bytes"]), (0xA000, 4096))
        self.assertEqual(attributes["hit_ratio"], 1.0)

    def test_failed_launch_raises_error_with_status(self):
        self.driver.fail("cuLaunchKernel", self.driver.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
        with self.assertRaises(self.package.tlc.Error) as raised:
            self.package.saxpy(0, 0, 1.0, 1, **LAUNCH)
        error = raised.exception
        self.assertEqual(error.status, 8)
        self.assertEqual(error.status_name, "TLC_ERROR_LAUNCH")
        self.assertIn("saxpy", error.message)
        self.assertIn("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", error.message)
        self.assertTrue(str(error).startswith("TLC_ERROR_LAUNCH: "))
        self.assertIsInstance(error, RuntimeError)

    def test_refused_config_raises_error(self):
        with self.assertRaises(self.package.tlc.Error) as raised:
            self.package.saxpy(0, 0, 1.0, 1, grid=0, block=1)
        self.assertEqual(raised.exception.status_name, "TLC_ERROR_INVALID_VALUE")

    def test_module_api(self):
        helpers = self.package.tlc
        helpers.load(0)
        self.assertEqual(helpers.image_target(0), "sm_90a")
        self.assertEqual(helpers.status_string(4), "TLC_ERROR_NO_BINARY")
        helpers.unload()
        with self.assertRaises(helpers.Error) as raised:
            helpers.load(5)
        self.assertEqual(raised.exception.status_name, "TLC_ERROR_NO_DEVICE")


class ArrayStandInTests(unittest.TestCase):
    """__cuda_array_interface__ and DLPack arrays; torch is never imported for them."""

    @classmethod
    def setUpClass(cls):
        cls.package = harness.import_package()
        cls.driver = harness.FakeDriver()

    def setUp(self):
        self.driver.clear()

    def test_cuda_array_interface(self):
        y, x = CudaArray(0x10000), CudaArray(0x20000, read_only=True)
        with harness.ImportRecorder() as imports:
            self.package.saxpy(y, x, 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"][:2], [0x10000, 0x20000])
        self.assertEqual((y.reads, x.reads), (1, 1))
        self.assertEqual(imports.names, [])

    def test_interface_keys_that_are_not_interned(self):
        # Keys built at run time are equal to the names the binding looks for, not identical.
        def built(fields):
            return {"".join(list(key)): value for key, value in fields.items()}

        matrix = built(harness.interface(0x180000, shape=(8, 16), strides=(128, 4), stream=0x66,
                                         descr=[("", "<f4")]))
        self.assertIsNot(next(iter(matrix)), "shape")
        self.package.tiles(RawInterface(matrix), 0x50, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual((launch["tensor_maps"][0]["address"], launch["stream"]), (0x180000, 0x66))
        self.assertEqual(launch["tensor_maps"][0]["strides"], [128])
        self.driver.clear()
        with self.assertRaisesRegex(ValueError, r"has __cuda_array_interface__\['stream'\] = -7"):
            self.package.saxpy(RawInterface(built(harness.interface(stream=-7))), 0, 1.0, 16,
                               **LAUNCH)
        with self.assertRaisesRegex(TypeError, r"not float16 \(typestr '<f2'\)"):
            self.package.saxpy(RawInterface(built(harness.interface(typestr="<f2"))), 0, 1.0, 16,
                               **LAUNCH)

    def test_the_first_array_gives_the_stream(self):
        self.package.saxpy(CudaArray(0x1000, stream=0x77), CudaArray(0x2000, stream=0x88), 1.0,
                           16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["stream"], 0x77)
        self.driver.clear()
        self.package.saxpy(CudaArray(0x1000, stream=1), 0, 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["stream"], 1)  # CU_STREAM_LEGACY
        self.driver.clear()
        self.package.saxpy(CudaArray(0x1000, stream=0x77), 0, 1.0, 16, stream=0x99, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["stream"], 0x99)

    def test_dlpack(self):
        y = DLPackArray(0x30000, byte_offset=64)
        x = LegacyDLPackArray(0x40000)
        with harness.ImportRecorder() as imports:
            self.package.saxpy(y, x, 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"][:2], [0x30000 + 64, 0x40000])
        self.assertEqual(y.requests, [{"stream": None, "max_version": (1, 0)}])
        self.assertEqual(x.requests, [{"stream": 1, "max_version": None}])
        self.assertEqual(imports.names, [])

    def test_a_producer_without_max_version_is_asked_without_it_from_then_on(self):
        class Counting(DLPackArray):
            attempts = 0

            def __dlpack__(self, stream=None, **keywords):
                Counting.attempts += 1
                if keywords:
                    raise TypeError("__dlpack__() got an unexpected keyword argument")
                return super().__dlpack__(stream=stream)

        for _ in range(3):
            self.package.saxpy(Counting(0x30000), 0, 1.0, 16, **LAUNCH)
        self.assertEqual(Counting.attempts, 4)  # one refused max_version, then three without
        self.assertEqual(len(self.driver.launches()), 3)

    def test_dlpack_is_asked_for_the_launch_stream(self):
        y = DLPackArray(0x30000)
        self.package.saxpy(y, 0, 1.0, 16, stream=0x55, **LAUNCH)
        self.assertEqual(y.requests[0]["stream"], 0x55)
        self.assertEqual(self.driver.only_launch()["stream"], 0x55)

    def test_read_only_dlpack_for_a_const_pointer(self):
        self.package.saxpy(0, DLPackArray(0x30000, read_only=True), 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"][1], 0x30000)

    def test_tensor_map_from_an_array(self):
        # 8 rows of 16 floats, rows 128 bytes apart (padded): innermost first for the driver.
        array = CudaArray(0x100000, shape=(8, 16), typestr="<f4", strides=(128, 4))
        self.package.tiles(array, 0x50, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"][1], 0x50)
        self.assertEqual(launch["tensor_maps"][0]["address"], 0x100000)
        self.assertEqual(launch["tensor_maps"][0]["dims"], [16, 8])
        self.assertEqual(launch["tensor_maps"][0]["strides"], [128])
        self.driver.clear()
        self.package.tiles(DLPackArray(0x200000, shape=(8, 32)), 0x50, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["tensor_maps"][0]["strides"], [128])
        self.assertEqual(self.driver.launches()[0]["tensor_maps"][0]["dims"], [32, 8])


class TorchStandInTests(WithTorchStandIn):
    """torch tensors, as the binding sees them (a stand-in module installed as `torch`)."""

    def test_tensors_give_address_device_and_stream(self):
        y, x = Tensor(0x1000), harness.Parameter(0x2000)
        self.package.saxpy(y, x, 3.0, 16, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"], [0x1000, 0x2000, float_bits(3.0), 16])
        self.assertEqual(launch["stream"], harness.TorchStandIn.STREAM_BASE)
        self.assertEqual(self.torch.stream_requests, [0])
        self.assertEqual(y.calls, ["get_device", "data_ptr"])

    def test_dlpack_after_a_tensor_is_asked_for_torchs_stream(self):
        producer = DLPackArray(0x2000)
        self.package.saxpy(Tensor(0x1000), producer, 3.0, 16, **LAUNCH)
        self.assertEqual(producer.requests[0]["stream"], harness.TorchStandIn.STREAM_BASE)
        self.assertEqual(self.driver.only_launch()["stream"], harness.TorchStandIn.STREAM_BASE)

    def test_explicit_stream_wins(self):
        self.package.saxpy(Tensor(0x1000), 0, 3.0, 16, stream=0x31, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["stream"], 0x31)
        self.assertEqual(self.torch.stream_requests, [])

    def test_cpu_tensors_are_refused(self):
        with self.assertRaisesRegex(ValueError, r"argument 'x' \(const float \*\) is a tensor "
                                    r"outside CUDA memory"):
            self.package.saxpy(Tensor(0x1000), Tensor(0x2000, device=-1), 3.0, 16, **LAUNCH)
        self.assertEqual(self.driver.launches(), [])

    def test_tensor_map_from_a_tensor(self):
        tensor = Tensor(0x300000, shape=(8, 32), strides=(64, 1))
        self.package.tiles(tensor, 0, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["tensor_maps"][0]["dims"], [32, 8])
        self.assertEqual(launch["tensor_maps"][0]["strides"], [256])
        self.assertEqual(launch["tensor_maps"][0]["address"], 0x300000)


class ReentrantCallTests(WithTorchStandIn):
    """Reading an argument may run Python (a tensor's methods, an array's properties) that
    launches too. test/python/CMakeLists.txt runs this suite under Python's debug allocator,
    which overwrites freed objects, so that using one the binding no longer owns fails here."""

    def test_a_method_that_launches_evicts_every_cached_type_and_drops_the_next_method(self):
        package = self.package

        def data_ptr(tensor):
            tensor.calls.append("its own data_ptr")
            return tensor.address

        class Evicting(Tensor):
            def get_device(self):
                # More new array types than the binding's per-type cache holds: every entry is
                # replaced, this type's included, while the outer call reads this tensor.
                for index in range(12):
                    fresh = type(f"Fresh{index}", (CudaArray,), {})
                    package.saxpy(fresh(0x5000 + index), 0, 1.0, 16, **LAUNCH)
                # The method the binding calls next now lives only where the binding keeps it.
                del Evicting.data_ptr
                return Tensor.get_device(self)

        Evicting.data_ptr = data_ptr
        del data_ptr
        tensor = Evicting(0x9000)
        self.package.saxpy(tensor, 0, 3.0, 16, **LAUNCH)
        launches = self.driver.launches()
        self.assertEqual([launch["params"][0] for launch in launches],
                         [0x5000 + index for index in range(12)] + [0x9000])
        # The method the type had when the binding learned it, dropped from the type meanwhile.
        self.assertEqual(tensor.calls, ["get_device", "its own data_ptr"])
        self.assertNotIn("data_ptr", vars(Evicting))

    def test_an_exchange_read_that_launches_evicts_the_entry_it_was_read_through(self):
        """A known type with DLPack's exchange API is read through its cache entry as it is
        (no copy with references): a read that launches and replaces every entry must leave the
        rest of the call (the current stream, asked of the same API) as it was."""
        package = self.package
        api = harness.ExchangeAPI()
        Evicting = api.array_type(Tensor, "Evicting")
        fill = Evicting._exchange_fill

        def evicting_fill(tensor, out):
            if getattr(tensor, "evict", False):
                for index in range(12):
                    fresh = type(f"Fresh{index}", (CudaArray,), {})
                    package.saxpy(fresh(0x5000 + index), 0, 1.0, 16, **LAUNCH)
            return fill(tensor, out)

        Evicting._exchange_fill = evicting_fill
        package.saxpy(Evicting(0x9000), 0, 3.0, 16, **LAUNCH)  # the type learned
        self.driver.clear()
        api.stream_requests.clear()
        tensor = Evicting(0x9100)
        tensor.evict = True
        package.saxpy(tensor, 0, 3.0, 16, **LAUNCH)
        launches = self.driver.launches()
        self.assertEqual([launch["params"][0] for launch in launches],
                         [0x5000 + index for index in range(12)] + [0x9100])
        self.assertEqual(launches[-1]["stream"], api.STREAM_BASE)
        self.assertEqual(api.stream_requests[-1], (harness.K_DL_CUDA, 0))
        self.assertEqual(tensor.calls, [])  # no data_ptr() nor get_device()


class ExchangeApiTests(WithTorchStandIn):
    """Types that define DLPack's C exchange API (__dlpack_c_exchange_api__, as torch.Tensor does
    since torch 2.10): read through it in C, with their other ways (torch's methods, __dlpack__)
    only where it cannot say or the parameter refuses what it says, so that messages stay those
    of the other way. A stand-in torch is installed for the tensor cases."""

    DEVICES = "9.0,9.0,9.0"

    def test_tensors_are_read_through_the_api(self):
        api = harness.ExchangeAPI()
        FastTensor = api.array_type(Tensor, "FastTensor")
        y, x = FastTensor(0x1000, device=1), FastTensor(0x2000, device=1)
        self.package.saxpy(y, x, 3.0, 16, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"], [0x1000, 0x2000, float_bits(3.0), 16])
        self.assertEqual(launch["stream"], api.STREAM_BASE + 1)
        self.assertEqual(api.stream_requests, [(harness.K_DL_CUDA, 1)])
        self.assertEqual(api.reads, [y, x])
        self.assertEqual(y.calls + x.calls, [])  # no data_ptr() nor get_device()
        self.assertEqual(self.torch.stream_requests, [])

    def test_what_the_api_cannot_give_goes_the_other_way_with_its_messages(self):
        api = harness.ExchangeAPI()
        FastTensor = api.array_type(Tensor, "FastTensor")
        with self.assertRaisesRegex(ValueError, r"argument 'x' \(const float \*\) is a tensor "
                                    r"outside CUDA memory"):
            self.package.saxpy(FastTensor(0x1000), FastTensor(0x2000, device=-1), 3.0, 16,
                               **LAUNCH)
        with self.assertRaisesRegex(TypeError, r"takes an array of float32, not float64 "
                                    r"\(torch.float64\)"):
            self.package.saxpy(FastTensor(0x1000, dtype="float64"), 0, 3.0, 16, **LAUNCH)
        failing = FastTensor(0x3000, fail=True)
        self.package.saxpy(failing, 0, 3.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["params"][0], 0x3000)
        self.assertEqual(failing.calls, ["get_device", "data_ptr"])
        self.assertEqual(self.torch.stream_requests, [0])

    def test_an_array_with_only_the_api(self):
        api = harness.ExchangeAPI()
        # DLPackArray's fields without its __dlpack__: the API is its only way.
        fields = type("Fields", (), {"__init__": DLPackArray.__init__,
                                     "_tensor": DLPackArray._tensor})
        Only = api.array_type(fields, "Only")
        self.package.saxpy(Only(0x4000, byte_offset=16, device_id=2), 0, 1.0, 16, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"][0], 0x4010)
        self.assertEqual(launch["stream"], api.STREAM_BASE + 2)
        self.assertRaisesRegex(TypeError, r"takes an array of float32, not float64 \(DLPack code 2, "
                               r"64 bits\)", self.package.saxpy, Only(0x4000, bits=64), 0, 1.0,
                               16, **LAUNCH)
        self.assertRaisesRegex(ValueError, r"is not in CUDA memory \(DLPack device type 1\)",
                               self.package.saxpy, Only(0x4000, device_type=harness.K_DL_CPU),
                               0, 1.0, 16, **LAUNCH)
        self.assertRaisesRegex(TypeError, r"has a __dlpack_c_exchange_api__ that could not read it",
                               self.package.saxpy, Only(0x4000, fail=True), 0, 1.0, 16,
                               **LAUNCH)

    def test_a_tensor_map_through_the_api(self):
        api = harness.ExchangeAPI()
        FastArray = api.array_type(DLPackArray, "FastArray")
        array = FastArray(0x200000, shape=(8, 32))
        self.package.tiles(array, 0, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["tensor_maps"][0]["dims"], [32, 8])
        self.assertEqual(self.driver.only_launch()["tensor_maps"][0]["strides"], [128])
        self.assertEqual(array.requests, [])  # __dlpack__ was not asked

    def test_tables_not_taken(self):
        """An inherited table (a subclass may only pretend to hold memory), another major
        version, or one without current_work_stream: __dlpack__ is asked instead."""
        api = harness.ExchangeAPI()
        Sub = type("Sub", (api.array_type(DLPackArray),), {})
        for array in [Sub(0x5000), harness.ExchangeAPI(major=2).array_type()(0x5000),
                      harness.ExchangeAPI(with_stream=False).array_type()(0x5000)]:
            self.driver.clear()
            self.package.saxpy(array, 0, 1.0, 16, **LAUNCH)
            self.assertEqual(self.driver.only_launch()["params"][0], 0x5000)
            self.assertEqual(len(array.requests), 1, type(array))
        self.assertEqual(api.reads, [])


class CupyStandInTests(unittest.TestCase):
    """CuPy arrays, read through the attributes CuPy keeps in C and its current-stream function
    (a stand-in module installed as `cupy`), never through __cuda_array_interface__."""

    @classmethod
    def setUpClass(cls):
        cls.driver = harness.FakeDriver()
        cls.driver.set_devices("9.0,9.0")  # before anything loads the driver
        cls.cupy = harness.CupyStandIn()
        cls.cupy.install()
        cls.package = harness.import_package()

    @classmethod
    def tearDownClass(cls):
        cls.cupy.remove()

    def setUp(self):
        self.driver.clear()
        self.cupy.current = 0

    def test_address_device_and_stream_without_the_interface(self):
        y, x = harness.CupyArray(0x1000, device=1), harness.CupyArray(0x2000, device=1)
        self.cupy.current = 0x77
        self.package.saxpy(y, x, 3.0, 16, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["params"], [0x1000, 0x2000, float_bits(3.0), 16])
        self.assertEqual((launch["device"], launch["stream"]), (1, 0x77))
        self.assertEqual(y.interface_reads + x.interface_reads, 0)

    def test_cupys_default_stream_is_the_legacy_one_as_its_interface_says(self):
        self.package.saxpy(harness.CupyArray(0x1000), 0, 3.0, 16, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["stream"], 1)

    def test_explicit_stream_wins(self):
        self.cupy.current = 0x77
        self.package.saxpy(harness.CupyArray(0x1000), 0, 3.0, 16, stream=0x31, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["stream"], 0x31)

    def test_element_types(self):
        with self.assertRaisesRegex(TypeError, r"^saxpy\(\): argument 'y' \(float \*\) takes an "
                                    r"array of float32, not float16 \(dtype '<f2'\); to pass its "
                                    r"memory as it is, pass its address as an int"):
            self.package.saxpy(harness.CupyArray(0x1000, typestr="<f2"), 0, 1.0, 16, **LAUNCH)
        with self.assertRaisesRegex(TypeError, r"argument 'x' \(const float \*\) takes an array "
                                    r"of float32, not int64 \(dtype '<i8'\)"):
            self.package.saxpy(0, harness.CupyArray(0x1000, typestr="<i8"), 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.launches(), [])
        # Every typestr against a float32 parameter, and each accepted one where it belongs.
        for typestr, dtype in TYPESTRS.items():
            with self.subTest(typestr):
                self.driver.clear()
                array = harness.CupyArray(0x1000, typestr=typestr)
                if dtype == "float32":
                    self.package.saxpy(array, 0, 1.0, 16, **LAUNCH)
                else:
                    with self.assertRaisesRegex(TypeError, "takes an array of float32, not "):
                        self.package.saxpy(array, 0, 1.0, 16, **LAUNCH)
                self.assertEqual(len(self.driver.launches()), dtype == "float32")
                keyword = next((k for k, v in POINTEES.items() if v == {dtype}), None)
                if keyword:
                    arguments = dict.fromkeys(POINTEES, 0)
                    arguments[keyword] = array
                    self.package.pointees(**arguments, **LAUNCH)

    def test_arrays_on_another_device_are_refused(self):
        with self.assertRaisesRegex(ValueError, r"argument 'x' \(const float \*\) is on device "
                                    r"0, but the launch is on device 1 \(the device of the first "
                                    r"array argument\)"):
            self.package.saxpy(harness.CupyArray(0x1000, device=1), harness.CupyArray(0x2000),
                               1.0, 1, **LAUNCH)
        self.assertEqual(self.driver.launches(), [])

    def test_malformed_attributes_are_named(self):
        array = harness.CupyArray(0x1000)
        array.data.ptr = -1
        with self.assertRaisesRegex(ValueError, r"argument 'y' \(float \*\) has data.ptr = -1"):
            self.package.saxpy(array, 0, 1.0, 16, **LAUNCH)
        array = harness.CupyArray(0x1000)
        array.data.device_id = "0"
        with self.assertRaisesRegex(TypeError, r"argument 'y' \(float \*\) has data.device_id "):
            self.package.saxpy(array, 0, 1.0, 16, **LAUNCH)
        self.assertEqual(self.driver.launches(), [])

    def test_tensor_map_from_a_cupy_array(self):
        self.package.tiles(harness.CupyArray(0x300000, shape=(8, 32)), 0, **LAUNCH)
        tensor_map = self.driver.only_launch()["tensor_maps"][0]
        self.assertEqual((tensor_map["dims"], tensor_map["strides"]), ([32, 8], [128]))
        self.assertEqual(tensor_map["address"], 0x300000)


class CupyWithoutStreamFunctionTests(unittest.TestCase):
    """A CuPy that exports no current-stream function: its arrays keep the interface path."""

    @classmethod
    def setUpClass(cls):
        cls.cupy = harness.CupyStandIn(with_stream_function=False)
        cls.cupy.install()
        cls.package = harness.import_package()
        cls.driver = harness.FakeDriver()

    @classmethod
    def tearDownClass(cls):
        cls.cupy.remove()

    def test_the_interface_is_read(self):
        array = harness.CupyArray(0x1000)
        self.package.saxpy(array, 0, 3.0, 16, **LAUNCH)
        self.assertEqual(array.interface_reads, 1)
        self.assertEqual(self.driver.only_launch()["stream"], 0x4321)


class DeviceTests(WithTorchStandIn):
    """Two devices: the launch goes to the arrays' device, or to device=."""

    DEVICES = "9.0,9.0"

    def test_device_from_the_first_array(self):
        self.package.saxpy(Tensor(0x1000, device=1), Tensor(0x2000, device=1), 1.0, 1, **LAUNCH)
        launch = self.driver.only_launch()
        self.assertEqual(launch["device"], 1)
        self.assertEqual(launch["stream"], harness.TorchStandIn.STREAM_BASE + 1)
        self.driver.clear()
        self.package.saxpy(CudaArrayOnDevice(0x1000, 1), 0, 1.0, 1, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["device"], 1)
        self.driver.clear()
        self.package.saxpy(DLPackArray(0x1000, device_id=1), 0, 1.0, 1, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["device"], 1)

    def test_explicit_device(self):
        self.package.saxpy(0, 0, 1.0, 1, device=1, **LAUNCH)
        self.assertEqual(self.driver.only_launch()["device"], 1)

    def test_arrays_on_another_device_are_refused(self):
        with self.assertRaisesRegex(ValueError, r"argument 'x' \(const float \*\) is on device "
                                    r"0, but the launch is on device 1 \(the device of the first "
                                    r"array argument\)"):
            self.package.saxpy(Tensor(0x1000, device=1), Tensor(0x2000, device=0), 1.0, 1,
                               **LAUNCH)
        with self.assertRaisesRegex(ValueError, r"argument 'y' \(float \*\) is on device 1, but "
                                    r"the launch is on device 0 \(device=\)"):
            self.package.saxpy(Tensor(0x1000, device=1), 0, 1.0, 1, device=0, **LAUNCH)
        self.assertEqual(self.driver.launches(), [])



class CallSiteTests(WithTorchStandIn):
    """A call that spells its keywords passes the same tuple of keyword names every time: from a
    line's third call on, the binding maps the arguments as the general path matched them and reads
    their usual forms (exact ints, floats and bools, None, tuples of ints, arrays of a type with
    DLPack's exchange API) without the general path (python/src/CallSites.c). Every call of a
    case comes from one of the *_site lines below; each checks that later calls launch with their
    own values, and that any other value is read, or refused, exactly as the general path (a call
    through **kwargs, whose names tuple is new each time) reads or refuses it."""

    DEVICES = "9.0,9.0"

    def setUp(self):
        super().setUp()
        self.api = harness.ExchangeAPI()
        self.Fast = self.api.array_type(Tensor, "FastTensor")

    # One line each: a call site. (Positional arguments spelled out: `f(*args, grid=...)` builds
    # its keywords anew on every call, as **kwargs does.)
    def saxpy_site(self, y, x, a, n, grid=4, block=128):
        return self.package.saxpy(y, x, a, n, grid=grid, block=block)

    def saxpy_keywords_site(self, y, x, a, n, grid, block, shared_mem=None, stream=None,
                            device=None):
        return self.package.saxpy(n=n, block=block, a=a, x=x, grid=grid, y=y,
                                  shared_mem=shared_mem, stream=stream, device=device)

    def saxpy_other_site(self, y, x, a, n):
        return self.package.saxpy(y, x, n=n, a=a, block=64, grid=2)

    def widths_site(self, *values):
        b, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, out = values
        return self.package.widths(b, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, out,
                                   grid=1, block=32)

    def halves_site(self, h, b, out):
        return self.package.halves(h, b, out, grid=1, block=32)

    def pairs_site(self, h, b, out):
        return self.package.pairs(h, b, out, grid=1, block=32)

    def forget_saxpy_sites(self):
        """Calls saxpy from four lines of their own, so that it learns them in place of every
        site it kept (it keeps two): the sites above start again as new, whatever the tests
        before did there."""
        for _ in range(2):
            self.package.saxpy(0, 0, 1.0, 1, shared_mem=0, grid=1, block=1)
            self.package.saxpy(0, 0, 1.0, 1, stream=0, grid=1, block=1)
            self.package.saxpy(0, 0, 1.0, 1, device=0, grid=1, block=1)
            self.package.saxpy(0, 0, 1.0, 1, grid=1, block=1, shared_mem=0)

    def outcome(self, call):
        """What one call did: the launch the driver logged, or the exception's type and text."""
        self.driver.clear()
        try:
            call()
        except Exception as error:  # noqa: BLE001 - every kind is compared
            return type(error).__name__, str(error)
        return self.driver.only_launch()

    def test_every_call_launches_its_own_values(self):
        for call in range(4):
            y, x = self.Fast(0x1000 + call * 0x100), self.Fast(0x8000 + call * 0x100)
            self.driver.clear()
            self.saxpy_site(y, x, 0.5 * call, 10 + call, grid=(call + 1, 2), block=32 * (call + 1))
            launch = self.driver.only_launch()
            self.assertEqual(launch["params"], [y.address, x.address, float_bits(0.5 * call),
                                                10 + call])
            self.assertEqual((launch["grid"], launch["block"]),
                             ([call + 1, 2, 1], [32 * (call + 1), 1, 1]))
            self.assertEqual((launch["stream"], launch["device"], launch["shared_bytes"]),
                             (self.api.STREAM_BASE, 0, 0))
        # Each call reads both tensors through the API and asks it for the stream once.
        self.assertEqual(len(self.api.reads), 8)
        self.assertEqual(self.api.stream_requests, [(harness.K_DL_CUDA, 0)] * 4)

    def test_the_same_objects_again(self):
        """A site remembers the values it read from ints, floats and tuples of ints, which cannot
        change; arrays and lists can, and are read on every call."""
        self.forget_saxpy_sites()
        y, x = self.Fast(0x1000), self.Fast(0x2000)
        grid, block = (3, 2), (64, 2)
        a, n = 1.5, 1 << 40 >> 20  # objects of their own, not the interpreter's shared small ints
        for call in range(4):
            y.address = 0x1000 + call * 0x10  # the same tensor object, holding other memory
            self.driver.clear()
            self.saxpy_site(y, x, a, n, grid=grid, block=block)
            launch = self.driver.only_launch()
            self.assertEqual(launch["params"], [0x1000 + call * 0x10, 0x2000, float_bits(a), n])
            self.assertEqual((launch["grid"], launch["block"]), ([3, 2, 1], [64, 2, 1]))
            self.assertEqual(launch["stream"], self.api.STREAM_BASE)
        self.assertEqual(len(self.api.reads), 8)
        self.assertEqual(len(self.api.stream_requests), 4)
        sizes = [2, 2]
        for call in range(3):
            sizes[0] = call + 1  # the same list, holding another size
            self.driver.clear()
            # A site of its own (block= before grid=): its list never lets the path take it, so
            # that the site stops trying after four calls, which the sites above must not do.
            self.package.saxpy(y, x, a, n, block=block, grid=sizes)
            self.assertEqual(self.driver.only_launch()["grid"], [call + 1, 2, 1])

    def test_a_site_whose_arrays_the_path_declines(self):
        """A tensor its exchange API cannot read (its methods can) is read once more where the
        path tries it than where it does not: the general path reads a known type's tensor through
        the API twice before its methods. A line's first two calls go the general way (the
        second makes it a site). After four declines in a row a site goes to the general path
        straight away, and tries again one call in 64; a call the path takes between two
        declines starts the count again. Calls through **kwargs between a line's calls change
        none of it."""
        failing = self.Fast(0x3000, fail=True)

        def reads_of(calls, tensor=failing):
            reads = []
            for _ in range(calls):
                before = len(self.api.reads)
                # A site of its own: no other line passes these keyword names (equal tuples of
                # constants are one object in a module).
                self.package.saxpy(tensor, 0, 1.0, n=1, grid=4, block=128)
                reads.append(len(self.api.reads) - before)
            return reads

        self.assertEqual(reads_of(72), [1, 2] + [3] * 4 + [2] * 63 + [3] + [2] * 2)
        self.assertEqual(self.driver.launches()[-1]["params"][0], 0x3000)
        # Tensors the path takes: the general path's until the next try, which takes one.
        self.assertEqual(reads_of(64, self.Fast(0x4000)), [1] * 64)
        self.assertEqual(self.driver.launches()[-1]["params"][0], 0x4000)
        # Declines with calls the path takes between them never reach four in a row.
        pattern = []
        for _ in range(4):
            pattern += reads_of(3) + reads_of(1, self.Fast(0x5000))
        self.assertEqual(pattern, [3, 3, 3, 1] * 4)
        # Another line, with calls through **kwargs between its calls: they build new keyword
        # names every time, and none takes the line's place (seen once, never learned).
        failing = self.api.array_type(Tensor, "Other")(0x6000, fail=True)
        interleaved = []
        for _ in range(8):
            before = len(self.api.reads)
            # (Keyword names in an order no other line of this file uses: equal tuples of
            # constants are one object in a module.)
            self.package.saxpy(failing, n=1, x=0, a=1.0, block=128, grid=4)
            interleaved.append(len(self.api.reads) - before)
            self.package.saxpy(0, 0, **{"a": 1.0, "n": 1, "grid": 4, "block": 128})
        self.assertEqual(interleaved, [1, 2, 3, 3, 3, 3, 2, 2])

    def test_what_a_frameworks_read_raises(self):
        """An exception a framework's exchange API raises from a read is raised where the general
        path raises it (a type the API is the only way to read; for one with another way, an
        interrupt, an exit or memory exhausted), though the read would not fail again: at a
        site as through **kwargs. Any other, for a type with another way, is cleared and the
        array read again (here the API's read, which succeeds the second time)."""
        raising = harness.raising_exchange()

        class Both(raising.Array):  # the API, and __cuda_array_interface__ besides
            __dlpack_c_exchange_api__ = raising.capsule
            __cuda_array_interface__ = property(lambda self: interface(0x9900))

        def at_site(array):
            # Keyword names in an order no other line of this file uses (a site of its own).
            return self.package.saxpy(array, x=0, n=1, a=1.0, grid=4, block=128)

        def general(array):
            return self.package.saxpy(array, 0, 1.0, 1, **LAUNCH)

        for kind, exception, expected in [(raising.Array, ValueError, ValueError),
                                          (raising.Array, KeyboardInterrupt, KeyboardInterrupt),
                                          (Both, KeyboardInterrupt, KeyboardInterrupt),
                                          (Both, MemoryError, MemoryError),
                                          (Both, ValueError, 0x1000)]:
            for call in (at_site, general):
                with self.subTest(kind=kind.__name__, exception=exception, call=call.__name__):
                    array = kind(0x1000)
                    for _ in range(3):  # a site, known
                        call(array)
                    array.raise_once(exception)
                    self.driver.clear()
                    if isinstance(expected, int):  # read again
                        call(array)
                        self.assertEqual(self.driver.only_launch()["params"][0], expected)
                    else:
                        with self.assertRaisesRegex(expected, "could not read it"):
                            call(array)
                        self.assertEqual(self.driver.launches(), [])
        for call in (at_site, general):
            with self.subTest(stream=call.__name__):
                array = raising.Array(0x1000)
                for _ in range(3):
                    call(array)
                raising.stream_raises_once(RuntimeError)
                self.driver.clear()
                with self.assertRaisesRegex(RuntimeError, "no current stream"):
                    call(array)
                self.assertEqual(self.driver.launches(), [])

    def test_keywords_in_any_order_and_options(self):
        for call in range(3):
            y = self.Fast(0x1000 + call * 16, device=1)
            stream = None if call == 0 else 0x55 + call
            self.driver.clear()
            self.saxpy_keywords_site(y, 0x20 + call, -1.0 * call, 7 + call, grid=(2, 3, 4),
                                     block=call + 1, shared_mem=512 * call, stream=stream,
                                     device=1)
            launch = self.driver.only_launch()
            self.assertEqual(launch["params"], [y.address, 0x20 + call, float_bits(-1.0 * call),
                                                7 + call])
            self.assertEqual((launch["grid"], launch["block"], launch["shared_bytes"]),
                             ([2, 3, 4], [call + 1, 1, 1], 512 * call))
            self.assertEqual((launch["stream"], launch["device"]),
                             (self.api.STREAM_BASE + 1 if stream is None else stream, 1))
        # Only the call without stream= asked the API for one.
        self.assertEqual(self.api.stream_requests, [(harness.K_DL_CUDA, 1)])

    def test_values_are_read_as_the_general_path_reads_them(self):
        Fast = self.Fast
        stream = type("Stream", (), {"cuda_stream": 0x77})()
        cases = {
            "tensors": ((Fast(0x1000), Fast(0x2000)), {}),
            "a float64 tensor": ((Fast(0x1000, dtype="float64"), 0), {}),
            "a CPU tensor": ((Fast(0x1000), Fast(0x2000, device=-1)), {}),
            "a tensor the API cannot read": ((Fast(0x3000, fail=True), 0), {}),
            "tensors on two devices": ((Fast(0x1000, device=1), Fast(0x2000, device=0)), {}),
            "a tensor on device 1": ((0, Fast(0x2000, device=1)), {}),
            "a torch tensor without the API": ((Tensor(0x7100), 0), {}),
            "a CUDA array": ((CudaArray(0x7000), 0), {}),
            "a DLPack array": ((DLPackArray(0x7200), 0), {}),
            "None": ((None, None), {}),
            "a negative address": ((-1, 0), {}),
            "a 65-bit address": ((1 << 64, 0), {}),
            "the largest address": (((1 << 64) - 1, 0), {}),
            "a bool address": ((True, 0), {}),
            "n = 2**31": ((0, 0, 1.0, 1 << 31), {}),
            "n = -2**31 - 1": ((0, 0, 1.0, -(1 << 31) - 1), {}),
            "n = -2**31": ((0, 0, 1.0, -(1 << 31)), {}),
            "n = 2**70": ((0, 0, 1.0, 1 << 70), {}),
            "n a bool": ((0, 0, 1.0, True), {}),
            "n an index": ((0, 0, 1.0, Index()), {}),
            "n a float": ((0, 0, 1.0, 1.5), {}),
            "a an int": ((0, 0, 3), {}),
            "a a huge int": ((0, 0, 1 << 1100), {}),
            "a beyond float32": ((0, 0, 1e39), {}),
            "a infinite": ((0, 0, math.inf), {}),
            "a NaN": ((0, 0, math.nan), {}),
            "a a real": ((0, 0, Real()), {}),
            "a a string": ((0, 0, "1.0"), {}),
            "grid a tuple": ((), {"grid": (2, 3, 4)}),
            "grid a list": ((), {"grid": [2, 3]}),
            "grid empty": ((), {"grid": ()}),
            "grid of 4": ((), {"grid": (1, 1, 1, 1)}),
            "grid negative": ((), {"grid": -1}),
            "grid 2**32": ((), {"grid": 1 << 32}),
            "grid 2**32 - 1": ((), {"grid": (1 << 32) - 1}),
            "grid holding a bool": ((), {"grid": (2, True)}),
            "grid holding a negative": ((), {"grid": (2, -3)}),
            "block a bool": ((), {"block": True}),
            "block None": ((), {"block": None}),
            "block an index": ((), {"block": Index()}),
        }
        defaults = (0x10, 0x20, 1.0, 16)
        self.forget_saxpy_sites()
        for name, (given, options) in cases.items():
            arguments = given + defaults[len(given):]
            launch = dict(LAUNCH, **options)
            with self.subTest(name):
                self.saxpy_site(Fast(0x100), Fast(0x200), 1.0, 1)  # the site is known
                at_site = self.outcome(lambda: self.saxpy_site(*arguments, **launch))
                general = self.outcome(lambda: self.package.saxpy(*arguments, **launch))
                self.assertEqual(at_site, general)
        keyword_cases = {
            "stream=None": {"stream": None},
            "stream an int": {"stream": 0x99},
            "stream an object": {"stream": stream},
            "stream negative": {"stream": -1},
            "shared_mem": {"shared_mem": 4096},
            "shared_mem 2**32": {"shared_mem": 1 << 32},
            "device 1": {"device": 1},
            "device 0 for tensors on 1": {"device": 0},
            "device negative": {"device": -1},
        }
        for name, options in keyword_cases.items():
            with self.subTest(name):
                y, x = Fast(0x100, device=1), Fast(0x200, device=1)
                self.saxpy_keywords_site(y, x, 1.0, 1, 4, 128)  # the site is known
                at_site = self.outcome(lambda: self.saxpy_keywords_site(y, x, 2.0, 3, 4, 128,
                                                                        **options))
                reads = len(self.api.reads)
                general = self.outcome(lambda: self.package.saxpy(
                    n=3, block=128, a=2.0, x=x, grid=4, y=y, **options))
                self.assertEqual(at_site, general)
                if name in ("shared_mem 2**32", "stream negative", "device negative"):
                    # Refused for an option before any array is read, on both paths.
                    self.assertEqual(len(self.api.reads), reads)
                    at_reads = len(self.api.reads)
                    self.outcome(lambda: self.saxpy_keywords_site(y, x, 2.0, 3, 4, 128, **options))
                    self.assertEqual(len(self.api.reads), at_reads)

    def test_numbers_of_every_width(self):
        widths = [
            (True, -1, 255, -2, 65535, -3, 4294967295, -(1 << 63), (1 << 64) - 1, 1.5, -0.25, 0),
            (False, 127, 0, 32767, 0, (1 << 31) - 1, 0, (1 << 63) - 1, 0, 3, 7, 0x10),
            (0, -128, 1, -32768, 1, -(1 << 31), 1, -1, 1 << 63, -0.0, math.inf, None),
            (1, 0, 0, 0, 0, 0, 0, 0, 0, 3.4e38, 1e308, 0),
            (2, 128, 256, 32768, 65536, 1 << 31, 1 << 32, 1 << 63, 1 << 64, 1e39, 1.0, 0),
            (1, -129, -1, -32769, -1, -(1 << 31) - 1, -1, -(1 << 63) - 1, -1, 1.0, 1.0, 0),
            (1.0, 1.0, 1, 1, 1, 1, 1, 1, 1, "x", 1.0, 0),
        ]
        for values in widths:
            with self.subTest(values):
                self.widths_site(1, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, 0)  # the site is known
                at_site = self.outcome(lambda: self.widths_site(*values))
                general = self.outcome(lambda: self.package.widths(*values, **LAUNCH))
                if not isinstance(general, tuple):  # the two calls' launch options differ
                    general = dict(general, grid=[1, 1, 1], block=[32, 1, 1])
                self.assertEqual(at_site, general)
        for h, b in [(1.5, -2.5), (65504.0, 3.3895313892515355e38), (65520.0, 1.0), (6e-08, 1e-45),
                     (math.nan, math.nan), (-0.0, math.inf), (3, 2), (1e300, 1e300)]:
            with self.subTest(half=h, bfloat16=b):
                self.halves_site(0.0, 0.0, 0)
                at_site = self.outcome(lambda: self.halves_site(h, b, 0))
                general = self.outcome(lambda: self.package.halves(h, b, 0, grid=1, block=32))
                self.assertEqual(at_site, general)

    def test_options_the_path_does_not_read(self):
        for call in range(3):
            with self.subTest(call=call):
                at_site = self.outcome(lambda: self.package.saxpy(
                    0x10, 0x20, 1.0, call, grid=4, block=32, cluster=(2, 1, 1), cooperative=True,
                    programmatic_dependent_launch=call == 1))
                general = self.outcome(lambda: self.package.saxpy(
                    0x10, 0x20, 1.0, call, **dict(grid=4, block=32, cluster=(2, 1, 1),
                                                  cooperative=True,
                                                  programmatic_dependent_launch=call == 1)))
                self.assertEqual(at_site, general)
                self.assertEqual(at_site["function"], "cuLaunchKernelEx")

    def test_a_launcher_taking_pairs_keeps_the_general_path(self):
        for value in [(1.5, -2.0), [0.1, 3.0], (1.0,)]:
            with self.subTest(value):
                at_site = self.outcome(lambda: self.pairs_site(value, (1.0, 2.0), 0))
                general = self.outcome(lambda: self.package.pairs(value, (1.0, 2.0), 0, grid=1,
                                                                  block=32))
                self.assertEqual(at_site, general)

    def test_sites_of_one_launcher_take_turns(self):
        """Sites of one launcher in turn: two alternating, as many as a launcher keeps, and now
        and then a third, which takes the place of the one learned first."""
        sites = {"a": (self.saxpy_site, [4, 1, 1], [128, 1, 1]),
                 "b": (self.saxpy_other_site, [2, 1, 1], [64, 1, 1]),
                 "c": (lambda *values: self.saxpy_keywords_site(*values, 3, 16), [3, 1, 1],
                       [16, 1, 1])}
        for call, name in enumerate("ababcababcacbcb"):
            site, grid, block = sites[name]
            y = self.Fast(0x1000 + call)
            expected = [y.address, 0x30, float_bits(call), call]
            with self.subTest(call=call, site=name):
                self.driver.clear()
                site(y, 0x30, float(call), call)
                launch = self.driver.only_launch()
                self.assertEqual((launch["params"], launch["grid"], launch["block"]),
                                 (expected, grid, block))

    def test_a_read_that_launches_from_other_sites(self):
        """Reading an array may run Python that launches the same launcher from other lines,
        which learn their sites in place of this one's: the call goes on with its own values."""
        package = self.package
        Evicting = self.api.array_type(Tensor, "Evicting")
        fill = Evicting._exchange_fill

        def evicting_fill(tensor, out):
            if getattr(tensor, "evict", False):
                package.saxpy(0x5000, 0x5100, 1.0, 1, grid=1, block=1)
                package.saxpy(0x5200, 0x5300, a=1.0, n=1, grid=1, block=1)
                package.saxpy(0x5400, x=0x5500, a=1.0, n=1, grid=1, block=1)
            return fill(tensor, out)

        Evicting._exchange_fill = evicting_fill
        for call in range(3):
            x = Evicting(0x9000 + call)
            x.evict = call > 0
            self.driver.clear()
            self.saxpy_site(Evicting(0x8000 + call), x, 2.0, 5 + call, grid=7, block=96)
            launches = self.driver.launches()
            self.assertEqual([launch["params"][0] for launch in launches[:-1]],
                             [0x5000, 0x5200, 0x5400] if call else [])
            self.assertEqual(launches[-1]["params"], [0x8000 + call, 0x9000 + call,
                                                      float_bits(2.0), 5 + call])
            self.assertEqual((launches[-1]["grid"], launches[-1]["block"]), ([7, 1, 1],
                                                                             [96, 1, 1]))

if __name__ == "__main__":
    unittest.main()
