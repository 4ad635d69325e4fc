// test/gpu stress: one small kernel launched many times from many threads and streams.

// Adds `value + i` to element i of `counters`. Every buffer is used by one stream only, and a
// stream runs its launches in order, so plain read-modify-write is exact.
__global__ void accumulate(unsigned long long* counters, int n, unsigned long long value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    counters[i] += value + static_cast<unsigned long long>(i);
}
