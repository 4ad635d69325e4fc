/* The fake driver's log for the Python tests (test_binding.py reads it through ctypes): every
 * launch logged since the log was last cleared, as one JSON array, with the launch attributes
 * and the tensor maps its parameters pointed at. Linked with libtlc_fake_cuda.so, so it shares
 * the fake's state with the launcher under test (TLC_TEST_LIBCUDA names the same file). */
#include "fake_cuda.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct writer {
  char* out;
  long size;
  long length;
} writer;

static void put(writer* w, const char* format, ...) {
  va_list args;
  va_start(args, format);
  long room = w->length < w->size ? w->size - w->length : 0;
  int n = vsnprintf(room ? w->out + w->length : NULL, (size_t)room, format, args);
  va_end(args);
  if (n > 0)
    w->length += n;
}

static void put_attribute(writer* w, const CUlaunchAttribute* attribute) {
  const CUlaunchAttributeValue* value = &attribute->value;
  put(w, "{\"id\": %d", (int)attribute->id);
  switch (attribute->id) {
  case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    put(w, ", \"cluster\": [%u, %u, %u]", value->clusterDim.x, value->clusterDim.y,
        value->clusterDim.z);
    break;
  case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
    put(w, ", \"cooperative\": %d", value->cooperative);
    break;
  case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
    put(w, ", \"programmatic\": %d", value->programmaticStreamSerializationAllowed);
    break;
  case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    put(w, ", \"base\": %llu, \"bytes\": %llu, \"hit_ratio\": %g",
        (unsigned long long)(uintptr_t)value->accessPolicyWindow.base_ptr,
        (unsigned long long)value->accessPolicyWindow.num_bytes,
        (double)value->accessPolicyWindow.hitRatio);
    break;
  default:
    break;
  }
  put(w, "}");
}

static void put_tensor_map(writer* w, long index) {
  fake_cuda_call encode;
  if (index < 0 || !fake_cuda_log_entry(index, &encode)) {
    put(w, "null");
    return;
  }
  const fake_cuda_tensor_map_call* map = &encode.tensor_map;
  put(w, "{\"address\": %llu, \"rank\": %u, \"data_type\": %d, \"dims\": [",
      (unsigned long long)(uintptr_t)map->address, map->rank, (int)map->data_type);
  for (unsigned i = 0; i < map->rank; ++i)
    put(w, "%s%llu", i ? ", " : "", (unsigned long long)map->dims[i]);
  put(w, "], \"strides\": [");
  for (unsigned i = 0; i + 1 < map->rank; ++i)
    put(w, "%s%llu", i ? ", " : "", (unsigned long long)map->strides[i]);
  put(w, "]}");
}

static void put_launch(writer* w, const fake_cuda_call* call) {
  put(w, "{\"function\": \"%s\", \"symbol\": \"%s\", \"result\": %d, \"device\": %d, ",
      call->function, call->symbol, (int)call->result, call->device);
  put(w, "\"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"shared_bytes\": %u, ", call->grid[0],
      call->grid[1], call->grid[2], call->block[0], call->block[1], call->block[2],
      call->shared_bytes);
  put(w, "\"stream\": %llu, \"params\": [", (unsigned long long)(uintptr_t)call->stream);
  int count = call->param_count < FAKE_CUDA_MAX_PARAMS ? call->param_count : FAKE_CUDA_MAX_PARAMS;
  for (int i = 0; i < count; ++i)
    put(w, "%s%llu", i ? ", " : "", call->param_values[i]);
  put(w, "], \"tensor_maps\": [");
  for (int i = 0; i < count; ++i) {
    put(w, i ? ", " : "");
    put_tensor_map(w, call->param_tensor_map[i]);
  }
  put(w, "], \"attributes\": [");
  unsigned attributes = call->attribute_count < FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES
                            ? call->attribute_count
                            : FAKE_CUDA_MAX_LAUNCH_ATTRIBUTES;
  for (unsigned i = 0; i < attributes; ++i) {
    put(w, i ? ", " : "");
    put_attribute(w, &call->attributes[i]);
  }
  put(w, "]}");
}

/* Writes the JSON into `out` (at most `size` bytes, NUL-terminated when it fits) and returns
   its length; a caller whose buffer was too small calls again with a larger one. */
EXPORT long tlc_fake_launches_json(char* out, long size) {
  writer w = {out, size, 0};
  put(&w, "[");
  int first = 1;
  for (long i = 0, n = fake_cuda_log_size(); i < n; ++i) {
    fake_cuda_call call;
    if (!fake_cuda_log_entry(i, &call) || (strcmp(call.function, "cuLaunchKernel") != 0 &&
                                           strcmp(call.function, "cuLaunchKernelEx") != 0))
      continue;
    put(&w, first ? "" : ", ");
    first = 0;
    put_launch(&w, &call);
  }
  put(&w, "]");
  return w.length;
}
