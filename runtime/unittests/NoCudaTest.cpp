//===- NoCudaTest.cpp - the GPU entry points of a build without CUDA ------===//
//
// Part of amp-mlir. Linked with the runtime built without the CUDA headers
// (lib/GpuStubs.cpp): every function of GpuApi.def (the device queries, the
// device loss scaler, tensor tables and optimizers) returns what the
// expectations below say, with ampLastError() naming the call and saying
// that GPU support was not built, and never calls the error handler; the
// ones with nothing to do leave no error. The expectations are written by
// hand, one per row of the table, and a row without one fails.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "amp/runtime/AmpRuntime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>

namespace {

using amp_test::captureHandlerMessage;

const char kNotBuilt[] =
    ": GPU support was not built: amp_runtime was compiled without the CUDA "
    "headers (cuda.h, cublas_api.h, cudnn.h), so libcuda.so.1, cuBLAS and "
    "cuDNN are never loaded; reconfigure with "
    "AMP_RUNTIME_CUDA_ROOT=<CUDA toolkit>";

/// Runs `call`: it must return `expected`, set ampLastError() to
/// "<name>: GPU support was not built: ..." and not call the handler.
template <typename Fn>
void expectNotBuilt(const char *name, Fn call, decltype(call()) expected) {
  ampClearError();
  std::string handled =
      captureHandlerMessage([&] { EXPECT_EQ(call(), expected); });
  EXPECT_EQ(handled, "");
  EXPECT_EQ(std::string(ampLastError()), std::string(name) + kNotBuilt);
}

/// Runs `call`: it must do nothing (no error, no handler).
template <typename Fn> void expectNothing(Fn call) {
  ampClearError();
  EXPECT_EQ(captureHandlerMessage(call), "");
  EXPECT_STREQ(ampLastError(), "");
}

AmpGpuLossScaler *const kScaler = nullptr;
AmpGpuGraph *const kGraph = nullptr;
AmpGpuOptimizer *const kOptimizer = nullptr;
/// A buffer to save a state to, and a blob to load.
unsigned char gBuffer[64];
const unsigned char kBlob[64] = {};

/// One expectation per row of GpuApi.def.
const std::map<std::string, std::function<void()>> &expectations() {
  static const std::map<std::string, std::function<void()>> map = {
      {"ampGpuAvailable",
       [] {
         expectNotBuilt(
             "ampGpuAvailable", [] { return ampGpuAvailable(); }, 0);
       }},
      {"ampGpuComputeCapability",
       [] {
         expectNotBuilt(
             "ampGpuComputeCapability",
             [] { return ampGpuComputeCapability(); }, 0);
       }},
      {"ampGpuDeviceName",
       [] {
         char name[16] = "unchanged";
         expectNotBuilt(
             "ampGpuDeviceName",
             [&] { return ampGpuDeviceName(name, sizeof(name)); }, 1);
         EXPECT_STREQ(name, "");
         expectNotBuilt(
             "ampGpuDeviceName", [] { return ampGpuDeviceName(nullptr, 0); },
             1);
       }},
      {"ampGpuSynchronize", [] { expectNothing([] { ampGpuSynchronize(); }); }},
      {"ampGpuSetConvExhaustiveSearch",
       [] { expectNothing([] { ampGpuSetConvExhaustiveSearch(1); }); }},
      {"ampGpuGraphBeginCapture",
       [] {
         expectNotBuilt(
             "ampGpuGraphBeginCapture",
             [] { return ampGpuGraphBeginCapture(); }, 1);
       }},
      {"ampGpuGraphEndCapture",
       [] {
         expectNotBuilt(
             "ampGpuGraphEndCapture", [] { return ampGpuGraphEndCapture(); },
             static_cast<AmpGpuGraph *>(nullptr));
       }},
      {"ampGpuGraphLaunch",
       [] {
         expectNotBuilt(
             "ampGpuGraphLaunch", [] { return ampGpuGraphLaunch(kGraph); }, 1);
       }},
      {"ampGpuGraphDestroy",
       [] { expectNothing([] { ampGpuGraphDestroy(kGraph); }); }},
      {"ampGpuLossScalerCreate",
       [] {
         AmpLossScalerConfig cfg;
         ASSERT_EQ(ampLossScalerConfigPreset("deepspeed", &cfg), 0);
         expectNotBuilt(
             "ampGpuLossScalerCreate",
             [&] { return ampGpuLossScalerCreate(&cfg); }, nullptr);
         expectNotBuilt(
             "ampGpuLossScalerCreate",
             [] { return ampGpuLossScalerCreate(nullptr); }, nullptr);
       }},
      {"ampGpuLossScalerDestroy",
       [] { expectNothing([] { ampGpuLossScalerDestroy(kScaler); }); }},
      {"ampGpuLossScalerScalePtr",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerScalePtr",
             [] { return ampGpuLossScalerScalePtr(kScaler); }, nullptr);
       }},
      {"ampGpuLossScalerInvScalePtr",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerInvScalePtr",
             [] { return ampGpuLossScalerInvScalePtr(kScaler); }, nullptr);
       }},
      {"ampGpuLossScalerFoundInfPtr",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerFoundInfPtr",
             [] { return ampGpuLossScalerFoundInfPtr(kScaler); }, nullptr);
       }},
      {"ampGpuLossScalerBeginStep",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerBeginStep",
             [] { return ampGpuLossScalerBeginStep(kScaler); }, 1);
       }},
      {"ampGpuLossScalerUpdate",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerUpdate",
             [] { return ampGpuLossScalerUpdate(kScaler); }, 1);
       }},
      {"ampGpuLossScalerGetStats",
       [] {
         AmpLossScalerStats stats;
         std::memset(&stats, 0xab, sizeof(stats));
         expectNotBuilt(
             "ampGpuLossScalerGetStats",
             [&] { return ampGpuLossScalerGetStats(kScaler, &stats); }, 1);
       }},
      {"ampGpuLossScalerSaveState",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerSaveState",
             [] {
               return ampGpuLossScalerSaveState(kScaler, gBuffer,
                                                sizeof(gBuffer));
             },
             0);
       }},
      {"ampGpuLossScalerLoadState",
       [] {
         expectNotBuilt(
             "ampGpuLossScalerLoadState",
             [] {
               return ampGpuLossScalerLoadState(kScaler, kBlob, sizeof(kBlob));
             },
             1);
       }},
      {"ampGpuTensorTableCreate",
       [] {
         int64_t numel = 4;
         void *fake = reinterpret_cast<void *>(uintptr_t(0x10000));
         expectNotBuilt(
             "ampGpuTensorTableCreate",
             [&] {
               return ampGpuTensorTableCreate(&fake, &numel, 1, AMP_DTYPE_F16);
             },
             nullptr);
       }},
      {"ampGpuTensorTableDestroy",
       [] { expectNothing([] { ampGpuTensorTableDestroy(nullptr); }); }},
      {"ampGpuCheckFiniteAndUnscale",
       [] {
         expectNotBuilt(
             "ampGpuCheckFiniteAndUnscale",
             [] { return ampGpuCheckFiniteAndUnscale(kScaler, nullptr); }, 1);
       }},
      {"ampGpuOptimizerCreate",
       [] {
         AmpOptimizerConfig cfg;
         ASSERT_EQ(ampOptimizerConfigDefault(AMP_OPTIMIZER_ADAMW, &cfg), 0);
         expectNotBuilt(
             "ampGpuOptimizerCreate",
             [&] { return ampGpuOptimizerCreate(&cfg, nullptr, 0); }, nullptr);
       }},
      {"ampGpuOptimizerDestroy",
       [] { expectNothing([] { ampGpuOptimizerDestroy(kOptimizer); }); }},
      {"ampGpuOptimizerStep",
       [] {
         expectNotBuilt(
             "ampGpuOptimizerStep",
             [] { return ampGpuOptimizerStep(kOptimizer, nullptr, nullptr); },
             1);
       }},
      {"ampGpuOptimizerGetStep",
       [] {
         expectNotBuilt(
             "ampGpuOptimizerGetStep",
             [] { return ampGpuOptimizerGetStep(kOptimizer); }, -1);
       }},
      {"ampGpuOptimizerSaveState",
       [] {
         expectNotBuilt(
             "ampGpuOptimizerSaveState",
             [] {
               return ampGpuOptimizerSaveState(kOptimizer, gBuffer,
                                               sizeof(gBuffer));
             },
             0);
       }},
      {"ampGpuOptimizerLoadState",
       [] {
         expectNotBuilt(
             "ampGpuOptimizerLoadState",
             [] {
               return ampGpuOptimizerLoadState(kOptimizer, kBlob,
                                               sizeof(kBlob));
             },
             1);
       }},
      {"ampGpuOptimizerSetLearningRate",
       [] {
         expectNotBuilt(
             "ampGpuOptimizerSetLearningRate",
             [] { return ampGpuOptimizerSetLearningRate(kOptimizer, 0.1f); },
             1);
       }},
  };
  return map;
}

TEST(NoCuda, EveryGpuApiRowReportsNotBuilt) {
  ASSERT_EQ(ampSetErrorHandler(nullptr), nullptr);
  const char *const rows[] = {
#define AMP_GPU_API_FUNCTION(NAME, RESULT, PARAMS, STUB) #NAME,
#include "amp/runtime/GpuApi.def"
  };
  for (const char *row : rows) {
    SCOPED_TRACE(row);
    auto it = expectations().find(row);
    if (it == expectations().end()) {
      ADD_FAILURE() << "no expectation for this row of GpuApi.def";
      continue;
    }
    it->second();
  }
  EXPECT_EQ(expectations().size(), sizeof(rows) / sizeof(rows[0]));
}

} // namespace
