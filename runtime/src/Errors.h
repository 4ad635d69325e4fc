// The error channel: every failure returns a status and leaves a message in a thread-local
// buffer, fetched with tlc_NAME_last_error(). Nothing prints, nothing aborts.
#pragma once

#include "tlc/launcher.h"

#include <cstddef>

namespace tlc::runtime {

constexpr size_t kMessageSize = 2048;

// This thread's message for its last failed call ("" if none failed).
extern thread_local char tlsLastError[kMessageSize];

// Sets this thread's message (printf-style) and returns `status`.
__attribute__((format(printf, 2, 3))) tlc_status fail(tlc_status status, const char* format, ...);
// Appends to this thread's message, as far as it fits.
__attribute__((format(printf, 1, 2))) void appendToError(const char* format, ...);

} // namespace tlc::runtime
