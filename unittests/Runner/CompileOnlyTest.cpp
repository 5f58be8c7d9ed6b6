//===- CompileOnlyTest.cpp - compiling for the GPU without one ------------===//
//
// Part of amp-mlir. CompileOptions::openDevice = false compiles for
// Target::Gpu on a machine without a GPU (amp-run --compile-only); the
// executable then refuses to run instead of touching a device.
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp::runner;

namespace {

constexpr const char *kModule = R"mlir(
func.func @scale(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c = arith.constant dense<2.0> : tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.mul ins(%x, %c : tensor<64xf32>, tensor<64xf32>)
                  outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}
)mlir";

const char *kToolkit = "/usr/local/cuda";

class CompileOnlyTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string ptxas = std::string(kToolkit) + "/bin/ptxas";
    if (!llvm::sys::fs::exists(ptxas))
      GTEST_SKIP() << "no CUDA toolkit at " << kToolkit;
    registerRunnerDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    module = parseSourceString<ModuleOp>(kModule, context.get());
    ASSERT_TRUE(module);
    options.level = AmpLevel::O2;
    options.target = Target::Gpu;
    options.gpu.toolkit = kToolkit;
    options.runtimeLibrary = AMP_TEST_RUNTIME_LIBRARY;
  }

  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  CompileOptions options;
};

TEST_F(CompileOnlyTest, CompilesWithoutOpeningTheDevice) {
  options.openDevice = false;
  CompileTiming timing;
  options.timing = &timing;
  auto executable = Executable::compile(*module, "scale", options);
  ASSERT_TRUE(static_cast<bool>(executable))
      << llvm::toString(executable.takeError());
  // Every stage ran, the kernels' compilation (ptxas) included.
  std::vector<std::string> stages;
  for (const CompileTiming::Stage &stage : timing.stages)
    stages.push_back(stage.name);
  EXPECT_NE(std::find(stages.begin(), stages.end(), "lowering"), stages.end());
  EXPECT_NE(std::find(stages.begin(), stages.end(), "machine code"),
            stages.end());

  SmallVector<HostTensor> inputs;
  inputs.emplace_back(TensorSpec{ElementKind::F32, {64}});
  auto results = (*executable)->run(inputs);
  ASSERT_FALSE(static_cast<bool>(results));
  std::string message = llvm::toString(results.takeError());
  EXPECT_NE(message.find("compiled without opening a device"),
            std::string::npos)
      << message;
}

} // namespace
