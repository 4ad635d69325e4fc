#!/usr/bin/env python3
"""Fuzzes the Python binding's argument parsing (python/src/Parse.c, CallSites.c, Arrays.c,
Scalars.c): the launchers of test/python's module (pykernels, every kind of parameter) called
with random arguments and launch options against the fake CUDA driver, in a child process, so
that a crash of the interpreter is seen and its call is kept.

usage: test/fuzz/python_args.py [--seconds S] [--calls N] [--seed N] [--strict]
                                [--engine random|atheris] [--artifacts DIR] [--replay SEED:INDEX]

Every call must return None or raise TypeError, ValueError, OverflowError, the module's Error
(pykernels.tlc.Error) or the exception an argument's own hostile method raised. Anything else is a
finding: the interpreter ending on a signal or an abort (a crash), a call that does not return
within 10 s (a hang), another exception type (SystemError, IndexError, KeyError... an
`unexpected` line names the call). The arguments: ints of every width and past them, floats
(inf, nan, beyond float16's range), None, str, bytes, lists, dicts; objects whose __index__,
__float__, __bool__ raise or return the wrong type; __cuda_array_interface__ dicts with every
field wrong in kind or size (huge shapes and strides, negative addresses, unknown typestrs, bad
versions and streams), properties that raise, and non-dicts; DLPack producers (harness.py's) with
hostile dtypes, devices, shapes, strides, offsets and versions, and __dlpack__ methods that raise
or return something else; torch.Tensor and cupy.ndarray stand-ins with hostile fields and
methods; and callbacks that, while the binding reads one argument, empty and rewrite the dicts
and lists of the others (what a binding that borrows a reference would use after it is freed).
Keywords: grid, block, cluster, shared_mem, stream (ints, __cuda_stream__ objects), device and
the other launch options, with the same values, unknown keywords and duplicates.

--engine random (the default; what CI runs): call N is made by random.Random(f"{seed}:{N}"), so
--replay SEED:N makes that call again in a fresh process, printing it (a call whose effect
depends on what the binding remembered from earlier calls, such as the types it has seen, may
need the run's earlier calls too: rerun with --seconds). --calls N stops after N calls, so that
a run makes the same calls on any machine fast enough. The stand-ins of torch and cupy are in
sys.modules for the whole run, as in a program that imports them. The child runs with
PYTHONMALLOC=debug, which overwrites freed memory, so that an object used after it is freed
fails loudly. Findings already reported and not fixed (KNOWN, with reproducers in
test/fuzz/crashes/python/) are counted, not failed on, unless --strict. --engine atheris draws
the same calls from atheris's FuzzedDataProvider under libFuzzer (pip install atheris; the
binding is not instrumented, so libFuzzer's guidance sees only this file's Python); libFuzzer
keeps a failing input in --artifacts.

Environment (test/fuzz/CMakeLists.txt and scripts/fuzz set it): TLC_PYTHON_MODULES (the folder
tlc built pykernels into), TLC_TEST_LIBCUDA (the fake driver). Exit 0 when nothing was found; the
last line sums up the run.
"""

import argparse
import ctypes
import faulthandler
import gc
import os
import random
import select
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree (test/python's harness)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

HANG_SECONDS = 10


class Hostile(Exception):
    """What a hostile argument's own methods raise: the binding must let it through."""


class HostileAttributeError(Hostile, AttributeError):
    """Raised by a property: to the binding, that attribute is missing."""


class HostileTypeError(Hostile, TypeError):
    pass


# ---- the random source ---------------------------------------------------------------------


class Source:
    """The choices a call is made of, from random.Random or atheris's FuzzedDataProvider."""

    def __init__(self, rng=None, provider=None):
        self.rng = rng
        self.provider = provider

    def below(self, n):
        if n <= 1:
            return 0
        if self.provider is not None:
            return self.provider.ConsumeIntInRange(0, n - 1)
        return self.rng.randrange(n)

    def chance(self, percent):
        return self.below(100) < percent

    def pick(self, items):
        return items[self.below(len(items))]

    def bits(self, count):
        if self.provider is not None:
            return self.provider.ConsumeIntInRange(0, (1 << count) - 1)
        return self.rng.getrandbits(count)

    def real(self):
        if self.provider is not None:
            return self.provider.ConsumeRegularFloat()
        return self.rng.uniform(-1e6, 1e6)


# ---- values --------------------------------------------------------------------------------

EDGE_INTS = [0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535,
             65536, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1,
             2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64, -2**64, 2**100, -2**1000, 0x1000,
             0x7F00, 32764, 32765, 49152, 1024, 1025]
EDGE_FLOATS = [0.0, -0.0, 1.0, -1.5, 0.5, float("inf"), float("-inf"), float("nan"), 1e39,
               -1e39, 3.4e38, 3.5e38, 65504.0, 65520.0, 65519.99, 5e-324, 1e-45, 6e-8, 1e308,
               1.0000001, 2.0**-149, 2.0**-24, -65520.0]
TYPESTRS = ["<f4", "<f8", "<f2", "|b1", "<i4", "<u4", "<i8", "<u8", "|u1", "|i1", "<i2", "<u2",
            "<c8", "<V4", "|V16", "<f16", "", "<f", "f4", "<f0", "<f999999999999999999999", "<x4",
            ">f4", "=f4", "<f4 ", "<f4\0", "|V0", "<b1", "<u16"]


def edge_int(s):
    r = s.below(4)
    if r == 0:
        return s.pick(EDGE_INTS)
    if r == 1:
        value = s.bits(s.pick([8, 16, 32, 63, 64, 65, 128]))
        return -value if s.chance(30) else value
    if r == 2:
        return s.pick(EDGE_INTS) + s.pick([-1, 0, 1])
    return s.below(64)


def number_like(s, depth):
    """An object whose number protocol is hostile or merely unusual."""
    kind = s.below(9)
    inner = value(s, depth + 1) if s.chance(40) else edge_int(s)
    if kind == 0:
        return Index(inner, raises=s.chance(20))
    if kind == 1:
        return FloatLike(inner if s.chance(40) else s.pick(EDGE_FLOATS), raises=s.chance(20))
    if kind == 2:
        return IntSubclass(edge_int(s))
    if kind == 3:
        return FloatSubclass(s.pick(EDGE_FLOATS))
    if kind == 4:
        return BoolLike(s.pick([True, False, 2, "yes", None]), raises=s.chance(30))
    if kind == 5:
        return Mutator(s, edge_int(s))
    if kind == 6:
        return IntOnly(edge_int(s))
    if kind == 7:
        return BytesLike(s.bits(8).to_bytes(1, "little") * s.pick([0, 1, 15, 16, 17, 100]),
                         raises=s.chance(30))
    return Index(Index(edge_int(s)))


def value(s, depth=0):
    """Any argument: of the right kind for some parameter, or of none."""
    if depth > 3:
        return edge_int(s)
    kind = s.below(22)
    if kind < 4:
        return edge_int(s)
    if kind < 6:
        return s.pick(EDGE_FLOATS) if s.chance(70) else s.real()
    if kind == 6:
        return s.pick([None, True, False, Ellipsis, NotImplemented, object(), object, int, len])
    if kind == 7:
        return s.pick(["", "x", "0x10", "1", "\udcff", "3.0", "a" * 1000])
    if kind == 8:
        return s.pick([b"", b"\0" * 16, bytearray(16), memoryview(b"\0" * 16), b"\xff" * 100,
                       (ctypes.c_char * 16)(), bytes(4200)])
    if kind == 9:
        return [value(s, depth + 1) for _ in range(s.below(5))]
    if kind == 10:
        return tuple(value(s, depth + 1) for _ in range(s.below(5)))
    if kind == 11:
        return {value_key(s): value(s, depth + 1) for _ in range(s.below(4))}
    if kind < 14:
        return number_like(s, depth)
    if kind < 17:
        return cuda_array(s, depth)
    if kind < 19:
        return dlpack_array(s, depth)
    if kind == 19:
        return tensor(s, depth)
    if kind == 20:
        return cupy_array(s, depth)
    return complex(s.pick(EDGE_FLOATS), s.pick(EDGE_FLOATS))


def value_key(s):
    return s.pick(["shape", "typestr", "data", "version", "strides", "stream", "mask", "descr",
                   1, None, "x"])


# Every dict and list an argument handed out: a Mutator empties and rewrites them while the
# binding is still reading (it must own what it keeps, never borrow from them).
HANDED_OUT = []


def handed(obj):
    HANDED_OUT.append(obj)
    return obj


def mutate_handed_out(s):
    for obj in HANDED_OUT:
        if isinstance(obj, dict):
            if s.chance(50):
                obj.clear()
            else:
                for key in list(obj):
                    obj[key] = s.pick([None, "x", -1, 2**70, (), [1]])
        elif isinstance(obj, list):
            if s.chance(50):
                obj.clear()
            else:
                obj[:] = [s.pick([None, -1, "x"])] * s.below(4)
    HANDED_OUT.clear()
    gc.collect()


class Index:
    def __init__(self, result, raises=False):
        self.result, self.raises = result, raises

    def __index__(self):
        if self.raises:
            raise Hostile("__index__")
        return self.result

    def __repr__(self):
        return f"Index({self.result!r}, raises={self.raises})"


class FloatLike:
    def __init__(self, result, raises=False):
        self.result, self.raises = result, raises

    def __float__(self):
        if self.raises:
            raise Hostile("__float__")
        return self.result

    def __repr__(self):
        return f"FloatLike({self.result!r}, raises={self.raises})"


class BoolLike:
    def __init__(self, result, raises=False):
        self.result, self.raises = result, raises

    def __bool__(self):
        if self.raises:
            raise Hostile("__bool__")
        return self.result

    def __repr__(self):
        return f"BoolLike({self.result!r}, raises={self.raises})"


class IntOnly:
    """__int__ without __index__: not an int to the binding."""

    def __init__(self, result):
        self.result = result

    def __int__(self):
        return self.result

    def __repr__(self):
        return f"IntOnly({self.result!r})"


class BytesLike:
    def __init__(self, result, raises=False):
        self.result, self.raises = result, raises

    def __bytes__(self):
        if self.raises:
            raise Hostile("__bytes__")
        return self.result

    def __repr__(self):
        return f"BytesLike({len(self.result)} bytes, raises={self.raises})"


class Mutator:
    """An int (or a float) whose conversion rewrites what the other arguments handed out."""

    def __init__(self, s, result):
        self.s, self.result = s, result

    def __index__(self):
        mutate_handed_out(self.s)
        return self.result

    def __float__(self):
        mutate_handed_out(self.s)
        return float(self.result % 1000)

    def __bool__(self):
        mutate_handed_out(self.s)
        return True

    def __repr__(self):
        return f"Mutator({self.result!r})"


class IntSubclass(int):
    def __repr__(self):
        return f"IntSubclass({int(self)})"


class FloatSubclass(float):
    def __repr__(self):
        return f"FloatSubclass({float(self)})"


# ---- arrays --------------------------------------------------------------------------------


def dimension(s, depth):
    return edge_int(s) if s.chance(85) else value(s, depth + 1)


def shape_of(s, depth):
    r = s.below(10)
    if r == 0:
        return value(s, depth + 1)
    extents = [dimension(s, depth) if s.chance(60) else s.pick([1, 16, 0, 4]) for _ in
               range(s.pick([0, 1, 1, 1, 2, 3, 4, 33]))]
    return handed(extents) if r == 1 else tuple(extents)


def cuda_interface(s, depth):
    fields = {
        "shape": shape_of(s, depth),
        "typestr": s.pick(TYPESTRS) if s.chance(90) else value(s, depth + 1),
        "data": (edge_int(s) if s.chance(80) else value(s, depth + 1),
                 s.pick([False, True]) if s.chance(85) else value(s, depth + 1)),
        "version": s.pick([3, 3, 3, 2, 1, 0, 4, -1, 2**64, "3", None]),
        "strides": None if s.chance(50) else shape_of(s, depth),
    }
    if s.chance(15):
        fields["data"] = value(s, depth + 1)
    if s.chance(30):
        fields["stream"] = s.pick([None, 0, 1, 2, -1, 2**64, "1", 1.0, True, 0x7F00,
                                   Index(5), Index(2, raises=True)])
    if s.chance(10):
        fields["mask"] = s.pick([None, object(), (1,)])
    if s.chance(10):
        fields["descr"] = [("", "<f4")]
    for key in list(fields):
        if s.chance(5):
            del fields[key]
    return handed(fields)


class RaisingInterface:
    def __init__(self, error):
        self.error = error

    @property
    def __cuda_array_interface__(self):
        raise self.error

    def __repr__(self):
        return f"RaisingInterface({self.error!r})"


class DictSubclass(dict):
    """A dict whose own lookups lie: the binding's PyDict lookups do not see them."""

    def __getitem__(self, key):
        raise Hostile("__getitem__")

    def get(self, key, default=None):
        raise Hostile("get")


def cuda_array(s, depth):
    import harness
    r = s.below(12)
    if r == 0:
        return RaisingInterface(s.pick([Hostile("interface"), HostileAttributeError("interface"),
                                        HostileTypeError("interface")]))
    if r == 1:
        return harness.RawInterface(value(s, depth + 1))
    if r == 2:
        return harness.RawInterface(DictSubclass(cuda_interface(s, depth)))
    if r == 3:
        return harness.CudaArrayOnDevice(
            edge_int(s), s.pick([0, 1, -1, 2**31, 2**40]) if s.chance(80) else value(s, depth + 1),
            shape=s.pick([(16,), (0,), (2**40,)]))
    if r == 4:
        array = harness.RawInterface(cuda_interface(s, depth))
        array.__dlpack_device__ = lambda: value(s, depth + 1)
        return array
    return harness.RawInterface(cuda_interface(s, depth))


def int64s(s, count):
    return [s.pick([0, 1, 16, -1, 2**63 - 1, -2**63, 2**31, 4, 2**62]) if s.chance(70) else
            s.bits(64) - 2**63 for _ in range(count)]


class HostileDLPack:
    """__dlpack__ and __dlpack_device__ that raise, or return what is no capsule."""

    def __init__(self, s, depth):
        self.dlpack = s.pick(["raise", "value", "capsule-name", "no-max-version", "none"])
        self.device = value(s, depth + 1) if s.chance(50) else s.pick([(2, 0), (1, 0), (2, -1),
                                                                      (2,), (2, 0, 0), "raise"])
        self.result = value(s, depth + 1)

    def __dlpack__(self, stream=None, max_version=None):
        if self.dlpack == "raise":
            raise Hostile("__dlpack__")
        if self.dlpack == "capsule-name":
            new = ctypes.pythonapi.PyCapsule_New
            new.restype = ctypes.py_object
            new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
            return new(ctypes.addressof(KEPT_BYTES), b"used_dltensor", None)
        if self.dlpack == "none":
            return None
        return self.result

    def __dlpack_device__(self):
        if self.device == "raise":
            raise Hostile("__dlpack_device__")
        return self.device

    def __repr__(self):
        return f"HostileDLPack({self.dlpack}, device={self.device!r})"


KEPT_BYTES = (ctypes.c_char * 256)()


def dlpack_array(s, depth):
    import harness
    if s.chance(15):
        return HostileDLPack(s, depth)
    ndim = s.pick([0, 1, 1, 2, 3, 8, 33])
    shape = None if s.chance(8) else int64s(s, ndim)
    strides = None if s.chance(50) else int64s(s, ndim)
    kwargs = dict(
        shape=shape if shape is not None else None,
        bits=s.pick([32, 32, 64, 16, 8, 1, 4, 6, 0, 255, 128]),
        device_type=s.pick([2, 2, 2, 1, 13, 0, 255, 2**31 - 1]),
        device_id=s.pick([0, 0, 1, -1, 2**31 - 1]),
        byte_offset=s.pick([0, 0, 4, 1, 2**63, 2**64 - 1]),
        strides=strides,
        read_only=s.chance(20),
        major=s.pick([1, 1, 0, 2, 255]),
        code=s.pick([2, 2, 0, 1, 3, 4, 5, 6, 7, 8, 255]),
        lanes=s.pick([1, 1, 0, 2, 4, 65535]),
        flags=s.pick([0, 0, 1, 2, 4, 2**63]),
    )
    if shape is None:
        kwargs["ndim"] = s.pick([0, 1, -1, 2**31 - 1])
    address = edge_int(s) % 2**64 if s.chance(90) else 0
    cls = harness.LegacyDLPackArray if s.chance(15) else harness.DLPackArray
    if s.chance(10):
        api = harness.ExchangeAPI(major=s.pick([1, 0, 2]), with_stream=s.chance(70))
        KEEP.append(api)
        cls = api.array_type(cls)
        return cls(address, fail=s.chance(20), **kwargs)
    return cls(address, **kwargs)


# What must outlive the calls (exchange tables and their callbacks).
KEEP = []


class HostileTensor:
    """Stand-in methods that raise or return the wrong type (harness.Tensor's otherwise)."""

    def __init__(self, s, depth):
        self.s, self.depth = s, depth
        self.which = s.pick(["data_ptr", "get_device", "element_size", "stride"])
        self.raises = s.chance(50)

    def method(self, name, normal):
        if name != self.which:
            return normal()
        if self.raises:
            raise Hostile(name)
        return value(self.s, self.depth + 1)


def tensor(s, depth):
    import harness
    dtype = s.pick(list(harness.TORCH_DTYPES))
    shape = tuple(s.pick([16, 0, 1, 2**40, -1]) for _ in range(s.pick([0, 1, 1, 2, 3])))
    strides = None if s.chance(60) else tuple(s.pick([1, 0, -1, 2**62, 4])
                                              for _ in range(s.pick([len(shape), len(shape), 1])))
    base = harness.Parameter if s.chance(10) else harness.Tensor
    array = base(edge_int(s) if s.chance(80) else value(s, depth + 1),
                 device=s.pick([0, 0, -1, 1, 2**31, -2]) if s.chance(85) else value(s, depth + 1),
                 shape=shape, strides=strides, itemsize=s.pick([4, 8, 2, 1, 0, -1, 2**40]),
                 dtype=dtype)
    if s.chance(25):
        hostile = HostileTensor(s, depth)
        for name in ["data_ptr", "get_device", "element_size", "stride"]:
            normal = getattr(array, name)
            setattr(array, name, (lambda name, normal: lambda: hostile.method(name, normal))(
                name, normal))
    if s.chance(10):
        array.dtype = value(s, depth + 1)
    if s.chance(10):
        array.shape = value(s, depth + 1)
    return array


def cupy_array(s, depth):
    import harness
    array = harness.CupyArray(edge_int(s) % 2**64, device=s.pick([0, 1, -1, 2**31]),
                              typestr=s.pick(["<f4", "<f8", "<i4", "<f2", "|b1"]),
                              shape=tuple(s.pick([16, 0, 2**40]) for _ in range(s.pick([0, 1, 2]))))
    # What a cupy.ndarray cannot hold (an int for its data) is not tried: the binding trusts the
    # type's attributes to be there, but not their values.
    if s.chance(20):
        array.data.ptr = value(s, depth + 1)
    if s.chance(20):
        array.data.device_id = value(s, depth + 1)
    if s.chance(15):
        array.dtype = harness.NumpyDType(s.pick(TYPESTRS))
    if s.chance(20):
        setattr(array, s.pick(["shape", "strides"]), value(s, depth + 1))
    return array


# ---- launch options ------------------------------------------------------------------------


class CudaStream:
    def __init__(self, result, attribute=False, raises=False):
        self.result, self.raises = result, raises
        if attribute:
            self.cuda_stream = result

    def __cuda_stream__(self):
        if self.raises:
            raise Hostile("__cuda_stream__")
        return self.result

    def __repr__(self):
        return f"CudaStream({self.result!r})"


class CudaStreamAttribute:
    def __init__(self, result):
        self.cuda_stream = result

    def __repr__(self):
        return f"CudaStreamAttribute({self.cuda_stream!r})"


def dim3(s, depth):
    r = s.below(8)
    if r < 4:
        return s.pick([1, 1, 4, 128, 0, 2**32 - 1, 2**32, -1]) if s.chance(80) else edge_int(s)
    if r < 6:
        items = [s.pick([1, 2, 0, 2**32, -1]) if s.chance(70) else value(s, depth + 1)
                 for _ in range(s.pick([1, 2, 3, 0, 4]))]
        return handed(items) if r == 5 else tuple(items)
    return value(s, depth + 1)


def stream(s, depth):
    r = s.below(7)
    if r < 2:
        return s.pick([None, 0, 1, 2, 0x7F00]) if s.chance(70) else edge_int(s)
    if r == 2:
        return CudaStream((0, edge_int(s)) if s.chance(60) else value(s, depth + 1),
                          raises=s.chance(20))
    if r == 3:
        return CudaStreamAttribute(edge_int(s) if s.chance(60) else value(s, depth + 1))
    if r == 4:
        return CudaStream(handed([0, 1]) if s.chance(50) else (0, 1), attribute=True)
    return value(s, depth + 1)


OPTIONS = {
    "grid": dim3, "block": dim3, "cluster": dim3,
    "shared_mem": lambda s, d: s.pick([0, 1024, 49152, 2**32 - 1, 2**32, -1]) if s.chance(70)
    else value(s, d + 1),
    "stream": stream,
    "device": lambda s, d: s.pick([None, 0, 1, -1, 2**31 - 1, 2**31]) if s.chance(70)
    else value(s, d + 1),
    "cooperative": lambda s, d: s.pick([False, True]) if s.chance(70) else value(s, d + 1),
    "programmatic_dependent_launch":
        lambda s, d: s.pick([False, True]) if s.chance(70) else value(s, d + 1),
    "l2_persist_base": lambda s, d: s.pick([None, 0x1000]) if s.chance(50) else argument_for(
        s, ("l2_persist_base", "pointer", "void *", False, None, None), d),
    "l2_persist_bytes": lambda s, d: s.pick([0, 1024, 2**64 - 1, 2**64, -1]) if s.chance(70)
    else value(s, d + 1),
    "l2_persist_hit_ratio": lambda s, d: s.pick([1.0, 0.5, 0.0, -0.0, 1.5, float("nan")])
    if s.chance(70) else value(s, d + 1),
}


# ---- calls ---------------------------------------------------------------------------------


def argument_for(s, parameter, depth=0):
    """Mostly of the parameter's kind (so that the deeper checks are reached), else anything."""
    _, kind, ctype, _, scalar, _ = parameter
    if s.chance(8):
        return value(s, depth)
    if kind == "pointer":
        r = s.below(6)
        if r == 0:
            return s.pick([None, 0, 0x1000, 2**64 - 1, 2**64, -1])
        if r == 1:
            return cuda_array(s, depth)
        if r == 2:
            return dlpack_array(s, depth)
        if r == 3:
            return tensor(s, depth)
        if r == 4:
            return cupy_array(s, depth)
        return number_like(s, depth)
    if kind == "scalar":
        if scalar in ("f16x2", "bf16x2"):
            pair = [s.pick(EDGE_FLOATS) if s.chance(70) else value(s, depth + 1)
                    for _ in range(s.pick([2, 2, 2, 1, 3]))]
            return handed(pair) if s.chance(30) else tuple(pair)
        if scalar and scalar[0] in "fb" and scalar != "bool" or scalar in ("f16", "bf16"):
            return s.pick(EDGE_FLOATS) if s.chance(60) else number_like(s, depth)
        return edge_int(s) if s.chance(60) else number_like(s, depth)
    if kind == "record":
        return s.pick([bytes(16), bytes(15), bytes(17), bytearray(16), memoryview(bytes(16)),
                       bytes(0), "x" * 16, 16, BytesLike(bytes(16)), BytesLike(bytes(3), True),
                       (ctypes.c_char * 16)(), value(s, depth + 1)])
    if kind == "tensor_map":
        return tensor(s, depth) if s.chance(40) else s.pick([cuda_array, dlpack_array])(s, depth)
    return value(s, depth)


# Element types as __cuda_array_interface__ and DLPack spell them.
TYPESTR_OF = {"float32": "<f4", "float64": "<f8", "float16": "<f2", "bool": "|b1", "int8": "|i1",
              "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4", "uint32": "<u4",
              "int64": "<i8", "uint64": "<u8"}
DLPACK_OF = {"float32": (2, 32), "float64": (2, 64), "float16": (2, 16), "bfloat16": (4, 16),
             "bool": (6, 8), "int8": (0, 8), "uint8": (1, 8), "int16": (0, 16), "uint16": (1, 16),
             "int32": (0, 32), "uint32": (1, 32), "int64": (0, 64), "uint64": (1, 64)}
SCALAR_VALUES = {"bool": [True, False, 0, 1], "f32": [1.5, 0.0], "f64": [2.5], "f16": [1.0, 0.5],
                 "bf16": [1.0], "f16x2": [(1.0, 2.0)], "bf16x2": [[0.5, 1.0]]}


def valid_for(s, parameter):
    """An argument the parameter takes, so that a call with one hostile argument among valid ones
    reaches the checks past the first."""
    import harness
    _, kind, _, _, scalar, elements = parameter
    if kind == "scalar":
        return s.pick(SCALAR_VALUES.get(scalar, [0, 1, 7, 100]))
    if kind == "record":
        return bytes(16)  # every struct of pykernels.cu passed by value is 16 bytes
    element = s.pick(elements) if elements else "float32"
    r = s.below(5)
    if r == 0 or kind == "pointer" and r == 1:
        return s.pick([0x1000, 0x7F0000, None, 0])
    if r == 1 or r == 2 and element in harness.TORCH_DTYPES:
        return harness.Tensor(0x2000, shape=(16,), dtype=element if element in
                              harness.TORCH_DTYPES else "float32")
    if r == 3 and element in DLPACK_OF:
        code, bits = DLPACK_OF[element]
        return harness.DLPackArray(0x3000, code=code, bits=bits)
    if element in TYPESTR_OF:
        return harness.CudaArray(0x4000, typestr=TYPESTR_OF[element])
    return 0x1000


def make_call(s, package, signatures):
    """(launcher name, positional arguments, keywords) of one call: half of them valid but for
    one or two arguments."""
    name = s.pick(sorted(signatures))
    parameters = signatures[name]
    if parameters and s.chance(50):
        args = [valid_for(s, p) for p in parameters]
        for _ in range(s.pick([0, 1, 1, 1, 2])):
            at = s.below(len(parameters))
            args[at] = argument_for(s, parameters[at])
    else:
        args = [argument_for(s, p) for p in parameters]
    kwargs = {}
    r = s.below(20)
    if r == 0 and args:
        args.pop()  # one missing
    elif r == 1:
        args.append(value(s))  # one too many
    elif r == 2 and args:
        count = s.below(len(args) + 1)  # some given by keyword
        for parameter, argument in zip(parameters[count:], args[count:]):
            kwargs[parameter[0]] = argument
        args = args[:count]
    elif r == 3 and parameters:
        kwargs[s.pick(parameters)[0]] = value(s)  # a duplicate, or by keyword
    for option, make in OPTIONS.items():
        if option in ("grid", "block"):
            if s.chance(95):
                kwargs[option] = make(s, 0)
        elif s.chance(12):
            kwargs[option] = make(s, 0)
    if s.chance(3):
        kwargs[s.pick(["z", "grid_", "streams", "Grid", "__class__"])] = value(s)
    return name, args, kwargs


# Findings reported and not fixed yet (test/fuzz/crashes/python/): (exception type, words of its
# message, what it is). They are counted and named in the summary; --strict fails on them too.
# None now: the two this fuzzer found (a use after free reading __cuda_array_interface__, an
# IndexError from a list grid=) are fixed, and their reproducers run as regression tests
# (test/fuzz/regressions/, CTest fuzz.regression.*).
KNOWN = []


def known_crash(call):
    """The KNOWN finding a crash is: none is known."""
    return None


def known(outcome):
    """The KNOWN finding an unexpected outcome is, or None."""
    for kind, words, what in KNOWN:
        if outcome.startswith(f"unexpected {kind}: ") and words in outcome:
            return what
    return None


def describe(call):
    name, args, kwargs = call
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    text = f"{name}({', '.join(parts)})"
    return text if len(text) < 4000 else text[:4000] + "..."


class Fuzzer:
    """The calls, made in this process; the child of a random run, or atheris's target."""

    def __init__(self):
        import harness
        self.package = harness.import_package()
        self.allowed = (TypeError, ValueError, OverflowError, self.package.tlc.Error, Hostile)
        self.signatures = {name: self.package.tlc.parameters(name)
                           for name in self.package.__all__}
        # torch and cupy are imported (their stand-ins in sys.modules) for the whole run, as in a
        # program that uses them: the binding remembers what it found there. (Kept: cupy's
        # current-stream capsule points into its stand-in.)
        self.torch, self.cupy = harness.TorchStandIn(), harness.CupyStandIn()
        self.torch.install()
        self.cupy.install()
        self.counts = {}

    def call(self, s):
        """Makes and runs one call; returns (outcome, the call) where outcome is a name."""
        HANDED_OUT.clear()
        call = make_call(s, self.package, self.signatures)
        name, args, kwargs = call
        try:
            function = getattr(self.package, name)
            if name != "saxpy" or not at_a_site(function, args, kwargs):
                function(*args, **kwargs)
            outcome = "launched"
        except self.allowed as error:
            outcome = type(error).__name__
            if isinstance(error, self.package.tlc.Error):
                outcome = "Error"
        except Exception as error:  # a finding
            return "unexpected " + type(error).__name__ + ": " + str(error)[:300], call
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        return outcome, call


def at_a_site(function, args, kwargs):
    """A call of saxpy's shape made from one of two fixed lines, which spell their keywords (the
    same tuple of names on every call): once a call from a line succeeded, the binding reads the
    next ones from that line on its call-site path (python/src/CallSites.c). Any other call is
    made through **kwargs, which the general path reads. True where the call was made here."""
    if len(args) != 4:
        return False
    y, x, a, n = args
    if set(kwargs) == {"grid", "block"}:
        function(y, x, a, n, grid=kwargs["grid"], block=kwargs["block"])
        return True
    if set(kwargs) == {"grid", "block", "stream"}:
        function(y, x, a, n, block=kwargs["block"], stream=kwargs["stream"], grid=kwargs["grid"])
        return True
    return False


def source_of(seed, index):
    return Source(rng=random.Random(f"{seed}:{index}"))


# ---- the child: calls, reporting each one's index before it runs ------------------------------


def child(seed, start, end, deadline, strict):
    faulthandler.enable()
    fuzzer = Fuzzer()
    out = sys.stdout
    index = start
    while index < end and time.monotonic() < deadline:
        out.write(f"call {index}\n")
        out.flush()
        outcome, _ = fuzzer.call(source_of(seed, index))
        if known(outcome) and not strict:
            out.write(f"known {index} {known(outcome)}\n")
        elif outcome.startswith("unexpected"):
            # The call as it was made (its lists and dicts may have been rewritten since).
            call = make_call(source_of(seed, index), fuzzer.package, fuzzer.signatures)
            out.write(f"unexpected {index} {outcome} in {describe(call)}\n")
        index += 1
        if index % 1000 == 0:  # what this child has seen so far, in case it crashes later
            out.write(f"counts {index} {counts_of(fuzzer.counts)}\n")
    out.write(f"done {index} {counts_of(fuzzer.counts)}\n")
    out.flush()


def counts_of(counts):
    return " ".join(f"{k}={v}" for k, v in sorted(counts.items()))


# ---- the parent: runs children, restarting after a crash or hang, and sums up ----------------


def parent(args):
    deadline = time.monotonic() + args.seconds
    started = time.monotonic()
    findings, counts, known_seen = [], {}, {}
    index, calls = 0, 0
    os.makedirs(args.artifacts, exist_ok=True)
    env = dict(os.environ, PYTHONMALLOC="debug", PYTHONFAULTHANDLER="1")
    while time.monotonic() < deadline:
        command = [sys.executable, os.path.abspath(__file__), "--child", "--seed", str(args.seed),
                   "--start", str(index), "--calls", str(args.calls),
                   "--seconds", str(max(1, deadline - time.monotonic()))]
        if args.strict:
            command.append("--strict")
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=env)
        current, done, hung, child_counts = None, False, False, {}
        pending, stderr = b"", []
        last_seen = time.monotonic()
        open_fds = {process.stdout.fileno(), process.stderr.fileno()}
        while open_fds:
            ready, _, _ = select.select(list(open_fds), [], [], 1.0)
            for fd in ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    open_fds.discard(fd)
                    continue
                if fd == process.stderr.fileno():
                    stderr.append(chunk)
                    continue
                last_seen = time.monotonic()
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    line = line.decode(errors="replace")
                    if line.startswith("call "):
                        current = int(line.split()[1])
                        calls += 1
                    elif line.startswith("unexpected "):
                        findings.append(line)
                        print(line, flush=True)
                    elif line.startswith("known "):
                        what = line.split(" ", 2)[2]
                        if what not in known_seen:
                            print(f"known finding (first at call {line.split()[1]}): {what}",
                                  flush=True)
                        known_seen[what] = known_seen.get(what, 0) + 1
                    elif line.startswith(("counts ", "done ")):
                        done = line.startswith("done ")
                        child_counts = dict(item.partition("=")[::2] for item in line.split()[2:])
            if open_fds and time.monotonic() - last_seen > HANG_SECONDS:
                process.kill()
                hung = True
                break
        process.wait()
        for key, number in child_counts.items():
            counts[key] = counts.get(key, 0) + int(number)
        errors = b"".join(stderr).decode(errors="replace")
        if hung:
            findings.append(f"hang {args.seed}:{current}")
            print(findings[-1], flush=True)
            record(args, "hang", current, errors)
        elif process.returncode != 0:
            what = None if args.strict else known_crash(
                make_call(source_of(args.seed, current), *fuzzer_tables()))
            if what:
                if what not in known_seen:
                    print(f"known finding (first at call {current}, a crash): {what}", flush=True)
                known_seen[what] = known_seen.get(what, 0) + 1
                counts["crashed (known)"] = counts.get("crashed (known)", 0) + 1
            else:
                findings.append(f"crash {args.seed}:{current} (exit {process.returncode})")
                print(findings[-1], flush=True)
                record(args, "crash", current, errors)
        if done or current is None or current + 1 >= args.calls:
            break
        index = current + 1  # past the call that crashed or hung
    elapsed = time.monotonic() - started
    summary = " ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    status = "nothing new found" if not findings else f"{len(findings)} FOUND"
    if known_seen:
        status += (f" ({sum(known_seen.values())} calls hit {len(known_seen)} known "
                   f"finding{'s' if len(known_seen) > 1 else ''})")
    print(f"{calls} calls in {elapsed:.0f} s (seed {args.seed}; {summary}): {status}")
    return 1 if findings else 0


def record(args, kind, index, stderr):
    path = os.path.join(args.artifacts, f"{kind}-{args.seed}-{index}.txt")
    with open(path, "w") as out:
        out.write(f"replay: test/fuzz/python_args.py --replay {args.seed}:{index}\n\n")
        try:
            out.write(describe(make_call(source_of(args.seed, index), *fuzzer_tables())) + "\n\n")
        except Exception:  # the description is a help, not the finding
            out.write(traceback.format_exc())
        out.write(stderr[-20000:])
    print(f"{kind}: {path}", flush=True)


TABLES = []


def fuzzer_tables():
    """The package and its launchers' parameters, imported once (in the parent)."""
    if not TABLES:
        import harness
        package = harness.import_package()
        TABLES.extend([package, {name: package.tlc.parameters(name) for name in package.__all__}])
    return TABLES


def replay(spec):
    if os.environ.get("PYTHONMALLOC") != "debug":  # as the child runs
        env = dict(os.environ, PYTHONMALLOC="debug")
        return subprocess.run([sys.executable] + sys.argv, env=env).returncode
    seed, _, index = spec.partition(":")
    faulthandler.enable()
    fuzzer = Fuzzer()
    # Python keeps freed tuples for reuse, unerased, up to 2000 of each size: fill those lists, as
    # a long run has, so that a tuple freed during the call is overwritten.
    junk = [tuple(range(size)) for size in range(1, 20) for _ in range(2100)]
    del junk
    print(describe(make_call(source_of(int(seed), int(index)), fuzzer.package, fuzzer.signatures)),
          flush=True)
    outcome, _ = fuzzer.call(source_of(int(seed), int(index)))
    print(outcome)
    return 1 if outcome.startswith("unexpected") else 0


def atheris_main(args, rest):
    if os.environ.get("PYTHONMALLOC") != "debug":  # as the random engine's child runs
        env = dict(os.environ, PYTHONMALLOC="debug")
        return subprocess.run([sys.executable] + sys.argv, env=env).returncode
    import atheris
    fuzzer = Fuzzer()

    def target(data):
        outcome, call = fuzzer.call(Source(provider=atheris.FuzzedDataProvider(data)))
        if outcome.startswith("unexpected") and not known(outcome):
            raise AssertionError(f"{outcome} in {describe(call)}")

    os.makedirs(args.artifacts, exist_ok=True)
    argv = [sys.argv[0], f"-max_total_time={int(args.seconds)}", "-timeout=10",
            "-rss_limit_mb=2048", f"-artifact_prefix={args.artifacts}/", "-print_final_stats=1"]
    atheris.Setup(argv + rest, target)
    atheris.instrument_all()  # coverage of the Python here and in harness.py guides the choices
    atheris.Fuzz()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--calls", type=int, default=1 << 62,
                        help="stop after this many calls (then the run is the same anywhere)")
    parser.add_argument("--engine", choices=["random", "atheris"], default="random")
    parser.add_argument("--artifacts", default=os.path.join(os.getcwd(), "fuzz-python-artifacts"))
    parser.add_argument("--replay", metavar="SEED:INDEX")
    parser.add_argument("--strict", action="store_true",
                        help="the KNOWN findings fail the run too")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.replay:
        return replay(args.replay)
    if args.child:
        child(args.seed, args.start, args.calls, time.monotonic() + args.seconds, args.strict)
        return 0
    if args.engine == "atheris":
        return atheris_main(args, rest)
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
