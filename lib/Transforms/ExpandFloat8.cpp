//===- ExpandFloat8.cpp - the amp-expand-float8 pass ----------------------===//
//
// Part of amp-mlir. Rewrites arith.extf / arith.truncf from and to f8E4M3FN
// and f8E5M2 as integer operations on the bits, for targets that have no
// 8-bit float type (LLVM has none): round to nearest even, non-saturating,
// the semantics of ml_dtypes and of arith's folder.
//
// Written here rather than taken from upstream: MLIR 22's arith-expand
// covers bf16, f8E8M0FNU and f4E2M1FN only, and
// arith-emulate-unsupported-floats computes f8 arithmetic in f32 but still
// leaves the f32 <-> f8 conversions themselves to the target.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <optional>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPEXPANDFLOAT8PASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;

namespace {

/// An OCP FP8 format: its mantissa bits, exponent bias and special codes
/// (magnitudes, the sign bit clear).
struct Float8Format {
  unsigned mantissaBits;
  int bias;
  bool hasInfinity;
  uint32_t maxFinite; // 0x7E (448) for E4M3FN, 0x7B (57344) for E5M2.
  uint32_t nan;       // The NaN truncf writes.
  unsigned exponentBits() const { return 7 - mantissaBits; }
  /// The exponent of the smallest normal number, unbiased.
  int minExponent() const { return 1 - bias; }
};

std::optional<Float8Format> getFormat(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<Float8E4M3FNType>(element))
    return Float8Format{3, 7, false, 0x7E, 0x7F};
  if (isa<Float8E5M2Type>(element))
    return Float8Format{2, 15, true, 0x7B, 0x7E};
  return std::nullopt;
}

bool isEightBitFloat(Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return floatType && floatType.getWidth() == 8;
}

/// Why the pass leaves `op` (an extf or truncf that involves an 8-bit float)
/// unchanged; std::nullopt when it rewrites it. Shared by the patterns and
/// the remarks so that they agree.
std::optional<std::string> whyNotExpanded(Operation *op) {
  Type in = op->getOperand(0).getType();
  Type out = op->getResult(0).getType();
  Type f8 = isa<arith::TruncFOp>(op) ? out : in;
  Type other = isa<arith::TruncFOp>(op) ? in : out;
  if (!getFormat(f8))
    return "amp: " + std::string(isa<arith::TruncFOp>(op) ? "truncf to "
                                                            : "extf from ") +
           "this f8 format is not expanded (f8E4M3FN and f8E5M2 are)";
  auto wide = cast<FloatType>(getElementTypeOrSelf(other));
  if (isa<arith::TruncFOp>(op) && wide.getWidth() > 32)
    return std::string("amp: truncf from a type wider than f32 to f8 is not "
                       "expanded (rounding through f32 would round twice)");
  if (auto trunc = dyn_cast<arith::TruncFOp>(op))
    if (std::optional<arith::RoundingMode> mode = trunc.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return std::string("amp: truncf to f8 with a rounding mode other "
                         "than to_nearest_even is not expanded");
  return std::nullopt;
}

/// `type`'s shape (if any) with `element`.
Type withElement(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

/// Builds elementwise integer and float code of one shape.
struct Emitter {
  OpBuilder &b;
  Location loc;
  Type like; // A value of the shape being computed.

  Type i32() const { return withElement(like, b.getI32Type()); }
  Type f32() const { return withElement(like, b.getF32Type()); }

  Value constant(Type type, TypedAttr scalar) {
    if (auto shaped = dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(shaped, scalar));
    return arith::ConstantOp::create(b, loc, scalar);
  }
  Value i32(uint32_t value) {
    return constant(i32(), b.getI32IntegerAttr(static_cast<int32_t>(value)));
  }
  Value f32(float value) { return constant(f32(), b.getF32FloatAttr(value)); }

  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, unsigned n) {
    return arith::ShLIOp::create(b, loc, x, i32(n));
  }
  Value shr(Value x, unsigned n) {
    return arith::ShRUIOp::create(b, loc, x, i32(n));
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};

/// f32 (or f16/bf16, widened exactly) -> f8E4M3FN/f8E5M2.
struct ExpandTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isEightBitFloat(op.getType()) || whyNotExpanded(op))
      return failure();
    Float8Format format = *getFormat(op.getType());
    Emitter e{rewriter, op.getLoc(), op.getIn().getType()};
    Value x = op.getIn();
    if (!getElementTypeOrSelf(x.getType()).isF32())
      x = arith::ExtFOp::create(rewriter, e.loc, e.f32(), x);

    unsigned m = format.mantissaBits;
    unsigned shift = 23 - m;
    Value bits = arith::BitcastOp::create(rewriter, e.loc, e.i32(), x);
    Value sign = e.band(e.shr(bits, 24), e.i32(0x80));
    Value abs = e.band(bits, e.i32(0x7FFFFFFF));
    Value isNan = e.cmp(arith::CmpIPredicate::ugt, abs, e.i32(0x7F800000));

    // In the format's normal range: rebias the exponent in place, then
    // round the mantissa to nearest even at bit `shift` (a carry moves
    // into the exponent, which is what rounding up to a power of two is).
    Value rebased = e.sub(abs, e.i32(uint32_t(127 - format.bias) << 23));
    Value odd = e.band(e.shr(rebased, shift), e.i32(1));
    Value bias = e.add(odd, e.i32((1u << (shift - 1)) - 1));
    Value normal = e.shr(e.add(rebased, bias), shift);

    // Below it: the code is the value in units of the smallest subnormal,
    // rounded to nearest even (scaling by a power of two is exact); the
    // code 2^m that rounding up may give is the smallest normal's.
    Value magnitude = arith::BitcastOp::create(rewriter, e.loc, e.f32(), abs);
    Value scaled = arith::MulFOp::create(
        rewriter, e.loc, magnitude,
        e.f32(std::ldexp(1.0f, int(m) - format.minExponent())));
    Value rounded = math::RoundEvenOp::create(rewriter, e.loc, scaled);
    Value subnormal = arith::FPToUIOp::create(rewriter, e.loc, e.i32(), rounded);
    Value isSubnormal =
        e.cmp(arith::CmpIPredicate::ult, abs,
              e.i32(uint32_t(127 + format.minExponent()) << 23));
    Value code = e.select(isSubnormal, subnormal, normal);

    // Beyond the largest finite value (infinities included): E5M2's
    // infinity, E4M3FN's NaN.
    Value overflows =
        e.cmp(arith::CmpIPredicate::ugt, code, e.i32(format.maxFinite));
    code = e.select(overflows,
                    e.i32(format.hasInfinity ? format.maxFinite + 1
                                             : format.nan),
                    code);
    code = e.select(isNan, e.i32(format.nan), code);
    code = e.bor(code, sign);

    Value byte = arith::TruncIOp::create(
        rewriter, e.loc, withElement(op.getType(), rewriter.getI8Type()), code);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

/// f8E4M3FN/f8E5M2 -> f32 (then f16/bf16/f64, exactly).
struct ExpandExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isEightBitFloat(op.getIn().getType()) || whyNotExpanded(op))
      return failure();
    Float8Format format = *getFormat(op.getIn().getType());
    Emitter e{rewriter, op.getLoc(), op.getType()};
    unsigned m = format.mantissaBits;

    Value byte = arith::BitcastOp::create(
        rewriter, e.loc, withElement(op.getType(), rewriter.getI8Type()),
        op.getIn());
    Value code = arith::ExtUIOp::create(rewriter, e.loc, e.i32(), byte);
    Value sign = e.shl(e.band(code, e.i32(0x80)), 24);
    Value exponent =
        e.band(e.shr(code, m), e.i32((1u << format.exponentBits()) - 1));
    Value mantissa = e.band(code, e.i32((1u << m) - 1));

    Value normal =
        e.bor(e.shl(e.add(exponent, e.i32(uint32_t(127 - format.bias))), 23),
              e.shl(mantissa, 23 - m));
    // Subnormals: the mantissa in units of the smallest one (exact).
    Value units = arith::UIToFPOp::create(rewriter, e.loc, e.f32(), mantissa);
    Value value = arith::MulFOp::create(
        rewriter, e.loc, units,
        e.f32(std::ldexp(1.0f, format.minExponent() - int(m))));
    Value subnormal = arith::BitcastOp::create(rewriter, e.loc, e.i32(), value);
    Value isSubnormal = e.cmp(arith::CmpIPredicate::eq, exponent, e.i32(0));
    Value magnitude = e.select(isSubnormal, subnormal, normal);

    Value magnitudeCode = e.band(code, e.i32(0x7F));
    if (format.hasInfinity) {
      uint32_t top = (1u << format.exponentBits()) - 1;
      Value special = e.cmp(arith::CmpIPredicate::eq, exponent, e.i32(top));
      Value isInf = e.cmp(arith::CmpIPredicate::eq, mantissa, e.i32(0));
      Value nanBits = e.bor(e.i32(0x7FC00000), e.shl(mantissa, 23 - m));
      Value specialBits = e.select(isInf, e.i32(0x7F800000), nanBits);
      magnitude = e.select(special, specialBits, magnitude);
    } else {
      Value isNan = e.cmp(arith::CmpIPredicate::eq, magnitudeCode,
                          e.i32(format.nan));
      magnitude = e.select(isNan, e.i32(0x7FC00000), magnitude);
    }
    Value result = arith::BitcastOp::create(rewriter, e.loc, e.f32(),
                                            e.bor(magnitude, sign));
    Type wide = getElementTypeOrSelf(op.getType());
    if (wide.isF32())
      rewriter.replaceOp(op, result);
    else if (cast<FloatType>(wide).getWidth() > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), result);
    else // f16 and bf16 hold every f8E4M3FN and f8E5M2 value.
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), result);
    return success();
  }
};

struct AmpExpandFloat8Pass
    : public amp::impl::AmpExpandFloat8PassBase<AmpExpandFloat8Pass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!isa<arith::TruncFOp, arith::ExtFOp>(op))
        return;
      bool involvesF8 = isEightBitFloat(op->getOperand(0).getType()) ||
                        isEightBitFloat(op->getResult(0).getType());
      if (!involvesF8)
        return;
      if (std::optional<std::string> why = whyNotExpanded(op))
        op->emitRemark() << *why << "; left unchanged";
    });
    RewritePatternSet patterns(&getContext());
    amp::populateAmpExpandFloat8Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::amp::populateAmpExpandFloat8Patterns(RewritePatternSet &patterns) {
  patterns.add<ExpandTruncF, ExpandExtF>(patterns.getContext());
}
