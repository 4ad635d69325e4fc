// test/gpu graph: two dependent kernels captured into a CUDA graph and replayed.

// acc += factor * x. Each replay of the graph adds once more, so the state after r replays
// tells how many times the captured launch really ran.
__global__ void add_scaled(unsigned* acc, const unsigned* x, unsigned factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += factor * x[i];
}

// out = acc * 3 ^ key: depends on add_scaled having finished on the same stream.
__global__ void mix(const unsigned* acc, unsigned* out, unsigned key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (acc[i] * 3u) ^ key;
}
