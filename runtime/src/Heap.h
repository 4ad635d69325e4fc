// Heap objects and arrays from malloc, never operator new: new (std::nothrow) and delete[] live
// in libstdc++, which the runtime does without (Mutex.h says why). Everything allocated here is
// zeroed first and then value-initialised in place, as new T[n]() would, and null means out of
// memory.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace tlc::runtime {

// One T, value-initialised; null if memory ran out. The runtime keeps these for the process's
// lifetime, so there is no matching release.
template <class T> T* makeObject() {
  static_assert(alignof(T) <= alignof(std::max_align_t), "malloc's alignment is not enough");
  void* memory = std::calloc(1, sizeof(T));
  return memory ? ::new (memory) T() : nullptr;
}

// `count` Ts (at least one), each value-initialised; null if memory ran out. calloc checks
// count * sizeof(T) for overflow.
template <class T> T* makeArray(size_t count) {
  static_assert(alignof(T) <= alignof(std::max_align_t), "malloc's alignment is not enough");
  static_assert(std::is_trivially_destructible_v<T>, "freeArray runs no destructor");
  size_t length = count > 0 ? count : 1;
  auto* array = static_cast<T*>(std::calloc(length, sizeof(T)));
  if (array)
    for (size_t i = 0; i < length; ++i)
      ::new (static_cast<void*>(array + i)) T();
  return array;
}

// Releases what makeArray returned (or null).
template <class T> void freeArray(T* array) {
  std::free(array);
}

// makeArray's array, released with it when it goes out of scope.
struct ArrayRelease {
  template <class T> void operator()(T* array) const { freeArray(array); }
};
template <class T> using HeapArray = std::unique_ptr<T[], ArrayRelease>;

} // namespace tlc::runtime
