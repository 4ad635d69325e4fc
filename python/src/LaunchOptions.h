/* The launch options every Python launcher takes by keyword, in this order: one list for the
 * binding library (its enum and keyword names, Binding.h and Module.c) and for tlc itself,
 * which renames a kernel parameter that a launch option's name would shadow
 * (lib/render/PythonView.cpp). X(ID, "name") for each. */
#ifndef TLC_PYTHON_LAUNCH_OPTIONS_H
#define TLC_PYTHON_LAUNCH_OPTIONS_H

#define TLC_PY_LAUNCH_OPTIONS(X)                                                                   \
  X(GRID, "grid")                                                                                  \
  X(BLOCK, "block")                                                                                \
  X(SHARED_MEM, "shared_mem")                                                                      \
  X(STREAM, "stream")                                                                              \
  X(DEVICE, "device")                                                                              \
  X(CLUSTER, "cluster")                                                                            \
  X(COOPERATIVE, "cooperative")                                                                    \
  X(PROGRAMMATIC_DEPENDENT_LAUNCH, "programmatic_dependent_launch")                                \
  X(L2_PERSIST_BASE, "l2_persist_base")                                                            \
  X(L2_PERSIST_BYTES, "l2_persist_bytes")                                                          \
  X(L2_PERSIST_HIT_RATIO, "l2_persist_hit_ratio")

#endif
