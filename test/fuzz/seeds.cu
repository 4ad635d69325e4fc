// The kernels of the fuzzers' seed images (make_corpus.py): a strong extern "C" entry, a weak
// template instance, a static (local) one, and parameters of one to 8 bytes.
extern "C" __global__ void vadd(const float* a, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] += a[i];
}

template <typename T> __global__ void fill(T* x, T v) { x[threadIdx.x] = v; }
template __global__ void fill<double>(double*, double);

static __global__ void hidden(char c, short s, long long* out) { *out = c + s; }
void* keep = (void*)hidden;

#ifdef SEEDS_BIG
// More than 4 KiB of parameters: nvcc records them with the large form (attribute 0x45).
struct Big {
  char bytes[4200];
};
extern "C" __global__ void big(Big b, int* out) { *out = b.bytes[4100]; }
#endif
