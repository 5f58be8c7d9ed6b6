//===- CollectivesTest.cpp - collectives of a single process --------------===//
//
// Part of amp-mlir. Without an MPI launcher the process is a group of one:
// rank 0 of 1, and ampAllReduce is the identity for every dtype and kind
// (mean divides by 1). Argument errors reach the error handler. The
// reductions across ranks are CollectivesFakeBackendTest's (a fake backend)
// and the MPI lit tests'.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using amp_test::captureHandlerMessage;

namespace {

TEST(Collectives, SingleProcessGroup) {
  ASSERT_EQ(ampCollectiveRank(), 0) << ampLastError();
  EXPECT_EQ(ampCollectiveWorldSize(), 1);
  ASSERT_NE(ampCollectiveBackend(), nullptr);
  EXPECT_STREQ(ampCollectiveBackend(), "single");
}

TEST(Collectives, IdentityForEveryTypeAndKind) {
  const float f32[] = {1.5f, -0.0f, 3.0e38f, -7.25f};
  const uint16_t f16[] = {0x3c00, 0x7bff, 0x8001, 0x7e00}; // 1, max, -tiny, NaN
  const uint16_t bf16[] = {0x3f80, 0xff80, 0x0001, 0x4049};
  const int32_t i32[] = {0, -5, 2147483647, 42};
  const uint8_t i1[] = {0, 1, 1, 0};
  struct Case {
    int32_t dtype;
    const void *data;
    size_t bytes;
    std::vector<int32_t> kinds;
  };
  std::vector<int32_t> all = {AMP_REDUCE_SUM, AMP_REDUCE_MEAN, AMP_REDUCE_MAX,
                              AMP_REDUCE_MIN};
  const Case cases[] = {
      {AMP_DTYPE_F32, f32, sizeof(f32), all},
      {AMP_DTYPE_F16, f16, sizeof(f16), all},
      {AMP_DTYPE_BF16, bf16, sizeof(bf16), all},
      {AMP_DTYPE_I32,
       i32,
       sizeof(i32),
       {AMP_REDUCE_SUM, AMP_REDUCE_MAX, AMP_REDUCE_MIN}},
      {AMP_DTYPE_I1, i1, sizeof(i1), {AMP_REDUCE_MAX, AMP_REDUCE_MIN}},
  };
  for (const Case &c : cases) {
    for (int32_t kind : c.kinds) {
      std::vector<unsigned char> buffer(c.bytes);
      std::memcpy(buffer.data(), c.data, c.bytes);
      std::string error = captureHandlerMessage(
          [&] { ampAllReduce(buffer.data(), 4, c.dtype, kind); });
      EXPECT_EQ(error, "") << "dtype " << c.dtype << " kind " << kind;
      EXPECT_EQ(std::memcmp(buffer.data(), c.data, c.bytes), 0)
          << "dtype " << c.dtype << " kind " << kind;
    }
  }
  // Empty and 0-d (one element) buffers.
  EXPECT_EQ(captureHandlerMessage([] {
              ampAllReduce(nullptr, 0, AMP_DTYPE_F32, AMP_REDUCE_SUM);
            }),
            "");
  float scalar = 2.0f;
  ampAllReduce(&scalar, 1, AMP_DTYPE_F32, AMP_REDUCE_MEAN);
  EXPECT_EQ(scalar, 2.0f);
}

TEST(Collectives, ArgumentErrors) {
  float data[2] = {1, 2};
  auto run = [&](void *pointer, int64_t count, int32_t dtype, int32_t kind) {
    return captureHandlerMessage(
        [&] { ampAllReduce(pointer, count, dtype, kind); });
  };
  EXPECT_EQ(run(data, -1, AMP_DTYPE_F32, AMP_REDUCE_SUM),
            "ampAllReduce: negative count -1");
  EXPECT_EQ(run(nullptr, 2, AMP_DTYPE_F32, AMP_REDUCE_SUM),
            "ampAllReduce: NULL data with count 2");
  EXPECT_EQ(run(data, 2, 9, AMP_REDUCE_SUM),
            "ampAllReduce: invalid dtype 9 (expected F32, F16, BF16, I32 or "
            "I1)");
  EXPECT_EQ(run(data, 2, AMP_DTYPE_F32, 4),
            "ampAllReduce: invalid kind 4 (expected sum, mean, max or min)");
  EXPECT_EQ(run(data, 2, AMP_DTYPE_I1, AMP_REDUCE_SUM),
            "ampAllReduce: cannot sum i1 values (max is or, min is and)");
  EXPECT_EQ(run(data, 2, AMP_DTYPE_I1, AMP_REDUCE_MEAN),
            "ampAllReduce: cannot mean i1 values (max is or, min is and)");
  EXPECT_EQ(run(data, 2, AMP_DTYPE_I32, AMP_REDUCE_MEAN),
            "ampAllReduce: cannot mean i32 values (use sum and divide)");
  // Validated before anything else, on the device twin too.
  EXPECT_EQ(captureHandlerMessage([&] {
              ampGpuAllReduce(data, 2, AMP_DTYPE_I1, AMP_REDUCE_SUM);
            }),
            "ampGpuAllReduce: cannot sum i1 values (max is or, min is and)");
}

TEST(Collectives, FinalizeWithoutMpiIsANoOp) {
  ampCollectiveFinalize();
  ampCollectiveFinalize();
  EXPECT_EQ(ampCollectiveWorldSize(), 1);
  float value = 3.0f;
  EXPECT_EQ(captureHandlerMessage([&] {
              ampAllReduce(&value, 1, AMP_DTYPE_F32, AMP_REDUCE_SUM);
            }),
            "");
}

} // namespace
