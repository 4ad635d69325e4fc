// A kernel launching a kernel (dynamic parallelism): relocatable PTX that calls the device
// runtime, which only the toolkit's libcudadevrt defines.
extern "C" __global__ void dynamic_child(int* out) { out[1] = 7; }

extern "C" __global__ void dynamic_parent(int* out) {
  out[0] = 5;
  dynamic_child<<<1, 1>>>(out);
}
