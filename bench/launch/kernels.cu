// bench/launch: empty kernels, so a launch's cost is the host's work alone. Built by tlc into the
// launch_bench module and also compiled into the benchmark itself (main.cu) for <<<>>>.

// Four parameters: a typical elementwise kernel's.
__global__ void empty4(const float* in, float* out, int n, float scale) {
}

// Nineteen parameters of mixed sizes (about 110 bytes of arguments) for the launcher to pass on.
__global__ void empty19(const float* p0, float* p1, const int* p2, int* p3, const double* p4,
                        int n0, int n1, int n2, unsigned u0, unsigned u1, float f0, float f1,
                        float f2, double d0, double d1, long long l0, long long l1, short s0,
                        char c0) {
}
