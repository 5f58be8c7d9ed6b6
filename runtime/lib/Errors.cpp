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
  default:
    return "<invalid dtype>";
  }
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
