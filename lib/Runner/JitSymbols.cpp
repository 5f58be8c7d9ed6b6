//===- JitSymbols.cpp - conversion routines for JIT code ------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"
#include "amp/Runner/Npy.h"
#include "amp/Runner/Runner.h"
#include "amp/runtime/AmpRuntime.h"

#include "GpuRuntime.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>

using namespace mlir;
using namespace mlir::amp::runner;
using namespace mlir::amp::runner::detail;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Conversion routines for JIT code
//===----------------------------------------------------------------------===//
//
// Without F16C / AVX-512 BF16 (or with --jit-cpu=generic), LLVM lowers
// conversions to f16/bf16 to libgcc/compiler-rt calls. libgcc_s has the f16
// ones since GCC 12 but the bf16 ones only since GCC 13, so amp-run defines
// them all, exactly, for the JIT. On x86-64 and AArch64, a half/bfloat
// argument or result travels in the low 16 bits of the first vector register,
// as a float does in its low 32 bits: a float whose low 16 bits are the value
// is passed the same way.

#if defined(__x86_64__) || defined(__aarch64__)
#define AMP_RUN_HAVE_CONVERSION_SYMBOLS 1

static float packHalfBits(uint16_t bits) {
  uint32_t word = bits;
  float result;
  std::memcpy(&result, &word, sizeof(result));
  return result;
}

static uint16_t unpackHalfBits(float packed) {
  uint32_t word;
  std::memcpy(&word, &packed, sizeof(word));
  return static_cast<uint16_t>(word & 0xffff);
}

static uint16_t roundDouble(double value, const llvm::fltSemantics &semantics) {
  llvm::APFloat number(value);
  bool losesInfo;
  number.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(number.bitcastToAPInt().getZExtValue());
}

static float ampRunTruncSfHf2(float value) {
  return packHalfBits(ampF32ToF16(value));
}
static float ampRunTruncDfHf2(double value) {
  return packHalfBits(roundDouble(value, llvm::APFloat::IEEEhalf()));
}
static float ampRunExtendHfSf2(float packed) {
  return ampF16ToF32(unpackHalfBits(packed));
}
static double ampRunExtendHfDf2(float packed) {
  return ampF16ToF32(unpackHalfBits(packed));
}
static float ampRunTruncSfBf2(float value) {
  return packHalfBits(ampF32ToBF16(value));
}
static float ampRunTruncDfBf2(double value) {
  return packHalfBits(roundDouble(value, llvm::APFloat::BFloat()));
}
#endif

void amp::runner::detail::registerConversionSymbols(ExecutionEngine &engine) {
#ifdef AMP_RUN_HAVE_CONVERSION_SYMBOLS
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, auto *function) {
      symbols[interner(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void *>(function)),
          llvm::JITSymbolFlags::Exported};
    };
    add("__truncsfhf2", &ampRunTruncSfHf2);
    add("__truncdfhf2", &ampRunTruncDfHf2);
    add("__extendhfsf2", &ampRunExtendHfSf2);
    add("__extendhfdf2", &ampRunExtendHfDf2);
    add("__gnu_h2f_ieee", &ampRunExtendHfSf2);
    add("__gnu_f2h_ieee", &ampRunTruncSfHf2);
    add("__truncsfbf2", &ampRunTruncSfBf2);
    add("__truncdfbf2", &ampRunTruncDfBf2);
    return symbols;
  });
#else
  (void)engine;
#endif
}
