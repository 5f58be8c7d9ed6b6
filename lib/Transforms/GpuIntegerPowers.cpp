//===- GpuIntegerPowers.cpp - amp-gpu-integer-powers ----------------------===//
//
// Part of amp-mlir. convert-gpu-to-nvvm lowers math.fpowi to libdevice's
// __nv_powif(float, int) (__nv_powi for f64) and declares the callee from
// the op's own types. Frontends write the exponent as i64 (torch-mlir's
// `x ** 3`, GPT-2's tanh GELU), so the kernel declared
// __nv_powif(f32, i64): the PTX passed the exponent in a 64-bit register
// pair through a call prototype, while libdevice's function reads its
// 32-bit `int` from the register before that pair, which nothing had set.
// On an H200 (GPU kit of d63d663) every GPT-2 row was off by 7% at every
// level, O0 included; the CPU and the GPU simulator, whose host
// __nv_powif(float, int) gets the low half of the i64 by the x86-64
// calling convention, computed x^3.
//
// So before convert-gpu-to-nvvm, in GPU modules, math.fpowi's exponent
// becomes libdevice's int: a constant one an i32 constant, any other
// sign-extended if narrower, or clamped to [INT32_MIN, INT32_MAX] keeping
// its parity if wider (beyond 2^31 an f32 power is 0, +-1, +-inf or NaN
// either way; an f64 one differs only for a base within about 2^-21 of 1).
// The call, its result and what the simulator counts stay as they were.
//
//===----------------------------------------------------------------------===//

#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include <cstdint>
#include <limits>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPGPUINTEGERPOWERSPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr int64_t kMax = std::numeric_limits<int32_t>::max(); // odd
constexpr int64_t kMin = std::numeric_limits<int32_t>::min(); // even

/// `type` with element type `element` (a vector keeps its shape).
Type withElementType(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

/// A constant of `type` (a scalar, or a splat vector) equal to `value`.
Value constantOf(OpBuilder &b, Location loc, Type type, TypedAttr value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, vector,
                                     DenseElementsAttr::get(vector, value));
  return arith::ConstantOp::create(b, loc, type, value);
}

Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return constantOf(b, loc, type,
                    b.getIntegerAttr(getElementTypeOrSelf(type), value));
}

/// `n` (any integer width) as libdevice's int: sign-extended if narrower,
/// clamped to [INT32_MIN, INT32_MAX] keeping its parity if wider.
Value exponentAsI32(OpBuilder &b, Location loc, Value n) {
  Type type = n.getType();
  unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  Type i32 = withElementType(type, b.getI32Type());
  if (width < 32)
    return arith::ExtSIOp::create(b, loc, i32, n);
  Value max = intConstant(b, loc, type, kMax);
  Value maxEven = intConstant(b, loc, type, kMax - 1);
  Value min = intConstant(b, loc, type, kMin);
  Value minOdd = intConstant(b, loc, type, kMin + 1);
  Type i1 = withElementType(type, b.getI1Type());
  Value odd = arith::TruncIOp::create(b, loc, i1, n);
  Value above =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n, max);
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n, min);
  Value high = arith::SelectOp::create(b, loc, odd, max, maxEven);
  Value low = arith::SelectOp::create(b, loc, odd, minOdd, min);
  Value inRange = arith::SelectOp::create(b, loc, below, low, n);
  Value clamped = arith::SelectOp::create(b, loc, above, high, inRange);
  return arith::TruncIOp::create(b, loc, i32, clamped);
}

/// `op`'s exponent as libdevice's int, or null if it is one already.
Value exponentFor(OpBuilder &b, math::FPowIOp op) {
  Value n = op.getRhs();
  Type type = n.getType();
  if (getElementTypeOrSelf(type).isInteger(32))
    return {};
  Location loc = op.getLoc();
  APInt constant;
  if (matchPattern(n, m_ConstantInt(&constant))) {
    int64_t value = constant.getSignificantBits() <= 32
                        ? constant.getSExtValue()
                    : constant.isNegative() ? (constant[0] ? kMin + 1 : kMin)
                                            : (constant[0] ? kMax : kMax - 1);
    return intConstant(b, loc, withElementType(type, b.getI32Type()), value);
  }
  return exponentAsI32(b, loc, n);
}

struct AmpGpuIntegerPowersPass
    : public amp::impl::AmpGpuIntegerPowersPassBase<AmpGpuIntegerPowersPass> {
  void runOnOperation() override {
    getOperation()->walk([&](math::FPowIOp op) {
      OpBuilder b(op);
      if (Value exponent = exponentFor(b, op))
        op.getRhsMutable().assign(exponent);
    });
  }
};

} // namespace
