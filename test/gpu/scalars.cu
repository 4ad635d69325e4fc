// test/gpu scalars: kernels without pointer parameters. They report through __trap() and a
// __device__ counter the host reads from the module.

// Padding between every field: the by-value copy must match the device layout.
struct Mixed {
  char c;
  double d;
  short s;
};

// Blocks that ran check_scalars, and launches of count_launch.
__device__ unsigned long long g_blocks_checked;
__device__ unsigned long long g_plain_launches;

// The host computes the same digest (scalars.c): a multiply-xor over every value's bits.
__device__ unsigned long long digest(unsigned long long hash, unsigned long long bits) {
  return (hash ^ bits) * 0x100000001b3ull;
}

// Traps unless `expected` is the digest of the other arguments as the host passed them.
__global__ void check_scalars(char c, short s, int i, long long ll, float f, double d, Mixed m,
                              unsigned char u8, unsigned long long expected) {
  unsigned long long hash = 0xcbf29ce484222325ull;
  hash = digest(hash, static_cast<unsigned char>(c));
  hash = digest(hash, static_cast<unsigned short>(s));
  hash = digest(hash, static_cast<unsigned>(i));
  hash = digest(hash, static_cast<unsigned long long>(ll));
  hash = digest(hash, __float_as_uint(f));
  hash = digest(hash, static_cast<unsigned long long>(__double_as_longlong(d)));
  hash = digest(hash, static_cast<unsigned char>(m.c));
  hash = digest(hash, static_cast<unsigned long long>(__double_as_longlong(m.d)));
  hash = digest(hash, static_cast<unsigned short>(m.s));
  hash = digest(hash, u8);
  if (hash != expected)
    __trap();
  __syncthreads(); // no block counts itself before all its threads have checked
  if (threadIdx.x == 0)
    atomicAdd(&g_blocks_checked, 1ull);
}

// No parameters at all.
__global__ void count_launch() {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    atomicAdd(&g_plain_launches, 1ull);
}
