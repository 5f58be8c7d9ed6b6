//===- AmpOpsTest.cpp - amp ops through the C++ API -----------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
class AmpOpsTest : public ::testing::Test {
protected:
  AmpOpsTest() : builder(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<AmpDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function taking one argument of `type`; the builder is left in it,
  /// before its terminator.
  Value makeArgument(Type type) {
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType({type}, {}));
    Block *entry = fn.addEntryBlock();
    builder.setInsertionPointToEnd(entry);
    auto ret = func::ReturnOp::create(builder, builder.getUnknownLoc());
    builder.setInsertionPoint(ret);
    return entry->getArgument(0);
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(AmpOpsTest, CastExactness) {
  struct Case {
    Type from, to;
    bool exact;
  } cases[] = {
      {builder.getF16Type(), builder.getF32Type(), true},
      {builder.getBF16Type(), builder.getF32Type(), true},
      {builder.getF32Type(), builder.getF64Type(), true},
      {builder.getF32Type(), builder.getF16Type(), false},
      {builder.getF16Type(), builder.getBF16Type(), false},
      {builder.getBF16Type(), builder.getF16Type(), false},
  };
  Value x = makeArgument(builder.getF32Type());
  for (const Case &c : cases) {
    Value src = x;
    if (c.from != x.getType())
      src = CastOp::create(builder, builder.getUnknownLoc(), c.from, x);
    auto cast = CastOp::create(builder, builder.getUnknownLoc(), c.to, src);
    EXPECT_EQ(cast.isExact(), c.exact);
  }
}

TEST_F(AmpOpsTest, ExactRoundTripFoldsThroughCreateOrFold) {
  Value x = makeArgument(RankedTensorType::get({4}, builder.getF16Type()));
  auto loc = builder.getUnknownLoc();
  auto f32 = RankedTensorType::get({4}, builder.getF32Type());
  auto f16 = RankedTensorType::get({4}, builder.getF16Type());
  Value wide = builder.createOrFold<CastOp>(loc, f32, x);
  Value back = builder.createOrFold<CastOp>(loc, f16, wide);
  EXPECT_EQ(back, x);

  // The lossy direction keeps both casts.
  builder.setInsertionPointToEnd(module->getBody());
  auto g = func::FuncOp::create(builder, loc, "g",
                                builder.getFunctionType({f32}, {}));
  builder.setInsertionPointToEnd(g.addEntryBlock());
  Value y = g.getArgument(0);
  Value narrow = builder.createOrFold<CastOp>(loc, f16, y);
  Value again = builder.createOrFold<CastOp>(loc, f32, narrow);
  EXPECT_NE(again, y);
  EXPECT_TRUE(again.getDefiningOp<CastOp>());
}

TEST_F(AmpOpsTest, GuardBuilderMakesAVerifiableRegion) {
  auto tensor = RankedTensorType::get({2}, builder.getF32Type());
  Value x = makeArgument(tensor);
  auto loc = builder.getUnknownLoc();
  auto guard = Fp16GuardOp::create(builder, loc, TypeRange{tensor});
  ASSERT_EQ(guard.getBody().getBlocks().size(), 1u);
  OpBuilder::InsertionGuard g(builder);
  builder.setInsertionPointToEnd(&guard.getBodyBlock());
  YieldOp::create(builder, loc, ValueRange{x});
  EXPECT_TRUE(succeeded(verify(guard)));
  EXPECT_EQ(guard.getYield().getOperand(0), x);
}

TEST_F(AmpOpsTest, PinnedPrecisionHelpers) {
  Value x = makeArgument(builder.getF32Type());
  auto cast =
      CastOp::create(builder, builder.getUnknownLoc(), builder.getF16Type(), x);
  EXPECT_FALSE(getPinnedPrecision(cast).has_value());
  setPinnedPrecision(cast, Precision::bf16);
  EXPECT_EQ(getPinnedPrecision(cast), Precision::bf16);
  EXPECT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(getFloatType(&context, Precision::f16), builder.getF16Type());
  EXPECT_EQ(getPrecision(builder.getBF16Type()), Precision::bf16);
  EXPECT_FALSE(getPrecision(builder.getF64Type()).has_value());
}
TEST_F(AmpOpsTest, AllReduceBuildsAndCommunicates) {
  // What a pass that emits the collective writes: the result type is the
  // operand's.
  auto type =
      RankedTensorType::get({ShapedType::kDynamic, 8}, builder.getF32Type());
  Value gradient = makeArgument(type);
  auto reduce = AllReduceOp::create(builder, builder.getUnknownLoc(),
                                    ReduceKind::mean, gradient);
  EXPECT_EQ(reduce.getType(), type);
  EXPECT_EQ(reduce.getKind(), ReduceKind::mean);
  EXPECT_TRUE(succeeded(verify(*module)));
  // Not memory-effect free (a write on the collective resource): never
  // erased, merged or hoisted, even when its result is unused.
  EXPECT_FALSE(isMemoryEffectFree(reduce));
  EXPECT_TRUE(reduce->use_empty());
  EXPECT_FALSE(isOpTriviallyDead(reduce));
  SmallVector<MemoryEffects::EffectInstance> effects;
  cast<MemoryEffectOpInterface>(reduce.getOperation()).getEffects(effects);
  ASSERT_EQ(effects.size(), 2u);
  for (const MemoryEffects::EffectInstance &effect : effects)
    EXPECT_TRUE(isa<CollectiveResource>(effect.getResource()));
  EXPECT_EQ(symbolizeReduceKind("max"), ReduceKind::max);
  EXPECT_EQ(stringifyReduceKind(ReduceKind::sum), "sum");
}

} // namespace
