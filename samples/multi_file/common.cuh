// samples/multi_file: shared by filter.cu and activate.cu.
#pragma once

struct Affine {
  float scale;
  float bias;
};

// Defined in filter.cu, called from both files: the device link resolves it.
__device__ float soft_clip(float x);
