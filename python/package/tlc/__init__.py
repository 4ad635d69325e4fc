"""tlc's part of a launcher package built by ``tlc build --python``.

The package ``NAME`` holds one function per kernel launcher (``NAME.<launcher>``) and nothing
else but this submodule, ``NAME.tlc``: a name no kernel can take (``tlc build --python``
refuses a launcher named ``tlc``), so tlc's own names never collide with a kernel's. Here are
the exception launches raise, the module API of the C library (``load``, ``unload``,
``image_target``, ``status_string``), the launchers by name, and ``register_torch_ops``.

This file is the same in every package; tlc copies it from its installation (docs/python.md).
"""

from . import _ext
from ._ext import Error, image_target, load, status_string, unload

__all__ = [
    "Error",
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
    """The package's launchers, by name (a new dict)."""
    return dict(_ext.launchers)


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
# as for any torch op; the L2 window is left to the plain launchers).
_TORCH_OPTIONS = (
    "int[] grid, int[] block, int shared_mem=0, int[]? cluster=None, bool cooperative=False, "
    "bool programmatic_dependent_launch=False"
)

_registered = {}


def _torch_schema(params):
    """The op schema of a launcher, and the names of the arguments it mutates; None if a
    parameter has no torch type (structs passed by value, __half2 and __nv_bfloat162)."""
    arguments, mutated = [], []
    for keyword, kind, _ctype, writable, scalar, _dtypes in params:
        if kind == "record" or scalar in _NO_SCHEMA_SCALARS:
            return None
        if kind == "scalar":
            arguments.append(f"{_SCHEMA_SCALARS.get(scalar, 'int')} {keyword}")
        elif writable or kind == "tensor_map":
            # A tensor map may be written by TMA stores: tlc cannot tell, so it counts as
            # mutated, which is always correct (at worst a copy under torch.compile).
            arguments.append(f"Tensor(a{len(mutated)}!) {keyword}")
            mutated.append(keyword)
        else:
            arguments.append(f"Tensor {keyword}")
    arguments.append("*")
    arguments.append(_TORCH_OPTIONS)
    return "(" + ", ".join(arguments) + ") -> ()", mutated


def _torch_kernel(launcher):
    def kernel(*args, **options):
        launcher(*args, **options)

    kernel.__name__ = launcher.__name__
    kernel.__doc__ = launcher.__doc__
    return kernel


def _no_output(*args, **options):
    """What the op gives under torch.compile's fake tensors: nothing (it only writes)."""
    return None


def register_torch_ops(namespace=None):
    """Registers every launcher as a PyTorch custom op ``torch.ops.<namespace>.<launcher>``.

    Each op takes the launcher's arguments (pointers and tensor maps as tensors, scalars as
    numbers) and the keyword-only options ``grid``, ``block``, ``shared_mem``, ``cluster``,
    ``cooperative`` and ``programmatic_dependent_launch``, launches on torch's current stream,
    and declares as mutated (``mutates_args``) the tensors the kernel may write: its non-const
    pointer parameters and its tensor maps. The ops work inside ``torch.compile`` without graph
    breaks and under CUDA graph capture. Launchers taking a struct, a ``__half2`` or a
    ``__nv_bfloat162`` by value have no torch schema and are left out.

    ``namespace`` defaults to the package's name. Registering a namespace again returns the
    ops registered before. Returns an object with one attribute per op (the
    ``torch.library.CustomOpDef``).
    """
    import types

    import torch

    namespace = namespace or _ext.module_name
    if namespace in _registered:
        return _registered[namespace]
    ops = {}
    for name, launcher in _ext.launchers.items():
        schema = _torch_schema(_ext.parameters[name])
        if schema is None:
            continue
        text, mutated = schema
        has_tensors = any(kind in ("pointer", "tensor_map") for _, kind, *_ in _ext.parameters[name])
        op = torch.library.custom_op(
            f"{namespace}::{name}",
            _torch_kernel(launcher),
            mutates_args=mutated,
            device_types="cuda" if has_tensors else None,
            schema=text,
        )
        op.register_fake(_no_output)
        ops[name] = op
    result = types.SimpleNamespace(**ops)
    _registered[namespace] = result
    return result
