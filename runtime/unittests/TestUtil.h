//===- TestUtil.h - helpers for the amp_runtime tests -----------*- C++ -*-===//
//
// Part of amp-mlir. Runs a callable with an error handler installed that
// records the message and longjmps back, so that tests can observe failures
// of void entry points without exceptions (the runtime may be built with
// -fno-exceptions inside the LLVM-style parent project).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_UNITTESTS_TESTUTIL_H
#define AMP_RUNTIME_UNITTESTS_TESTUTIL_H

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <csetjmp>
#include <string>
#include <vector>

namespace amp_test {

inline std::jmp_buf &jumpBuffer() {
  static std::jmp_buf buffer;
  return buffer;
}

inline std::string &handlerMessage() {
  static std::string message;
  return message;
}

inline void jumpingHandler(const char *message) {
  handlerMessage() = message;
  std::longjmp(jumpBuffer(), 1);
}

/// Runs `fn` and returns the message passed to the error handler, or "" if
/// the handler was not called.
template <typename Fn> std::string captureHandlerMessage(Fn fn) {
  handlerMessage().clear();
  AmpErrorHandler previous = ampSetErrorHandler(jumpingHandler);
  if (setjmp(jumpBuffer()) == 0)
    fn();
  ampSetErrorHandler(previous);
  return handlerMessage();
}

/// Base of GPU test fixtures: skips without a GPU, and fails the test for
/// every message that reaches the error handler.
class GpuTestBase : public ::testing::Test {
public:
  /// What reached the handler since SetUp.
  static std::vector<std::string> &errors() {
    static std::vector<std::string> list;
    return list;
  }
  static void recordingHandler(const char *message) {
    errors().push_back(message);
  }

protected:
  void SetUp() override {
    // Cleared first: TearDown also runs after a skip.
    errors().clear();
    if (!ampGpuAvailable())
      GTEST_SKIP() << "no GPU: " << ampLastError();
    ampSetErrorHandler(recordingHandler);
  }
  void TearDown() override {
    ampSetErrorHandler(nullptr);
    for (const std::string &error : errors())
      ADD_FAILURE() << "runtime error: " << error;
    errors().clear();
  }
};

} // namespace amp_test

#endif // AMP_RUNTIME_UNITTESTS_TESTUTIL_H
