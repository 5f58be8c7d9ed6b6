//===- AmpInterfacesTest.cpp - AmpPrecisionOpInterface --------------------===//
//
// Part of amp-mlir. The interface works through external models: attach one
// to an upstream op and query it.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Only the required method: the defaults apply for the rest.
struct AddFModel
    : public AmpPrecisionOpInterface::ExternalModel<AddFModel, arith::AddFOp> {
  Category getAmpCategory(Operation *) const { return Category::Gray; }
};

/// A model that overrides every method.
struct MulFModel
    : public AmpPrecisionOpInterface::ExternalModel<MulFModel, arith::MulFOp> {
  Category getAmpCategory(Operation *) const { return Category::White; }
  bool operandMustStayF32(Operation *, unsigned index) const {
    return index == 1;
  }
  FloatType getAccumulatorType(Operation *op, FloatType) const {
    return Float32Type::get(op->getContext());
  }
  bool supportsPrecision(Operation *, FloatType type) const {
    return !type.isBF16();
  }
};

TEST(AmpPrecisionOpInterfaceTest, ExternalModelsAndDefaults) {
  // Only the test's models: registerAllDialects would attach amp-mlir's own.
  DialectRegistry registry;
  registerAmpDialect(registry);
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<AddFModel>(*ctx);
    arith::MulFOp::attachInterface<MulFModel>(*ctx);
  });
  MLIRContext context(registry);
  context.loadDialect<arith::ArithDialect, func::FuncDialect>();

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%a: f32, %b: f32) -> f32 {
      %0 = arith.addf %a, %b : f32
      %1 = arith.mulf %0, %b : f32
      %2 = arith.subf %1, %a : f32
      return %2 : f32
    })mlir",
                                                             &context);
  ASSERT_TRUE(module);

  auto f16 = Float16Type::get(&context);
  auto bf16 = BFloat16Type::get(&context);
  int seen = 0;
  module->walk([&](Operation *op) {
    auto iface = dyn_cast<AmpPrecisionOpInterface>(op);
    if (isa<arith::AddFOp>(op)) {
      ASSERT_TRUE(iface);
      ++seen;
      EXPECT_EQ(iface.getAmpCategory(), Category::Gray);
      EXPECT_FALSE(iface.operandMustStayF32(0));
      EXPECT_FALSE(iface.getAccumulatorType(f16));
      EXPECT_TRUE(iface.supportsPrecision(bf16));
    } else if (isa<arith::MulFOp>(op)) {
      ASSERT_TRUE(iface);
      ++seen;
      EXPECT_EQ(iface.getAmpCategory(), Category::White);
      EXPECT_FALSE(iface.operandMustStayF32(0));
      EXPECT_TRUE(iface.operandMustStayF32(1));
      EXPECT_EQ(iface.getAccumulatorType(f16), Float32Type::get(&context));
      EXPECT_TRUE(iface.supportsPrecision(f16));
      EXPECT_FALSE(iface.supportsPrecision(bf16));
    } else if (isa<arith::SubFOp>(op)) {
      // No model attached: the op does not implement the interface.
      EXPECT_FALSE(iface);
      ++seen;
    }
  });
  EXPECT_EQ(seen, 3);
}

TEST(AmpCategoryTest, EnumSpellings) {
  EXPECT_EQ(stringifyCategory(Category::White), "white");
  EXPECT_EQ(symbolizeCategory("gray"), Category::Gray);
  EXPECT_FALSE(symbolizeCategory("grey").has_value());
  EXPECT_EQ(symbolizePrecision("bf16"), Precision::bf16);
  EXPECT_FALSE(symbolizePrecision("f64").has_value());
}
} // namespace
