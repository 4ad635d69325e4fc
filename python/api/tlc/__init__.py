"""tlc from Python: build CUDA kernels with the tlc compiler and import them.

    import tlc
    kernels = tlc.build(source=r'''
    extern "C" __global__ void scale(float* x, float a, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= a;
    }''', entry="scale")
    kernels.scale(x, 2.0, n, grid=(n + 255) // 256, block=256)   # torch, CuPy, DLPack arrays

``tlc.build`` runs the ``tlc`` command this package installed, into tlc's own build cache, so a
second call with the same source and options (in any process) is a cache hit; its result is the
package ``tlc build --python`` makes (docs/python.md). ``tlc.cmake_dir()`` names the folder of
tlc's CMake package, for ``find_package(tlc)``. Errors are ``tlc.BuildError``.
"""

from ._build import BuildError, build
from ._install import cmake_dir, executable

__all__ = ["BuildError", "build", "cmake_dir", "executable"]
