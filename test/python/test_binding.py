"""The Python package tlc builds (tlc build --python), imported from the build folder and run
against the fake CUDA driver: its names and signatures, its stubs, every argument error, and the
launches the driver records for each kind of argument. Run by CTest, one TestCase class per
process (test/python/CMakeLists.txt)."""

import ast
import ctypes
import inspect
import math
import os
import struct
import sys
import unittest

import harness
from harness import CudaArray, CudaArrayOnDevice, DLPackArray, LegacyDLPackArray, Tensor

LAUNCHERS = ["by_value", "Error", "halves", "image_target", "launchers", "no_params",
             "nvcc_only", "register_torch_ops", "renamed", "saxpy", "tagged", "tiles", "untyped",
             "widths"]
OPTIONS = ["grid", "block", "shared_mem", "stream", "device", "cluster", "cooperative",
           "programmatic_dependent_launch", "l2_persist_base", "l2_persist_bytes",
           "l2_persist_hit_ratio"]
LAUNCH = {"grid": 4, "block": 128}


class Pair(ctypes.Structure):
    """pykernels.cu's struct Pair, laid out as on the device."""

    _fields_ = [("first", ctypes.c_int), ("second", ctypes.c_float),
                ("third", ctypes.c_double)]


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
        self.assertEqual(sorted(helpers.launchers()), sorted(LAUNCHERS))
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
            ("y", "pointer", "float *", True, None),
            ("x", "pointer", "const float *", False, None),
            ("a", "scalar", "float", False, "f32"),
            ("n", "scalar", "int", False, "i32"),
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
                     if isinstance(node, ast.FunctionDef)}
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

    def test_tensor_maps(self):
        tiles = self.package.tiles
        self.refused(TypeError, r"tiles\(\): argument 'in_' \(const CUtensorMap\) takes a CUDA "
                     r"array .* not int", tiles, 0x1000, 0, **LAUNCH)
        self.refused(ValueError, r"argument 'in_' .* has 1 dimension; the tensor map takes 2",
                     tiles, CudaArray(0x1000, shape=(16,)), 0, **LAUNCH)
        self.refused(ValueError, r"argument 'in_' .* has 2-byte elements; the tensor map's are "
                     r"4-byte", tiles, CudaArray(0x1000, shape=(8, 16), typestr="<f2"), 0,
                     **LAUNCH)


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

    def test_every_width(self):
        self.package.widths(True, -1, 255, -2, 65535, -3, 4294967295, -(1 << 63), (1 << 64) - 1,
                            1.5, -0.25, 0x9000, **LAUNCH)
        params = self.driver.only_launch()["params"]
        self.assertEqual(params, [1, 0xFF, 0xFF, 0xFFFE, 0xFFFF, 0xFFFFFFFD, 0xFFFFFFFF,
                                  1 << 63, (1 << 64) - 1, float_bits(1.5), double_bits(-0.25),
                                  0x9000])

    def test_numpy_like_scalars_through_their_protocols(self):
        class Index:
            def __index__(self):
                return 7

        class Real:
            def __float__(self):
                return 2.0

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


class TorchStandInTests(unittest.TestCase):
    """torch tensors, as the binding sees them (a stand-in module installed as `torch`)."""

    @classmethod
    def setUpClass(cls):
        cls.torch = harness.TorchStandIn()
        cls.torch.install()
        cls.package = harness.import_package()
        cls.driver = harness.FakeDriver()

    @classmethod
    def tearDownClass(cls):
        cls.torch.remove()

    def setUp(self):
        self.driver.clear()
        self.torch.stream_requests.clear()

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


class DeviceTests(unittest.TestCase):
    """Two devices: the launch goes to the arrays' device, or to device=."""

    @classmethod
    def setUpClass(cls):
        cls.driver = harness.FakeDriver()
        cls.driver.set_devices("9.0,9.0")  # before anything loads the driver
        cls.torch = harness.TorchStandIn()
        cls.torch.install()
        cls.package = harness.import_package()

    @classmethod
    def tearDownClass(cls):
        cls.torch.remove()

    def setUp(self):
        self.driver.clear()

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


if __name__ == "__main__":
    unittest.main()
