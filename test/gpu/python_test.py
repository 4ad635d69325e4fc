"""The Python package on a GPU (gpu-test item `python`): pyops, built by `tlc build --python`,
called with torch tensors, CuPy arrays and DLPack producers; results checked against torch and
CuPy; a torch.compile'd function calling a registered tlc op with fullgraph=True (any graph break
fails it); tlc calls captured in a CUDA graph and replayed.

usage: python_test.py BUNDLE   (the folder gpu-test prepared: BUNDLE/pyops/__init__.py)
Exit 0: passed; 1: failed; 77: skipped (no CUDA device, or neither torch nor CuPy).
"""

import ctypes
import math
import sys
import unittest

BUNDLE = sys.argv[1] if len(sys.argv) > 1 else "."
sys.path.insert(0, BUNDLE)
import pyops  # noqa: E402

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except ImportError:
    torch, HAVE_TORCH = None, False
try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # ImportError, or CuPy without a usable device
    cupy, HAVE_CUPY = None, False

N = 1_000_003  # not a multiple of the block
BLOCK = 256


def blocks(n, block=BLOCK):
    return (n + block - 1) // block


class Affine(ctypes.Structure):
    _fields_ = [("scale", ctypes.c_float), ("shift", ctypes.c_float)]


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
class TorchTests(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.a = torch.randn(N, device="cuda")
        self.b = torch.randn(N, device="cuda")

    def test_vadd_and_saxpy(self):
        out = torch.empty_like(self.a)
        pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
        torch.testing.assert_close(out, self.a + self.b)
        y = self.b.clone()
        pyops.saxpy(y, self.a, 0.5, N, grid=blocks(N), block=BLOCK)
        torch.testing.assert_close(y, 0.5 * self.a + self.b)

    def test_views_and_keywords(self):
        out = torch.zeros(2 * N, device="cuda")
        view = out[N:]  # data_ptr() includes the view's offset
        pyops.vadd(b=self.b, a=self.a, out=view, n=N, block=(BLOCK, 1, 1), grid=(blocks(N),))
        torch.testing.assert_close(view, self.a + self.b)
        self.assertEqual(out[:N].abs().sum().item(), 0.0)

    def test_half_and_bfloat16(self):
        for dtype, launcher in [(torch.float16, pyops.scale_half),
                                (torch.bfloat16, pyops.scale_bf16)]:
            with self.subTest(dtype=dtype):
                x = torch.randn(N, device="cuda").to(dtype)
                expected = x * torch.tensor(1.5, dtype=dtype)
                launcher(x, 1.5, N, grid=blocks(N), block=BLOCK)
                torch.testing.assert_close(x, expected)

    def test_struct_by_value_and_64_bit_sizes(self):
        x = self.a.clone()
        pyops.affine(x, Affine(2.0, -1.0), N, grid=blocks(N), block=BLOCK)
        torch.testing.assert_close(x, self.a * 2.0 - 1.0)
        bytes_ = torch.zeros(N, dtype=torch.uint8, device="cuda")
        pyops.fill_u8(bytes_, 255, N, grid=blocks(N), block=BLOCK)
        self.assertTrue(bool((bytes_ == 255).all()))

    def test_element_types_are_checked(self):
        # Every dtype real torch has: refused by float* with its own name, which proves the
        # binding's names are torch's (float32 is the one accepted).
        for name in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                     "float64", "complex64", "complex128", "float8_e4m3fn", "float8_e5m2",
                     "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "uint16", "uint32",
                     "uint64"]:
            dtype = getattr(torch, name, None)
            if dtype is None:
                continue  # an older torch
            with self.subTest(dtype=name):
                try:
                    array = torch.empty(4, dtype=dtype, device="cuda")
                except (RuntimeError, TypeError):
                    continue  # a dtype this torch cannot allocate on CUDA
                with self.assertRaisesRegex(TypeError, rf"argument 'y' \(float \*\) takes an "
                                            rf"array of float32, not {name} \(torch.{name}\)"):
                    pyops.saxpy(array, self.a, 1.0, 4, grid=1, block=BLOCK)
        out = torch.zeros(4, dtype=torch.float16, device="cuda")
        pyops.scale_half(out, 2.0, 4, grid=1, block=BLOCK)  # __half* takes float16
        pyops.fill_u8(torch.zeros(8, dtype=torch.float32, device="cuda"), 1, 32, grid=1,
                      block=BLOCK)  # unsigned char* takes any array
        pyops.saxpy(out.data_ptr(), self.a, 1.0, 0, grid=1, block=BLOCK)  # an address: as it is
        torch.cuda.synchronize()

    def test_every_width(self):
        out = torch.zeros(10, dtype=torch.int64, device="cuda")
        pyops.echo_widths(out, True, -128, 255, -32768, 65535, -(2**31), 2**32 - 1, -(2**63),
                          2**63 - 1, 2.25, grid=1, block=1)
        self.assertEqual(out.tolist(), [1, -128, 255, -32768, 65535, -(2**31), 2**32 - 1,
                                        -(2**63), 2**63 - 1, 9])

    def test_tensors_are_read_without_python_calls(self):
        """torch >= 2.10 offers DLPack's C exchange API on torch.Tensor: the binding reads
        tensors through it, never through data_ptr(), get_device() or dtype (which a
        TorchFunctionMode would see), and falls back to them only for what it cannot take."""
        if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
            self.skipTest("this torch has no __dlpack_c_exchange_api__")

        class Recorder(torch.overrides.TorchFunctionMode):
            def __init__(self):
                super().__init__()
                self.names = []

            def __torch_function__(self, func, types, args=(), kwargs=None):
                self.names.append(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        out = torch.empty_like(self.a)
        with Recorder() as recorder:
            pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
        self.assertEqual(recorder.names, [])
        with Recorder() as recorder, self.assertRaises(TypeError):
            pyops.saxpy(self.a.half(), self.a, 1.0, N, grid=1, block=1)  # the message's way
        self.assertIn("data_ptr", recorder.names)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, self.a + self.b)

    def test_launches_go_to_the_current_stream(self):
        out = torch.empty_like(self.a)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
            y = out * 3  # ordered after the launch only if it went to `stream`
        stream.synchronize()
        torch.testing.assert_close(y, (self.a + self.b) * 3)
        other = torch.empty_like(self.a)
        pyops.vadd(self.a, self.b, other, N, grid=blocks(N), block=BLOCK, stream=stream)
        stream.synchronize()
        torch.testing.assert_close(other, self.a + self.b)

    def test_dlpack_producers(self):
        class DLPackOnly:
            def __init__(self, tensor):
                self.tensor = tensor

            def __dlpack__(self, **kwargs):
                return self.tensor.__dlpack__(**kwargs)

            def __dlpack_device__(self):
                return self.tensor.__dlpack_device__()

        out = torch.empty_like(self.a)
        pyops.vadd(DLPackOnly(self.a), DLPackOnly(self.b), DLPackOnly(out), N, grid=blocks(N),
                   block=BLOCK)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, self.a + self.b)

    def test_tensor_maps_from_tensors(self):
        rows, cols = 200, 136  # not tile multiples; the innermost extent a multiple of 8 bf16
        source = torch.randn(rows, cols, device="cuda").to(torch.bfloat16)
        copied = torch.zeros_like(source)
        grid = (blocks(cols, 64), blocks(rows, 64))
        pyops.copy_tiles(source, copied, grid=grid, block=32)
        transposed = torch.zeros(cols, rows, dtype=torch.bfloat16, device="cuda")
        pyops.transpose_tiles(source, transposed, grid=grid, block=256)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(copied, source))
        self.assertTrue(torch.equal(transposed, source.t()))

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "outside CUDA memory"):
            pyops.vadd(self.a.cpu(), self.b, self.a, N, grid=blocks(N), block=BLOCK)
        with self.assertRaises(pyops.tlc.Error) as raised:
            pyops.vadd(self.a, self.b, self.a, N, grid=blocks(N), block=4096)
        self.assertIn(raised.exception.status_name,
                      ("TLC_ERROR_LAUNCH", "TLC_ERROR_INVALID_VALUE"))

    def test_torch_compile_without_graph_breaks(self):
        ops = pyops.tlc.register_torch_ops("pyops_test")
        self.assertIs(pyops.tlc.register_torch_ops("pyops_test"), ops)

        def add_then_double(a, b):
            out = torch.empty_like(a)
            torch.ops.pyops_test.vadd(a, b, out, a.numel(), grid=blocks(a.numel()), block=BLOCK)
            return out * 2

        torch._dynamo.reset()
        compiled = torch.compile(add_then_double, fullgraph=True)
        torch.testing.assert_close(compiled(self.a, self.b), (self.a + self.b) * 2)
        # In place, through the mutated argument: saxpy's y.
        def axpy_twice(y, x):
            torch.ops.pyops_test.saxpy(y, x, 1.0, y.numel(), grid=[blocks(y.numel())],
                                       block=[BLOCK])
            torch.ops.pyops_test.saxpy(y, x, 1.0, y.numel(), grid=[blocks(y.numel())],
                                       block=[BLOCK])
            return y

        y = self.b.clone()
        torch.compile(axpy_twice, fullgraph=True)(y, self.a)
        torch.testing.assert_close(y, self.b + 2 * self.a)

    def test_cuda_graph_capture(self):
        out = torch.empty_like(self.a)

        def work():
            pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
            pyops.saxpy(out, self.a, 2.0, N, grid=blocks(N), block=BLOCK)

        side = torch.cuda.Stream()  # warm up outside capture: the first launch loads the image
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            work()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            work()
        self.a.copy_(torch.full_like(self.a, 3.0))
        self.b.copy_(torch.full_like(self.b, 1.0))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, torch.full_like(out, 3.0 + 1.0 + 2.0 * 3.0))

    def test_cuda_graph_capture_of_a_registered_op(self):
        pyops.tlc.register_torch_ops("pyops_test")
        out = torch.empty_like(self.a)
        op = torch.ops.pyops_test.vadd
        op(self.a, self.b, out, N, grid=[blocks(N)], block=[BLOCK])
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            op(self.a, self.b, out, N, grid=[blocks(N)], block=[BLOCK])
        self.a.fill_(5.0)
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, 5.0 + self.b)


@unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
class TorchOpTests(unittest.TestCase):
    """register_torch_ops's native kernels (torch >= 2.10's stable C ABI): what they launch,
    what they refuse, and that they release every tensor they are given."""

    @classmethod
    def setUpClass(cls):
        cls.ops = pyops.tlc.register_torch_ops("pyops_native")
        cls.native = torch.__version__ >= "2.10"

    def setUp(self):
        self.a = torch.randn(N, device="cuda")
        self.b = torch.randn(N, device="cuda")

    def test_ops_of_tensors_and_numbers_are_native(self):
        if not self.native:
            self.skipTest("torch < 2.10 has no stable C ABI: the ops are Python kernels")
        for name in ["vadd", "saxpy", "scale_half", "fill_u8", "echo_widths"]:
            for overload in (name, f"{name}.basic"):
                dump = torch._C._dispatch_dump(f"pyops_native::{overload}")
                self.assertIn("registered at tlc:0", dump, overload)  # the native registration
        # A tensor map's launcher keeps its Python kernel.
        self.assertNotIn("registered at tlc:0",
                         torch._C._dispatch_dump("pyops_native::transpose_tiles"))

    def test_results(self):
        out = torch.empty_like(self.a)
        self.ops.vadd(self.a, self.b, out, N, grid=[blocks(N)], block=[BLOCK])
        y = self.b.clone()
        self.ops.saxpy(y, self.a, -2.0, N, grid=[blocks(N)], block=[BLOCK])
        half = self.a.half()
        expected = half * 0.5
        self.ops.scale_half(half, 0.5, N, grid=[blocks(N)], block=[BLOCK])
        widths = torch.zeros(10, dtype=torch.int64, device="cuda")
        self.ops.echo_widths(widths, True, -128, 255, -32768, 65535, -(2**31), 2**32 - 1,
                             -(2**63), 2**63 - 1, 2.25, grid=[1], block=[1])
        torch.cuda.synchronize()
        torch.testing.assert_close(out, self.a + self.b)
        torch.testing.assert_close(y, -2.0 * self.a + self.b)
        self.assertTrue(torch.equal(half, expected))
        self.assertEqual(widths.tolist(), [1, -128, 255, -32768, 65535, -(2**31), 2**32 - 1,
                                           -(2**63), 2**63 - 1, 9])

    def test_overloads(self):
        """A call giving no option beyond grid, block and shared_mem reaches .basic (fewer
        keywords for torch to parse per call); one giving any other, .default. Both launch."""
        resolve = torch._C._jit_resolve_packet
        arguments = (self.a, self.b, torch.empty_like(self.a), N)
        dims = {"grid": [blocks(N)], "block": [BLOCK]}
        self.assertEqual(resolve("pyops_native::vadd", *arguments, **dims), "basic")
        self.assertEqual(resolve("pyops_native::vadd", *arguments, shared_mem=0, **dims), "basic")
        for option, value in [("cluster", None), ("cooperative", False),
                              ("programmatic_dependent_launch", False)]:
            self.assertEqual(resolve("pyops_native::vadd", *arguments, **{option: value}, **dims),
                             "default", option)
        every = {"shared_mem": 0, "cluster": None, "cooperative": False,
                 "programmatic_dependent_launch": False}
        for overload, options in [("basic", {"shared_mem": 0}), ("default", every)]:
            out = torch.zeros_like(self.a)
            getattr(torch.ops.pyops_native.vadd, overload)(self.a, self.b, out, N, **dims,
                                                           **options)
            torch.cuda.synchronize()
            torch.testing.assert_close(out, self.a + self.b, msg=overload)
        with self.assertRaises((RuntimeError, TypeError)):  # .basic has no cluster
            torch.ops.pyops_native.vadd.basic(*arguments, cluster=[1], **dims)

    def test_dimensions_as_ints(self):
        """grid, block and cluster are int[1]: an int is taken as the launchers take it (a
        one-dimensional launch), by both overloads and both kinds of kernel; a list of 2 or 3
        still is a list."""
        resolve = torch._C._jit_resolve_packet
        arguments = (self.a, self.b, torch.empty_like(self.a), N)
        self.assertEqual(resolve("pyops_native::vadd", *arguments, grid=blocks(N), block=BLOCK),
                         "basic")
        for options in ({}, {"cluster": 1}, {"cooperative": False}):
            out = torch.zeros_like(self.a)
            self.ops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK, **options)
            torch.cuda.synchronize()
            torch.testing.assert_close(out, self.a + self.b, msg=str(options))
        rows, cols = 128, 64  # a Python kernel's (tensor maps), with a 2-D grid and an int block
        source = torch.randn(rows, cols, device="cuda").to(torch.bfloat16)
        copied = torch.zeros_like(source)
        self.ops.copy_tiles(source, copied, grid=[blocks(cols, 64), blocks(rows, 64)], block=32)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(copied, source))
        if self.native:
            refused = r"vadd\(\): option 'grid' = -1 is out of range"
            with self.assertRaisesRegex(RuntimeError, refused):
                self.ops.vadd(self.a, self.b, self.a, N, grid=-1, block=BLOCK)

    def test_overloads_of_a_python_kernel(self):
        """A tensor map's launcher is the Python kernel of both overloads."""
        rows, cols = 128, 64
        source = torch.randn(rows, cols, device="cuda").to(torch.bfloat16)
        grid = [blocks(cols, 64), blocks(rows, 64)]
        for call in (lambda out: self.ops.copy_tiles(source, out, grid=grid, block=[32]),
                     lambda out: self.ops.copy_tiles(source, out, grid=grid, block=[32],
                                                     cooperative=False)):
            copied = torch.zeros_like(source)
            call(copied)
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(copied, source))

    def test_current_stream_and_views(self):
        out = torch.zeros_like(self.a)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self.ops.vadd(self.a[1:], self.b[1:], out[1:], N - 1, grid=[blocks(N)],
                          block=[BLOCK], shared_mem=0, cluster=None)
            y = out * 3
        stream.synchronize()
        torch.testing.assert_close(y[1:], (self.a[1:] + self.b[1:]) * 3)
        self.assertEqual(y[0].item(), 0.0)

    def test_refusals(self):
        if not self.native:
            self.skipTest("torch < 2.10: the Python kernels' own errors (TorchTests)")
        cases = [
            (r"vadd\(\): argument 'b' \(const float \*\) is a tensor outside CUDA memory",
             lambda: self.ops.vadd(self.a, self.b.cpu(), self.a, N, grid=[1], block=[1])),
            (r"saxpy\(\): argument 'y' \(float \*\) takes an array of float32, not float16",
             lambda: self.ops.saxpy(self.a.half(), self.a, 1.0, N, grid=[1], block=[1])),
            (r"fill_u8\(\): argument 'value' \(unsigned char\) = 300 is out of range "
             r"\(0..255\)",
             lambda: self.ops.fill_u8(self.a, 300, 4, grid=[1], block=[1])),
            (r"scale_half\(\): argument 'factor' \(__half\) = 1000000.0 is beyond __half's "
             r"range", lambda: self.ops.scale_half(self.a.half(), 1e6, 4, grid=[1], block=[1])),
            (r"vadd\(\): option 'grid' takes 1 to 3 dimensions, not 4",
             lambda: self.ops.vadd(self.a, self.b, self.a, N, grid=[1, 1, 1, 1], block=[1])),
            (r"vadd\(\): option 'block' = -1 is out of range",
             lambda: self.ops.vadd(self.a, self.b, self.a, N, grid=[1], block=[-1])),
            (r"TLC_ERROR_(LAUNCH|INVALID_VALUE): ",
             lambda: self.ops.vadd(self.a, self.b, self.a, N, grid=[1], block=[4096])),
        ]
        for pattern, call in cases:
            with self.subTest(pattern), self.assertRaisesRegex(RuntimeError, pattern):
                call()

    def test_every_tensor_is_released(self):
        """The kernel owns the tensors torch hands it, after a launch and after a refusal."""
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        for _ in range(3):
            a = torch.ones(1 << 20, device="cuda")
            out = torch.empty_like(a)
            self.ops.vadd(a, a, out, a.numel(), grid=[blocks(a.numel())], block=[BLOCK])
            with self.assertRaises(RuntimeError):
                self.ops.fill_u8(a, 300, 4, grid=[1], block=[1])
            with self.assertRaises(RuntimeError):
                self.ops.vadd(a, a, out, 4, grid=[1, 1, 1, 1], block=[1], cluster=[1, 1, 1])
            del a, out
        torch.cuda.synchronize()
        self.assertEqual(torch.cuda.memory_allocated(), before)


@unittest.skipUnless(HAVE_CUPY, "CuPy with a CUDA device is not available")
class CupyTests(unittest.TestCase):
    def setUp(self):
        self.a = cupy.random.standard_normal(N, dtype=cupy.float32)
        self.b = cupy.random.standard_normal(N, dtype=cupy.float32)

    def test_vadd_and_saxpy(self):
        out = cupy.empty_like(self.a)
        pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
        cupy.testing.assert_allclose(out, self.a + self.b, rtol=1e-6)
        y = self.b.copy()
        pyops.saxpy(y, self.a, -2.0, N, grid=blocks(N), block=BLOCK)
        cupy.testing.assert_allclose(y, -2.0 * self.a + self.b, rtol=1e-5, atol=1e-6)

    def test_half(self):
        x = self.a.astype(cupy.float16)
        expected = x * cupy.float16(0.5)
        pyops.scale_half(x, 0.5, N, grid=blocks(N), block=BLOCK)
        cupy.testing.assert_array_equal(x, expected)

    def test_element_types_are_checked(self):
        with self.assertRaisesRegex(TypeError, r"argument 'y' \(float \*\) takes an array of "
                                    r"float32, not float16 \(dtype '<f2'\)"):
            pyops.saxpy(self.a.astype(cupy.float16), self.a, 1.0, N, grid=blocks(N), block=BLOCK)

    def test_launches_go_to_cupys_current_stream(self):
        out = cupy.empty_like(self.a)
        with cupy.cuda.Stream(non_blocking=True) as stream:
            pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
            y = out * 3
        stream.synchronize()
        cupy.testing.assert_allclose(y, (self.a + self.b) * 3, rtol=1e-6)

    @unittest.skipUnless(HAVE_TORCH, "torch with CUDA is not available")
    def test_cupy_and_torch_in_one_call(self):
        out = torch.empty(N, device="cuda")
        pyops.vadd(self.a, self.b, out, N, grid=blocks(N), block=BLOCK)
        cupy.cuda.runtime.deviceSynchronize()
        cupy.testing.assert_allclose(cupy.asarray(out), self.a + self.b, rtol=1e-6)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun == len(result.skipped):
        print("python_test: SKIP: every test was skipped (no torch or CuPy with a CUDA device)")
        return 77
    print(f"python_test: {result.testsRun - len(result.skipped)} passed, 0 failed, "
          f"{len(result.skipped)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
