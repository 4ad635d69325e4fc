# Type stubs of NAME.tlc, the same in every package tlc builds, and the argument types the
# package's own stubs (NAME/__init__.pyi, generated from the kernel signatures) name.
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence, Tuple, Union

# get(name): typed in the package's own stubs, NAME/__init__.pyi, which know each launcher's
# C++ name and signature (exported through __all__).
from .. import __tlc_get__ as get

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

class CudaArrayInterface(Protocol):
    """CuPy, Numba and any array with __cuda_array_interface__ (torch tensors too)."""

    @property
    def __cuda_array_interface__(self) -> Mapping[str, Any]: ...

class DLPackArray(Protocol):
    """Any DLPack producer whose data is in CUDA memory."""

    def __dlpack__(self, *, stream: Optional[int] = ...) -> Any: ...

class CudaStreamProtocol(Protocol):
    def __cuda_stream__(self) -> Tuple[int, int]: ...

class HasCudaStream(Protocol):
    """torch.cuda.Stream, numba streams: `cuda_stream` is the CUstream's address."""

    @property
    def cuda_stream(self) -> int: ...

#: A CUDA array: torch.Tensor, CuPy, Numba, any __cuda_array_interface__ or DLPack producer.
Array = Union[CudaArrayInterface, DLPackArray]
#: A pointer parameter: a CUDA array, a device address as an int, or None (a null pointer).
Pointer = Union[Array, int, None]
#: grid=, block=, cluster=: one to three dimensions.
Dim3 = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int], Sequence[int]]
#: stream=: a CUstream's address, or an object that says it.
Stream = Union[int, CudaStreamProtocol, HasCudaStream, None]
#: __half2, __nv_bfloat162 by value: (x, y).
Pair = Union[Tuple[float, float], Sequence[float]]
#: A struct passed by value: its bytes, or any buffer of its size (a ctypes.Structure).
Record = Union[bytes, bytearray, memoryview, Any]

class Error(RuntimeError):
    """A launch failed."""

    status: int
    status_name: str
    message: str

launch_options: Tuple[str, ...]

def launchers() -> dict[str, Callable[..., None]]: ...
def parameters(
    launcher: str,
) -> Tuple[Tuple[str, str, str, bool, Optional[str], Optional[Tuple[str, ...]]], ...]: ...
def load(device: int = 0) -> None: ...
def unload() -> None: ...
def image_target(device: int = 0) -> str: ...
def status_string(status: int) -> str: ...
def register_torch_ops(namespace: Optional[str] = None) -> Any: ...
