// test/gpu context, targets, two_devices, l2_window: a kernel whose output the host can predict.

// out[i] = a hash of (seed, i): every element differs, and a stale or unwritten one shows.
__global__ void fill_pattern(unsigned* out, unsigned seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (seed ^ static_cast<unsigned>(i)) * 2654435761u + 0x9e3779b9u;
}
