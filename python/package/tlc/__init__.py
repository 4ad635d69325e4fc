"""tlc's part of a launcher package built by ``tlc build --python``.

The package ``NAME`` holds one function per kernel launcher (``NAME.<launcher>``) and nothing
else but this submodule, ``NAME.tlc``: a name no kernel can take (``tlc build --python``
refuses a launcher named ``tlc``), so tlc's own names never collide with a kernel's. Here are
the exception launches raise, the module API of the C library (``load``, ``unload``,
``image_target``, ``status_string``), the launchers by name, and ``register_torch_ops``.

This file is the same in every package; tlc copies it from its installation (docs/python.md).
"""

import re

from . import _ext
from ._ext import Error, image_target, load, status_string, unload

__all__ = [
    "Error",
    "get",
    "image_target",
    "launch_options",
    "launchers",
    "load",
    "parameters",
    "register_torch_ops",
    "status_string",
    "unload",
]

#: The keyword-only launch options every launcher takes, in the order docs/python.md lists them.
launch_options = tuple(_ext.launch_options)


def launchers():
    """The package's launchers by name (a new dict): each under its launcher name
    (``"axpy_float"``) and, where that differs, under its kernel's C++ name
    (``"axpy<float>"``) if no other kernel has that name and no launcher is called so."""
    result = dict(_ext.launchers)
    for cxx_name, name in _cxx_aliases().items():
        result[cxx_name] = _ext.launchers[name]
    return result


def get(name):
    """The launcher ``name`` names: a launcher's name (``"axpy_float"``), or its kernel's C++
    name with the template arguments (``"axpy<float>"``, ``"nn::fill<long long, 4>"``), spelled
    with any spacing, ``unsigned`` or ``unsigned int`` (any order of the integer keywords), and
    integer arguments with or without suffixes (``4`` for ``4U``). A launcher's own name wins.
    KeyError when it names no launcher, or several (overloads: use the launcher's name)."""
    if not isinstance(name, str):
        raise TypeError(f"{_ext.module_name}.tlc.get takes a launcher's name as a str, not "
                        f"{type(name).__name__}")
    launcher = _ext.launchers.get(name)
    if launcher is not None:
        return launcher
    names = _by_cxx_key().get(_cxx_key(name), [])
    if len(names) == 1:
        return _ext.launchers[names[0]]
    module = _ext.module_name
    if names:
        raise KeyError(f"{module}.tlc.get: '{name}' names {len(names)} kernels, the launchers "
                       f"{', '.join(names)}; get one by its launcher name")
    raise KeyError(f"{module}.tlc.get: no launcher of {module} is named '{name}', as a launcher "
                   "or by its kernel's C++ name (launchers() lists them)")


# ---- kernels by C++ name ---------------------------------------------------------------------
# A kernel's C++ name is Clang's spelling ("nn::fill<long long, 4U>"). Names given to get() are
# compared with it after both are normalised (_cxx_key): whitespace only where two words meet,
# integer types in Clang's spelling, integer literals in decimal without suffixes, no global
# "::" and no "(anonymous namespace)::".

_TOKENS = re.compile(r"\s+|[A-Za-z_]\w*|\d[\w']*|'(?:\\.|[^'\\])*'|::|.")
_INTEGER_WORDS = frozenset(["signed", "unsigned", "short", "long", "int", "char"])
_INTEGER_LITERAL = re.compile(r"(0[xX][0-9A-Fa-f']+|[1-9][0-9']*|0)[uUlLzZ]*")
_ANONYMOUS = ["(", "anonymous", "namespace", ")", "::"]


def _integer_type(words):
    """Clang's spelling of an integer type written as `words` ("long unsigned int")."""
    unsigned = "unsigned" in words
    if "char" in words:
        return "unsigned char" if unsigned else "signed char" if "signed" in words else "char"
    longs = words.count("long")
    base = "short" if "short" in words else "long long" if longs > 1 else "long" if longs else "int"
    return "unsigned " + base if unsigned else base


def _is_word(token):
    return token[0].isalnum() or token[0] == "_"


def _cxx_key(spelling):
    tokens = [token for token in _TOKENS.findall(spelling) if not token.isspace()]
    while True:  # (anonymous namespace)::, anywhere
        at = next((i for i in range(len(tokens)) if tokens[i:i + 5] == _ANONYMOUS), None)
        if at is None:
            break
        del tokens[at:at + 5]
    words, i = [], 0
    while i < len(tokens):
        token = tokens[i]
        if token in _INTEGER_WORDS:
            run = []
            while i < len(tokens) and tokens[i] in _INTEGER_WORDS:
                run.append(tokens[i])
                i += 1
            words.append(_integer_type(run))
            continue
        literal = _INTEGER_LITERAL.fullmatch(token)
        if literal:
            digits = literal.group(1).replace("'", "")
            try:
                words.append(str(int(digits, 0)))
            except ValueError:  # past Python's 4300 digits: no kernel's argument, kept as is
                words.append(digits)
        elif token == "::" and (not words or not (_is_word(words[-1]) or words[-1] == ">")):
            pass  # the global namespace: ::nn::fill is nn::fill
        else:
            words.append(token)
        i += 1
    key = ""
    for word in words:
        if key and _is_word(key[-1]) and _is_word(word):
            key += " "
        key += word
    return key


_cxx_index = None


def _by_cxx_key():
    """Normalised C++ name -> the launchers whose kernel has it."""
    global _cxx_index
    if _cxx_index is None:
        index = {}
        for name, cxx_name in _ext.cxx_names.items():
            index.setdefault(_cxx_key(cxx_name), []).append(name)
        _cxx_index = index
    return _cxx_index


def _cxx_aliases():
    """C++ name -> launcher, for launchers() (lib/render/PythonView.cpp types the same ones in
    the stubs): where it differs from the launcher's name, names one kernel and no launcher."""
    counts = {}
    for cxx_name in _ext.cxx_names.values():
        counts[cxx_name] = counts.get(cxx_name, 0) + 1
    return {cxx_name: name for name, cxx_name in _ext.cxx_names.items()
            if cxx_name != name and counts[cxx_name] == 1 and cxx_name not in _ext.launchers}


def parameters(launcher):
    """A launcher's parameters as tuples ``(keyword, kind, C type, writable, scalar type,
    element types)``.

    ``kind`` is ``"pointer"``, ``"scalar"``, ``"record"`` or ``"tensor_map"``; ``writable`` says
    whether the kernel may write through a pointer (its pointee is not const); ``scalar type``
    is ``"i32"``, ``"f16"``, ... for scalars and ``None`` otherwise; ``element types`` are the
    dtypes a pointer takes arrays of, named as torch names them (``("float32",)`` for
    ``float*``), and ``None`` where it takes any array (``void*``, ``char*``, structs) and for
    other parameters.
    """
    return _ext.parameters[launcher]


_SCHEMA_SCALARS = {"bool": "bool", "f16": "float", "bf16": "float", "f32": "float", "f64": "float"}
_NO_SCHEMA_SCALARS = ("f16x2", "bf16x2")  # pairs: no torch schema type

# Launch options a torch op takes (the stream is torch's current stream on the tensors' device,
# as for any torch op; the L2 window is left to the plain launchers). The dimensions are int[1]:
# torch takes a list of any length for it, as for int[], and an int too (a list of that one int),
# as the launchers do; an int is also the cheaper for torch to parse (docs/benchmarks.md).
_TORCH_OPTIONS = (
    "int[1] grid, int[1] block, int shared_mem=0, int[1]? cluster=None, bool cooperative=False, "
    "bool programmatic_dependent_launch=False"
)
# The overload a call reaches when it gives no other options, defined first so that torch tries
# it first: torch's Python call looks every keyword of the schema up in the call's keywords, and
# boxes a value for each (docs/benchmarks.md has what three fewer save).
_BASIC_OVERLOAD = "basic"
_TORCH_BASIC_OPTIONS = "int[1] grid, int[1] block, int shared_mem=0"

_registered = {}


def _torch_schema(params, options=_TORCH_OPTIONS):
    """The op schema of a launcher taking `options`, its mutated arguments annotated
    (Tensor(a0!), ...); None if a parameter has no torch type (structs passed by value, __half2
    and __nv_bfloat162)."""
    arguments, mutated = [], 0
    for keyword, kind, _ctype, writable, scalar, _dtypes in params:
        if kind == "record" or scalar in _NO_SCHEMA_SCALARS:
            return None
        if kind == "scalar":
            arguments.append(f"{_SCHEMA_SCALARS.get(scalar, 'int')} {keyword}")
        elif writable or kind == "tensor_map":
            # A tensor map may be written by TMA stores: tlc cannot tell, so it counts as
            # mutated, which is always correct (at worst a copy under torch.compile).
            arguments.append(f"Tensor(a{mutated}!) {keyword}")
            mutated += 1
        else:
            arguments.append(f"Tensor {keyword}")
    arguments.append("*")
    arguments.append(options)
    return "(" + ", ".join(arguments) + ") -> ()"


def _no_output(*args, **options):
    """What the op gives under torch.compile's fake tensors: nothing (it only writes)."""
    return None


def _libtorch(torch):
    """The libtorch libraries `import torch` loaded, where torch's stable C ABI lives."""
    import os

    folder = os.path.join(os.path.dirname(torch.__file__), "lib")
    return [os.path.join(folder, name) for name in ("libtorch_cpu.so", "libtorch_cuda.so")]


def register_torch_ops(namespace=None):
    """Registers every launcher as a PyTorch operator ``torch.ops.<namespace>.<launcher>``.

    Each op takes the launcher's arguments (pointers and tensor maps as tensors, scalars as
    numbers) and the keyword-only options ``grid``, ``block``, ``shared_mem``, ``cluster``,
    ``cooperative`` and ``programmatic_dependent_launch`` (the dimensions an int or a list of 1
    to 3 ints, as for the launchers: ``grid=blocks`` or ``grid=[x, y]``), launches on torch's
    current stream, and declares as mutated (``Tensor(a!)`` in its schema) the tensors the kernel
    may write: its non-const pointer parameters and its tensor maps. The ops work inside
    ``torch.compile`` without graph breaks (each has a fake implementation: it returns nothing)
    and under CUDA graph capture. Launchers taking a struct, a ``__half2`` or a
    ``__nv_bfloat162`` by value have no torch schema and are left out.

    Each op has two overloads: ``.default`` takes every option above, and ``.basic`` only
    ``grid``, ``block`` and ``shared_mem``. A call of the op (``torch.ops.<namespace>.<launcher>
    (...)``) reaches ``.basic`` when it gives no other option, and ``.default`` otherwise; the
    two launch alike. ``.basic`` exists for speed: torch parses a call against every keyword its
    schema has.

    The ops are defined with ``torch.library.Library``. On torch 2.10 and later, an op whose
    launcher takes only tensors and numbers runs as a native kernel of torch's dispatcher
    (through torch's stable C ABI, no Python and no GIL between the dispatcher and the
    launcher: it costs what a torch C++ op costs); a refused argument or a failed launch
    raises RuntimeError there, as torch's own ops do, with the launcher's message. Other ops
    (tensor maps, launchers without tensors) and all ops on an older torch have the launcher
    itself as their Python kernel, which raises its own TypeError, ValueError or Error
    (``torch.library.custom_op`` would add a Python wrapper to every call; docs/benchmarks.md
    has the numbers).

    ``namespace`` defaults to the package's name. Registering a namespace again returns the
    ops registered before. Returns an object with one attribute per op (the
    ``torch._ops.OpOverloadPacket``, the same object as ``torch.ops.<namespace>.<launcher>``).
    """
    import types

    import torch

    namespace = namespace or _ext.module_name
    if namespace in _registered:
        return _registered[namespace]
    library = torch.library.Library(namespace, "FRAGMENT")
    schemas = {name: _torch_schema(_ext.parameters[name]) for name in _ext.launchers}
    schemas = {name: schema for name, schema in schemas.items() if schema is not None}
    for name, schema in schemas.items():
        basic = _torch_schema(_ext.parameters[name], _TORCH_BASIC_OPTIONS)
        library.define(f"{name}.{_BASIC_OVERLOAD}{basic}")
        library.define(name + schema)
    # The launchers taking only tensors and numbers run as native kernels of the dispatcher,
    # through torch's stable C ABI (torch >= 2.10), both overloads; the others, or all of them
    # on an older torch, with the launcher itself as a Python kernel.
    native = set(_ext.register_torch_kernels(namespace, list(schemas), _libtorch(torch)))
    ops = {}
    for name in schemas:
        has_tensors = any(kind in ("pointer", "tensor_map")
                          for _, kind, *_ in _ext.parameters[name])
        for overload in (f"{name}.{_BASIC_OVERLOAD}", name):
            if overload not in native:
                # The dispatcher passes the keyword-only options as keywords, as the launcher
                # takes them. An op without tensors has no device to dispatch on: it runs
                # whatever the key.
                library.impl(overload, _ext.launchers[name],
                             "CUDA" if has_tensors else "CompositeExplicitAutograd")
            torch.library.register_fake(f"{namespace}::{overload}", _no_output, lib=library)
        ops[name] = getattr(getattr(torch.ops, namespace), name)
    result = types.SimpleNamespace(**ops)
    result._library = library  # the registrations live as long as the library object
    _registered[namespace] = result
    return result
