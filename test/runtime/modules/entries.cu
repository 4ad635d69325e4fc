// Compiled with nvcc to relocatable compute_90 PTX for the fake driver's tests: the kinds of
// entry PTX declares (.entry for a static kernel, .visible .entry, .weak .entry for a template
// instantiation) and a cluster shape (.reqnctapercluster).
extern "C" __global__ void __cluster_dims__(2, 1, 1) entries_cluster(float* out) {
  out[blockIdx.x] = 1.0f;
}

template <typename T> __global__ void entries_template(T* out, T value) { out[0] = value; }
template __global__ void entries_template<double>(double*, double);

static __global__ void entries_static(int* out) { out[0] = 1; }

void launchStatic(int* out) { entries_static<<<1, 1>>>(out); }
