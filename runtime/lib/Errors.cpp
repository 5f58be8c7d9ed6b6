//===- Errors.cpp - error reporting of amp_runtime ------------------------===//
//
// Part of amp-mlir. A thread-local "last error" message plus a process-wide
// handler for entry points without a return channel. Everything here is
// constant-initialised so that it works from global ctors/dtors of other
// libraries (the `mgpuModuleLoad` ctor runs at priority 123).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace amp::rt;

namespace {
constexpr size_t kMaxMessage = 4096;
thread_local char tlsMessage[kMaxMessage];
std::atomic<AmpErrorHandler> gHandler{nullptr};

void vsetMessage(const char *call, const char *fmt, va_list args) {
  int used = std::snprintf(tlsMessage, kMaxMessage, "%s: ", call);
  if (used < 0)
    used = 0;
  if (static_cast<size_t>(used) < kMaxMessage)
    std::vsnprintf(tlsMessage + used, kMaxMessage - used, fmt, args);
}

[[noreturn]] void defaultHandler(const char *message) {
  std::fprintf(stderr, "amp-runtime: error: %s\n", message);
  std::fflush(stderr);
  std::abort();
}
} // namespace

bool amp::rt::setError(const char *call, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsetMessage(call, fmt, args);
  va_end(args);
  return false;
}

bool amp::rt::appendError(const char *fmt, ...) {
  size_t used = std::strlen(tlsMessage);
  if (used + 1 >= kMaxMessage)
    return false;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(tlsMessage + used, kMaxMessage - used, fmt, args);
  va_end(args);
  return false;
}

void amp::rt::raiseLastError() {
  // Copy the message first: the handler may call back into the runtime.
  char message[kMaxMessage];
  std::memcpy(message, tlsMessage, sizeof(message));
  message[kMaxMessage - 1] = '\0';
  AmpErrorHandler handler = gHandler.load(std::memory_order_acquire);
  if (!handler)
    defaultHandler(message);
  handler(message);
}

void amp::rt::raiseError(const char *call, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsetMessage(call, fmt, args);
  va_end(args);
  raiseLastError();
}

const char *amp::rt::dtypeName(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F32:
    return "f32";
  case AMP_DTYPE_F16:
    return "f16";
  case AMP_DTYPE_BF16:
    return "bf16";
  case AMP_DTYPE_F8E4M3FN:
    return "f8E4M3FN";
  case AMP_DTYPE_F8E5M2:
    return "f8E5M2";
  default:
    return "<invalid dtype>";
  }
}

bool amp::rt::isFloat8(int32_t type) {
  return type == AMP_DTYPE_F8E4M3FN || type == AMP_DTYPE_F8E5M2;
}

size_t amp::rt::gemmElementSize(int32_t type) {
  return isFloat8(type) ? 1 : dtypeSize(type);
}

float amp::rt::float8ToF32(const void *base, int32_t type, int64_t index) {
  // One table per type, filled on first use: a load per element.
  struct Tables {
    float e4m3[256], e5m2[256];
    Tables() {
      for (int i = 0; i < 256; ++i) {
        e4m3[i] = ampF8E4M3FNToF32(static_cast<uint8_t>(i));
        e5m2[i] = ampF8E5M2ToF32(static_cast<uint8_t>(i));
      }
    }
  };
  static const Tables tables;
  uint8_t bits = static_cast<const uint8_t *>(base)[index];
  return type == AMP_DTYPE_F8E4M3FN ? tables.e4m3[bits] : tables.e5m2[bits];
}

size_t amp::rt::dtypeSize(int32_t type) {
  switch (type) {
  case AMP_DTYPE_F32:
    return 4;
  case AMP_DTYPE_F16:
  case AMP_DTYPE_BF16:
    return 2;
  default:
    return 0;
  }
}

bool amp::rt::envFlag(const char *name, bool defaultValue) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return defaultValue;
  for (const char *yes :
       {"1", "true", "TRUE", "True", "on", "ON", "yes", "YES"})
    if (std::strcmp(value, yes) == 0)
      return true;
  return false;
}

extern "C" {

const char *ampLastError(void) { return tlsMessage; }

void ampClearError(void) { tlsMessage[0] = '\0'; }

AmpErrorHandler ampSetErrorHandler(AmpErrorHandler handler) {
  return gHandler.exchange(handler, std::memory_order_acq_rel);
}

} // extern "C"
