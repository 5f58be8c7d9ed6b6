//===- LibraryCallsTest.cpp - the library calls' families and backends ----===//
//
// Part of amp-mlir. The library calls are read from the runtime's table per
// backend (the GPU's every row, the CPU's its own calls), and the families'
// patterns ask the backend they are given, so that a third backend (here a
// GPU without convolutions) is a class, not a change to the families.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/InitAll.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::amp;

namespace {
TEST(LibraryCallsTest, TheGpuBackendCallsEveryRowsEntryPoint) {
  const LibraryBackend &gpu = getGpuLibraryBackend();
  EXPECT_EQ(gpu.getFunction(LibraryCall::Gemm), RuntimeFunction::ampGpuGemm);
  EXPECT_EQ(gpu.getFunction(LibraryCall::ScaledGemm),
            RuntimeFunction::ampGpuScaledGemm);
  EXPECT_EQ(gpu.getFunction(LibraryCall::Conv), RuntimeFunction::ampGpuConv2d);
  EXPECT_EQ(gpu.getFunction(LibraryCall::Constant),
            RuntimeFunction::ampGpuConstant);
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  EXPECT_EQ(getRuntimeFunctionName(*gpu.getFunction(LibraryCall::STEM)),       \
            #GPU_NAME);
#include "amp/runtime/LibraryCalls.def"
}

TEST(LibraryCallsTest, TheCpuBackendCallsItsOwnCallsOnly) {
  const LibraryBackend &cpu = getCpuLibraryBackend();
  EXPECT_EQ(cpu.getFunction(LibraryCall::Gemm),
            RuntimeFunction::ampCpuLibraryGemm);
  EXPECT_EQ(cpu.getFunction(LibraryCall::ScaledGemm),
            RuntimeFunction::ampCpuLibraryScaledGemm);
  EXPECT_EQ(cpu.getFunction(LibraryCall::Conv),
            RuntimeFunction::ampCpuLibraryConv2d);
  // The CPU twins are references, not calls the pipeline makes.
  EXPECT_EQ(cpu.getFunction(LibraryCall::Constant), std::nullopt);
  EXPECT_EQ(cpu.getFunction(LibraryCall::AllReduce), std::nullopt);
}

/// The GPU's libraries without a convolution: a backend is a class.
class GpuWithoutConvolutions final : public LibraryBackend {
public:
  StringRef getFallback() const override { return "a test kernel"; }
  std::optional<RuntimeFunction> getFunction(LibraryCall call) const override {
    if (call == LibraryCall::Conv)
      return std::nullopt;
    return getGpuLibraryBackend().getFunction(call);
  }
  std::string getScaledGemmRefusal(Type a, Type b, bool transA, bool transB,
                                   int64_t k, int64_t n) const override {
    return getGpuLibraryBackend().getScaledGemmRefusal(a, b, transA, transB, k,
                                                       n);
  }
  bool takesDynamicConvBatch() const override { return false; }
  StringRef getFloat8ConvRefusal() const override { return "none"; }
};

constexpr const char *kModule = R"mlir(
func.func @step(%a: memref<4x8xf16>, %b: memref<8x16xf16>,
                %c: memref<4x16xf32>, %x: memref<1x3x8x8xf32>,
                %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>)
                outs(%c : memref<4x16xf32>)
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>)
                           outs(%y : memref<1x4x6x6xf32>)
  return
}
)mlir";

TEST(LibraryCallsTest, FamiliesAskTheBackendTheyAreGiven) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kModule, ParserConfig(&context));
  ASSERT_TRUE(module);
  std::string remarks;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    remarks += diagnostic.str() + "\n";
    return success();
  });
  GpuWithoutConvolutions backend;
  RewritePatternSet patterns(&context);
  populateAmpLinalgToLibraryCallsPatterns(patterns, backend);
  FrozenRewritePatternSet frozen(std::move(patterns));
  ASSERT_TRUE(succeeded(applyLibraryCallPatterns(*module, frozen, backend)));

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("call @ampGpuGemm("), std::string::npos) << text;
  EXPECT_EQ(text.find("linalg.matmul"), std::string::npos) << text;
  EXPECT_NE(text.find("linalg.conv_2d_nchw_fchw"), std::string::npos) << text;
  EXPECT_EQ(remarks, "amp: kept as a test kernel, not a library call: the "
                     "target's libraries have no counterpart of "
                     "ampGpuConv2d\n");
}
} // namespace
