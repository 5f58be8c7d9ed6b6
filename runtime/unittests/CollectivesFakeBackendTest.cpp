//===- CollectivesFakeBackendTest.cpp - reductions through a backend ------===//
//
// Part of amp-mlir. AmpCollectivesFakeTests: the process pretends to be
// rank 1 of 3 under an MPI launcher (OMPI_COMM_WORLD_SIZE=3) and the runtime
// loads FakeMpiBackend.c's library (AMP_MPI_BACKEND), where the two other
// ranks contribute 1 to every element. This checks what the runtime does
// around MPI_Allreduce: f16/bf16 reduced in f32 and rounded once, mean
// dividing the f32 sum, i1 bytes normalised, and finalisation.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

using amp_test::captureHandlerMessage;

namespace {

TEST(CollectivesFakeBackend, Group) {
  ASSERT_EQ(ampCollectiveRank(), 1) << ampLastError();
  EXPECT_EQ(ampCollectiveWorldSize(), 3);
  EXPECT_STREQ(ampCollectiveBackend(), "mpi");
}

TEST(CollectivesFakeBackend, F32) {
  std::vector<float> sum = {0.5f, -1.0f, 3.0f};
  ampAllReduce(sum.data(), 3, AMP_DTYPE_F32, AMP_REDUCE_SUM);
  EXPECT_EQ(sum, (std::vector<float>{2.5f, 1.0f, 5.0f}));
  std::vector<float> mean = {0.5f, -1.0f, 3.0f};
  ampAllReduce(mean.data(), 3, AMP_DTYPE_F32, AMP_REDUCE_MEAN);
  EXPECT_EQ(mean, (std::vector<float>{2.5f / 3.0f, 1.0f / 3.0f, 5.0f / 3.0f}));
  std::vector<float> max = {0.5f, 7.0f}, min = {0.5f, 7.0f};
  ampAllReduce(max.data(), 2, AMP_DTYPE_F32, AMP_REDUCE_MAX);
  ampAllReduce(min.data(), 2, AMP_DTYPE_F32, AMP_REDUCE_MIN);
  EXPECT_EQ(max, (std::vector<float>{1.0f, 7.0f}));
  EXPECT_EQ(min, (std::vector<float>{0.5f, 1.0f}));
}

TEST(CollectivesFakeBackend, HalfTypesReduceInF32AndRoundOnce) {
  for (int32_t dtype : {AMP_DTYPE_F16, AMP_DTYPE_BF16}) {
    bool half = dtype == AMP_DTYPE_F16;
    auto toBits = [&](float v) {
      return half ? ampF32ToF16(v) : ampF32ToBF16(v);
    };
    auto toFloat = [&](uint16_t b) {
      return half ? ampF16ToF32(b) : ampBF16ToF32(b);
    };
    std::vector<float> inputs = {0.1f, -3.7f, 1000.3f, 0.0f};
    for (int32_t kind :
         {AMP_REDUCE_SUM, AMP_REDUCE_MEAN, AMP_REDUCE_MAX, AMP_REDUCE_MIN}) {
      std::vector<uint16_t> bits;
      for (float v : inputs)
        bits.push_back(toBits(v));
      std::vector<uint16_t> expected;
      for (uint16_t b : bits) {
        float x = toFloat(b);
        float r = kind == AMP_REDUCE_SUM    ? x + 2.0f
                  : kind == AMP_REDUCE_MEAN ? (x + 2.0f) / 3.0f
                  : kind == AMP_REDUCE_MAX  ? (x > 1.0f ? x : 1.0f)
                                            : (x < 1.0f ? x : 1.0f);
        expected.push_back(toBits(r));
      }
      ampAllReduce(bits.data(), 4, dtype, kind);
      EXPECT_EQ(bits, expected) << "dtype " << dtype << " kind " << kind;
    }
  }
}

TEST(CollectivesFakeBackend, I32AndI1) {
  std::vector<int32_t> sum = {-5, 0, 40}, max = {-5, 0, 40}, min = {-5, 0, 40};
  ampAllReduce(sum.data(), 3, AMP_DTYPE_I32, AMP_REDUCE_SUM);
  ampAllReduce(max.data(), 3, AMP_DTYPE_I32, AMP_REDUCE_MAX);
  ampAllReduce(min.data(), 3, AMP_DTYPE_I32, AMP_REDUCE_MIN);
  EXPECT_EQ(sum, (std::vector<int32_t>{-3, 2, 42}));
  EXPECT_EQ(max, (std::vector<int32_t>{1, 1, 40}));
  EXPECT_EQ(min, (std::vector<int32_t>{-5, 0, 1}));
  // Any nonzero byte is true; results are 0 or 1.
  std::vector<uint8_t> orValues = {0, 1, 7}, andValues = {0, 1, 7};
  ampAllReduce(orValues.data(), 3, AMP_DTYPE_I1, AMP_REDUCE_MAX);
  ampAllReduce(andValues.data(), 3, AMP_DTYPE_I1, AMP_REDUCE_MIN);
  EXPECT_EQ(orValues, (std::vector<uint8_t>{1, 1, 1}));
  EXPECT_EQ(andValues, (std::vector<uint8_t>{0, 1, 1}));
}

// Last: nothing works after it. (lit runs the tests in shards, each a
// process of its own: the backend is started here, not assumed started.)
TEST(CollectivesFakeBackend, ZFinalize) {
  ASSERT_EQ(ampCollectiveWorldSize(), 3) << ampLastError();
  ampCollectiveFinalize();
  float value = 1.0f;
  EXPECT_EQ(captureHandlerMessage([&] {
              ampAllReduce(&value, 1, AMP_DTYPE_F32, AMP_REDUCE_SUM);
            }),
            "ampAllReduce: the collectives were finalized "
            "(ampCollectiveFinalize)");
  EXPECT_EQ(ampCollectiveRank(), -1);
}

} // namespace

int main(int argc, char **argv) {
  setenv("OMPI_COMM_WORLD_SIZE", "3", /*overwrite=*/1);
  unsetenv("PMI_SIZE");
  setenv("AMP_MPI_BACKEND", AMP_TEST_FAKE_MPI_BACKEND, /*overwrite=*/1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
