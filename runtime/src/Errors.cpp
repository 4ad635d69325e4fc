// The thread-local error message behind tlc_NAME_last_error().
#include "Errors.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace tlc::runtime {

thread_local char tlsLastError[kMessageSize];

tlc_status fail(tlc_status status, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(tlsLastError, sizeof tlsLastError, format, args);
  va_end(args);
  return status;
}

void appendToError(const char* format, ...) {
  size_t used = std::strlen(tlsLastError);
  if (used + 1 >= sizeof tlsLastError)
    return;
  va_list args;
  va_start(args, format);
  std::vsnprintf(tlsLastError + used, sizeof tlsLastError - used, format, args);
  va_end(args);
}

const char* lastError() {
  return tlsLastError;
}

const char* statusString(tlc_status status) {
  switch (status) {
  case TLC_SUCCESS:
    return "TLC_SUCCESS";
  case TLC_ERROR_INVALID_VALUE:
    return "TLC_ERROR_INVALID_VALUE";
  case TLC_ERROR_NO_DRIVER:
    return "TLC_ERROR_NO_DRIVER";
  case TLC_ERROR_NO_DEVICE:
    return "TLC_ERROR_NO_DEVICE";
  case TLC_ERROR_NO_BINARY:
    return "TLC_ERROR_NO_BINARY";
  case TLC_ERROR_IMAGE:
    return "TLC_ERROR_IMAGE";
  case TLC_ERROR_NOT_FOUND:
    return "TLC_ERROR_NOT_FOUND";
  case TLC_ERROR_AMBIGUOUS:
    return "TLC_ERROR_AMBIGUOUS";
  case TLC_ERROR_LAUNCH:
    return "TLC_ERROR_LAUNCH";
  case TLC_ERROR_DRIVER:
    return "TLC_ERROR_DRIVER";
  }
  return "TLC_ERROR_UNKNOWN";
}

} // namespace tlc::runtime
