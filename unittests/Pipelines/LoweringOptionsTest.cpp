//===- LoweringOptionsTest.cpp - the lowerings' options, typed ------------===//
//
// Part of amp-mlir. The three forms of LoweringOptions.def agree: the
// textual options read into the typed ones, the typed setters of the C API
// set the same fields, and each rejects what its option's type does not
// take, with the option's name in the message.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/LoweringOptions.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

TEST(LoweringOptionsTest, DefaultsAreTheDeclaredOnes) {
  // The textual defaults are printed from the typed ones: reading them back
  // gives the typed defaults.
  GpuLoweringOptions gpu, parsed;
  std::string error;
  ASSERT_TRUE(succeeded(parseLoweringOptions("", parsed, error))) << error;
  EXPECT_EQ(parsed.chip.str(), gpu.chip.str());
  EXPECT_EQ(parsed.chip.str(), "sm_90");
  EXPECT_EQ(parsed.features.version, 0u);
  EXPECT_EQ(parsed.format, KernelFormat::Fatbin);
  EXPECT_EQ(parsed.toolkit, "/usr/local/cuda");
  EXPECT_EQ(parsed.blockSize, 256u);
  EXPECT_FALSE(parsed.rounding);
  CpuLoweringOptions cpu;
  ASSERT_TRUE(succeeded(parseLoweringOptions("", cpu, error))) << error;
  EXPECT_TRUE(cpu.libraries);
  EXPECT_EQ(cpu.splitReductions, 8);
}

TEST(LoweringOptionsTest, TextIsParsedOnceIntoTypes) {
  GpuLoweringOptions gpu;
  std::string error;
  ASSERT_TRUE(succeeded(parseLoweringOptions(
      "chip=sm_90a features=+ptx81 format=isa block-size=128 "
      "libraries=false rounding=per-op",
      gpu, error)))
      << error;
  EXPECT_EQ(gpu.chip.computeCapability, 90);
  EXPECT_TRUE(gpu.chip.archSpecific);
  EXPECT_EQ(gpu.chip.str(), "sm_90a");
  EXPECT_EQ(gpu.features.version, 81u);
  EXPECT_EQ(getPtxVersion(gpu), 81u);
  EXPECT_EQ(gpu.format, KernelFormat::Isa);
  EXPECT_EQ(gpu.blockSize, 128u);
  EXPECT_FALSE(gpu.libraries);
  EXPECT_EQ(gpu.rounding, RoundingMode::PerOp);
}

TEST(LoweringOptionsTest, ThePtxVersionFollowsTheChip) {
  GpuLoweringOptions gpu;
  EXPECT_EQ(getPtxVersion(gpu), 80u);
  gpu.chip = *GpuChip::parse("sm_100");
  EXPECT_EQ(getPtxVersion(gpu), 86u);
  gpu.chip = *GpuChip::parse("sm_120");
  EXPECT_EQ(getPtxVersion(gpu), 87u);
}

TEST(LoweringOptionsTest, BadTextNamesTheOption) {
  auto message = [](llvm::StringRef text) {
    GpuLoweringOptions gpu;
    std::string error;
    EXPECT_TRUE(failed(parseLoweringOptions(text, gpu, error))) << text.str();
    return error;
  };
  EXPECT_EQ(message("chip=ampere"),
            "chip 'ampere' is not of the form sm_<N>[a]");
  EXPECT_EQ(message("features=ptx80"),
            "features must be of the form +ptx<N>, got 'ptx80'");
  EXPECT_EQ(message("format=elf"), "format must be fatbin, isa or bin, "
                                   "got 'elf'");
  EXPECT_EQ(message("rounding=twice"),
            "rounding must be once or per-op, got 'twice'");
  EXPECT_NE(message("no-such-option=1")
                .find("invalid options "
                      "'no-such-option=1'"),
            std::string::npos);
  CpuLoweringOptions cpu;
  std::string error;
  EXPECT_TRUE(failed(parseLoweringOptions("libraries=maybe", cpu, error)));
  EXPECT_NE(error.find("invalid options 'libraries=maybe'"), std::string::npos)
      << error;
}

TEST(LoweringOptionsTest, VerificationChecksWhatTypesDoNot) {
  GpuLoweringOptions gpu;
  gpu.simulate = true;
  std::string error;
  EXPECT_TRUE(succeeded(verifyGpuLoweringOptions(gpu, error))) << error;
  gpu.chip = *GpuChip::parse("sm_70");
  EXPECT_TRUE(failed(verifyGpuLoweringOptions(gpu, error)));
  EXPECT_EQ(error, "chip 'sm_70' is older than sm_75, which CUDA 13's "
                   "ptxas no longer supports");
  gpu.chip = GpuChip();
  gpu.vectorBytes = 12;
  EXPECT_TRUE(failed(verifyGpuLoweringOptions(gpu, error)));
  EXPECT_EQ(error, "vector-bytes must be 0 (no vectorisation), 4, 8 or 16");
  gpu.vectorBytes = 16;
  gpu.vectorsPerThread = 0;
  EXPECT_TRUE(failed(verifyGpuLoweringOptions(gpu, error)));
  EXPECT_EQ(error, "vectors-per-thread must be in [1, 16]");
  gpu.vectorsPerThread = 17;
  EXPECT_TRUE(failed(verifyGpuLoweringOptions(gpu, error)));
  EXPECT_EQ(error, "vectors-per-thread must be in [1, 16]");
  gpu.vectorsPerThread = 16;
  EXPECT_TRUE(succeeded(verifyGpuLoweringOptions(gpu, error))) << error;
  gpu.simulate = false;
  gpu.toolkit = "/nonexistent";
  EXPECT_TRUE(failed(verifyGpuLoweringOptions(gpu, error)));
  EXPECT_EQ(error, "no ptxas at '/nonexistent/bin/ptxas': set toolkit= to a "
                   "CUDA toolkit root, or use format=isa");
  gpu.format = KernelFormat::Isa;
  EXPECT_TRUE(succeeded(verifyGpuLoweringOptions(gpu, error))) << error;
}

TEST(LoweringOptionsTest, TheSmCountIsTheOptionElseTheChipsLargestPart) {
  GpuLoweringOptions gpu;
  EXPECT_EQ(getSmCount(gpu), 132u); // sm_90: H100 SXM, H200
  gpu.chip = *GpuChip::parse("sm_80");
  EXPECT_EQ(getSmCount(gpu), 108u);
  gpu.chip = *GpuChip::parse("sm_90a");
  EXPECT_EQ(getSmCount(gpu), 132u);
  gpu.smCount = 114; // an H100 PCIe
  EXPECT_EQ(getSmCount(gpu), 114u);
  gpu.smCount = 0;
  gpu.chip = *GpuChip::parse("sm_110");
  EXPECT_EQ(getSmCount(gpu), 0u); // not listed: no limit
}

TEST(LoweringOptionsTest, TypedSettersSetTheFields) {
  GpuLoweringOptions gpu;
  std::string error;
  ASSERT_TRUE(
      succeeded(setLoweringOption(gpu, "chip", std::string("sm_80"), error)));
  ASSERT_TRUE(
      succeeded(setLoweringOption(gpu, "block-size", int64_t(64), error)));
  ASSERT_TRUE(succeeded(setLoweringOption(gpu, "libraries", false, error)));
  ASSERT_TRUE(
      succeeded(setLoweringOption(gpu, "format", std::string("bin"), error)));
  EXPECT_EQ(gpu.chip.computeCapability, 80);
  EXPECT_EQ(gpu.blockSize, 64u);
  EXPECT_FALSE(gpu.libraries);
  EXPECT_EQ(gpu.format, KernelFormat::Bin);
  CpuLoweringOptions cpu;
  ASSERT_TRUE(
      succeeded(setLoweringOption(cpu, "split-reductions", int64_t(0), error)));
  EXPECT_EQ(cpu.splitReductions, 0);
}

TEST(LoweringOptionsTest, TypedSettersRejectOtherKindsAndRanges) {
  GpuLoweringOptions gpu;
  std::string error;
  EXPECT_TRUE(failed(setLoweringOption(gpu, "libraries", int64_t(1), error)));
  EXPECT_EQ(error, "libraries takes a bool, not an integer");
  EXPECT_TRUE(
      failed(setLoweringOption(gpu, "block-size", std::string("64"), error)));
  EXPECT_EQ(error, "block-size takes an integer, not a string");
  EXPECT_TRUE(failed(setLoweringOption(gpu, "block-size", int64_t(-1), error)));
  EXPECT_EQ(error, "block-size must be in [0, 4294967295], got -1");
  EXPECT_TRUE(
      failed(setLoweringOption(gpu, "chip", std::string("sm80"), error)));
  EXPECT_EQ(error, "chip 'sm80' is not of the form sm_<N>[a]");
  CpuLoweringOptions cpu;
  EXPECT_TRUE(
      failed(setLoweringOption(cpu, "chip", std::string("sm_80"), error)));
  EXPECT_EQ(error.find("unknown option 'chip' of the CPU lowering; it has "
                       "c-interface, fuse-elementwise,"),
            0u)
      << error;
}

TEST(LoweringOptionsTest, TheTableListsEveryOptionWithItsKind) {
  llvm::ArrayRef<OptionInfo> gpu = getGpuLoweringOptionInfos();
  ASSERT_EQ(gpu.size(), 17u);
  EXPECT_EQ(gpu[0].name, "chip");
  EXPECT_EQ(gpu[0].kind, OptionKind::String);
  EXPECT_EQ(gpu[4].name, "libraries");
  EXPECT_EQ(gpu[4].kind, OptionKind::Bool);
  EXPECT_EQ(gpu[6].name, "block-size");
  EXPECT_EQ(gpu[6].kind, OptionKind::Integer);
  EXPECT_EQ(gpu[8].name, "vectors-per-thread");
  EXPECT_EQ(gpu[8].kind, OptionKind::Integer);
  EXPECT_EQ(gpu[9].name, "sm-count");
  EXPECT_EQ(gpu[9].kind, OptionKind::Integer);
  EXPECT_EQ(gpu[10].name, "fuse-rows");
  EXPECT_EQ(gpu[10].kind, OptionKind::Bool);
  EXPECT_EQ(gpu[11].name, "merge-launches");
  EXPECT_EQ(gpu[11].kind, OptionKind::Bool);
  EXPECT_EQ(gpu[12].name, "exact-convolutions");
  EXPECT_EQ(gpu[12].kind, OptionKind::Bool);
  EXPECT_EQ(gpu[13].name, "channels-last");
  EXPECT_EQ(gpu[13].kind, OptionKind::Bool);
  EXPECT_EQ(gpu[14].name, "conv-epilogues");
  EXPECT_EQ(gpu[14].kind, OptionKind::Bool);
  EXPECT_EQ(gpu[15].name, "fused-attention");
  EXPECT_EQ(gpu[15].kind, OptionKind::Bool);
  EXPECT_EQ(getCpuLoweringOptionInfos().size(), 9u);
}

} // namespace
