import timeit, cupy, sys
a = cupy.zeros(1024, dtype=cupy.float32)
print("cupy", cupy.__version__, type(a), type(a).__mro__)
print("CAI", a.__cuda_array_interface__)
def t(stmt, n=200000):
    g = {"a": a, "cupy": cupy}
    best = min(timeit.repeat(stmt, globals=g, number=n, repeat=5))
    print(f"{stmt:60s} {best / n * 1e9:8.1f} ns")
t("a.__cuda_array_interface__")
t("a.data.ptr")
t("a.data.device_id")
t("a.dtype.char")
t("a.dtype.str")
t("a.__dlpack_device__()")
t("cupy.cuda.get_current_stream().ptr")
import cupy_backends.cuda.stream as bs
import cupy.cuda.stream as cs
for m in (bs, cs):
    capi = getattr(m, "__pyx_capi__", {})
    print(m.__name__, {k: str(v) for k, v in capi.items()})
import cupy._core.core as core
print("core capi keys", list(getattr(core, "__pyx_capi__", {}).keys())[:20])
with cupy.cuda.Stream(non_blocking=True) as s:
    print("in stream", s.ptr, a.__cuda_array_interface__.get("stream"))
print("attrs data type", type(a.data), type(type(a).data), type(type(a.data).ptr))
