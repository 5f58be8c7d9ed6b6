//===- CastPlacementTest.cpp - min-cut placement vs exhaustive search -----===//
//
// Part of amp-mlir. The property the cast placement must have: on every
// graph, the min-cut assignment costs exactly the minimum an exhaustive
// search finds, and among minimum-cost assignments it has the most
// low-precision ops.
//
//===----------------------------------------------------------------------===//

#include "amp/Analysis/CastPlacement.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::amp;
using Endpoint = CastPlacementProblem::Endpoint;

namespace {
TEST(CastPlacementTest, ChainFollowsTheWhiteOps) {
  // white(low) -> gray -> gray -> white(low), and the gray chain's ends:
  // keeping the gray ops low costs nothing.
  CastPlacementProblem p;
  unsigned w1 = p.addOp(true), g1 = p.addOp(), g2 = p.addOp(),
           w2 = p.addOp(true);
  unsigned v1 = p.addValue(100, Endpoint::follows(w1));
  p.addUse(v1, Endpoint::follows(g1));
  unsigned v2 = p.addValue(100, Endpoint::follows(g1));
  p.addUse(v2, Endpoint::follows(g2));
  unsigned v3 = p.addValue(100, Endpoint::follows(g2));
  p.addUse(v3, Endpoint::follows(w2));
  auto labels = p.solve();
  EXPECT_EQ(p.getCost(labels), 0);
  EXPECT_TRUE(labels[g1] && labels[g2]);
}

TEST(CastPlacementTest, SharedCastIsCountedOnce) {
  // A low producer used by a fixed-high op and by two free ops: one cast to
  // f32 is needed anyway; the free ops may stay low at no extra cost, or go
  // high and share that same cast. Ties go low.
  CastPlacementProblem p;
  unsigned producer = p.addOp(true), black = p.addOp(false), g1 = p.addOp(),
           g2 = p.addOp();
  unsigned v = p.addValue(60, Endpoint::follows(producer));
  p.addUse(v, Endpoint::follows(black));
  p.addUse(v, Endpoint::follows(g1));
  p.addUse(v, Endpoint::follows(g2));
  // The gray ops feed a black op through an expensive value each.
  for (unsigned g : {g1, g2}) {
    unsigned out = p.addValue(1000, Endpoint::follows(g));
    p.addUse(out, Endpoint::follows(black));
  }
  auto labels = p.solve();
  // Best: both gray ops high (they share the producer's cast, and their
  // outputs need none): cost 60, not 60 + 2000.
  EXPECT_EQ(p.getCost(labels), 60);
  EXPECT_FALSE(labels[g1] || labels[g2]);
  EXPECT_EQ(p.getCost(labels), p.getCost(p.solveExhaustively()));
}

TEST(CastPlacementTest, MatchesExhaustiveSearchOnRandomGraphs) {
  std::mt19937 rng(20261123);
  const unsigned kGraphs = 2000;
  unsigned withFreeOps = 0;
  for (unsigned graph = 0; graph < kGraphs; ++graph) {
    SCOPED_TRACE("graph " + std::to_string(graph));
    CastPlacementProblem p;
    unsigned numFree = std::uniform_int_distribution<unsigned>(0, 14)(rng);
    unsigned numFixed = std::uniform_int_distribution<unsigned>(0, 8)(rng);
    for (unsigned i = 0; i < numFree; ++i)
      p.addOp();
    for (unsigned i = 0; i < numFixed; ++i)
      p.addOp(std::bernoulli_distribution(0.5)(rng));
    unsigned numOps = p.getNumOps();
    if (numOps == 0)
      continue;
    // Half the graphs mix in third types.
    bool withOtherTypes = graph % 2 == 1;
    withFreeOps += numFree > 0;
    auto randomEndpoint = [&]() {
      // Mostly an op's label; sometimes fixed (accumulators, f32 operands,
      // function arguments and results).
      unsigned kind = std::uniform_int_distribution<unsigned>(0, 11)(rng);
      if (kind == 0)
        return Endpoint::high();
      if (kind == 1)
        return Endpoint::low();
      if (kind == 2 && withOtherTypes)
        return Endpoint::other(0); // e.g. bf16 pins in an f16 module
      if (kind == 3 && withOtherTypes)
        return Endpoint::other(1);
      return Endpoint::follows(
          std::uniform_int_distribution<unsigned>(0, numOps - 1)(rng));
    };
    unsigned numValues =
        std::uniform_int_distribution<unsigned>(1, 2 * numOps + 2)(rng);
    for (unsigned v = 0; v < numValues; ++v) {
      int64_t weight = std::uniform_int_distribution<int64_t>(0, 1 << 20)(rng);
      // Some producers can write either type (accumulators).
      unsigned value = std::bernoulli_distribution(0.1)(rng)
                           ? p.addValue(weight)
                           : p.addValue(weight, randomEndpoint());
      unsigned numUses = std::uniform_int_distribution<unsigned>(1, 4)(rng);
      for (unsigned u = 0; u < numUses; ++u)
        p.addUse(value, randomEndpoint());
    }

    auto fast = p.solve();
    auto exact = p.solveExhaustively();
    ASSERT_EQ(p.getCost(fast), p.getCost(exact));
    for (unsigned op = 0; op < numOps; ++op) {
      if (auto fixed = p.getFixedLabel(op)) {
        ASSERT_EQ(fast[op], *fixed) << "fixed op " << op << " relabelled";
      }
    }
    ASSERT_EQ(llvm::count(fast, true), llvm::count(exact, true))
        << "not the most low-precision among the optimal assignments";
  }
  EXPECT_GT(withFreeOps, kGraphs * 9 / 10);
}
// The cost model of --amp-o1 placement: conversions plus the extra bytes
// an op moves in f32 (ops of up to 16 free gray ops, as many fixed ones).
TEST(CastPlacementTest, MatchesExhaustiveSearchWithOpTraffic) {
  std::mt19937 rng(20261125);
  const unsigned kGraphs = 1200;
  for (unsigned graph = 0; graph < kGraphs; ++graph) {
    SCOPED_TRACE("graph " + std::to_string(graph));
    CastPlacementProblem p;
    unsigned numFree = std::uniform_int_distribution<unsigned>(1, 16)(rng);
    unsigned numFixed = std::uniform_int_distribution<unsigned>(0, 6)(rng);
    for (unsigned i = 0; i < numFree; ++i)
      p.addOp();
    for (unsigned i = 0; i < numFixed; ++i)
      p.addOp(std::bernoulli_distribution(0.5)(rng));
    unsigned numOps = p.getNumOps();
    auto randomEndpoint = [&]() {
      unsigned kind = std::uniform_int_distribution<unsigned>(0, 9)(rng);
      if (kind == 0)
        return Endpoint::high();
      if (kind == 1)
        return Endpoint::low();
      return Endpoint::follows(
          std::uniform_int_distribution<unsigned>(0, numOps - 1)(rng));
    };
    unsigned numValues =
        std::uniform_int_distribution<unsigned>(1, 2 * numOps)(rng);
    for (unsigned v = 0; v < numValues; ++v) {
      // Elements of the value: a conversion moves 6 bytes each (f32 read,
      // f16 write), an op in f32 2 more per element it reads or writes.
      int64_t elements = std::uniform_int_distribution<int64_t>(1, 4096)(rng);
      unsigned value = std::bernoulli_distribution(0.1)(rng)
                           ? p.addValue(6 * elements)
                           : p.addValue(6 * elements, randomEndpoint());
      unsigned numUses = std::uniform_int_distribution<unsigned>(1, 3)(rng);
      for (unsigned u = 0; u < numUses; ++u)
        p.addUse(value, randomEndpoint());
    }
    for (unsigned op = 0; op < numFree; ++op)
      p.addHighCost(op,
                    2 * std::uniform_int_distribution<int64_t>(0, 8192)(rng));

    auto fast = p.solve();
    auto exact = p.solveExhaustively();
    ASSERT_EQ(p.getCost(fast), p.getCost(exact));
    ASSERT_EQ(llvm::count(fast, true), llvm::count(exact, true));
    for (unsigned op = numFree; op < numOps; ++op)
      ASSERT_EQ(fast[op], *p.getFixedLabel(op));
  }
}

TEST(CastPlacementTest, HighCostTipsAGrayOpLow) {
  // A gray op between an f32 argument and an f32 result: staying f32 costs
  // no conversion, going low two (600 B). It moves 1000 B more in f32.
  CastPlacementProblem p;
  unsigned g = p.addOp();
  p.addUse(p.addValue(300, Endpoint::high()), Endpoint::follows(g));
  p.addUse(p.addValue(300, Endpoint::follows(g)), Endpoint::high());
  EXPECT_FALSE(p.solve()[g]);
  p.addHighCost(g, 1000);
  EXPECT_TRUE(p.solve()[g]);
  EXPECT_EQ(p.getCost(p.solve()), 600);
}
} // namespace
