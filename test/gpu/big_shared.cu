// test/gpu big_shared: dynamic shared memory beyond the 48 KiB that needs no opt-in.

// Block b stages its `count` words of `in` in dynamic shared memory and writes them back to
// `out` reversed, so every word of the shared allocation is written and read.
__global__ void reverse_through_shared(const unsigned* in, unsigned* out, unsigned count) {
  extern __shared__ unsigned staged[];
  const unsigned* source = in + static_cast<size_t>(blockIdx.x) * count;
  unsigned* target = out + static_cast<size_t>(blockIdx.x) * count;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
    staged[i] = source[i];
  __syncthreads();
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
    target[i] = staged[count - 1 - i];
}
