// bench/python/callgrind.py's kernels: empty, so a launch costs the host's work alone. empty4 has
// bench/launch/kernels.cu's signature (the kernel bench/python/bench.py times on a GPU); quad
// takes four arrays, quad_any the same as void pointers (no element type to check).

__global__ void empty4(const float* in, float* out, int n, float scale) {
}

__global__ void quad(const float* a, const float* b, const float* c, float* out) {
}

__global__ void quad_any(const void* a, const void* b, const void* c, void* out) {
}
