//===- HostTensor.cpp - host tensors of amp-run ---------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::amp::runner;

StringRef amp::runner::getElementKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return "f32";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F64:
    return "f64";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  }
  llvm_unreachable("unknown element kind");
}

unsigned amp::runner::getElementByteSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F64:
  case ElementKind::I64:
    return 8;
  }
  llvm_unreachable("unknown element kind");
}

bool amp::runner::isFloatKind(ElementKind kind) {
  return kind != ElementKind::I32 && kind != ElementKind::I64;
}

std::optional<ElementKind> amp::runner::getElementKind(Type type) {
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF64())
    return ElementKind::F64;
  // Signless or signed integers; unsigned ones would need other npy types.
  if (type.isSignlessInteger(32) || type.isSignedInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(64) || type.isSignedInteger(64))
    return ElementKind::I64;
  return std::nullopt;
}

int64_t TensorSpec::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

size_t TensorSpec::getByteSize() const {
  return static_cast<size_t>(getNumElements()) * getElementByteSize(element);
}

std::string TensorSpec::str() const {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << "tensor<";
  for (int64_t size : shape)
    os << size << 'x';
  os << getElementKindName(element) << '>';
  return result;
}

std::optional<TensorSpec> amp::runner::getTensorSpec(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding())
    return std::nullopt;
  std::optional<ElementKind> kind = getElementKind(tensor.getElementType());
  if (!kind)
    return std::nullopt;
  TensorSpec result;
  result.element = *kind;
  result.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  return result;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

static uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Shifts `value` right by `shift` (1..31) bits, rounding to nearest even.
static uint32_t shiftRightRoundEven(uint32_t value, unsigned shift) {
  uint32_t result = value >> shift;
  uint32_t rest = value & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (result & 1)))
    ++result;
  return result;
}

uint16_t amp::runner::floatToHalfBits(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude >= 0x7f800000) {
    // Infinity, or NaN (quiet, keeping the top payload bits).
    if (magnitude == 0x7f800000)
      return sign | 0x7c00;
    return sign | 0x7e00 | ((magnitude >> 13) & 0x3ff);
  }
  if (magnitude >= 0x47800000) // >= 2^16: beyond any rounding to 65504.
    return sign | 0x7c00;
  uint32_t exponent = magnitude >> 23;
  if (exponent < 113) {
    // Below 2^-14: a half subnormal (in units of 2^-24), or zero.
    if (exponent < 102) // < 2^-25: rounds to zero.
      return sign;
    uint32_t mantissa = (magnitude & 0x7fffff) | 0x800000;
    // A carry into bit 10 gives the smallest normal, as it should.
    return sign |
           static_cast<uint16_t>(shiftRightRoundEven(mantissa, 126 - exponent));
  }
  // Normal: rebias the exponent, round the mantissa; a carry propagates into
  // the exponent (up to infinity for [65520, 65536)).
  uint32_t rebased = ((exponent - 112) << 23) | (magnitude & 0x7fffff);
  return sign | static_cast<uint16_t>(shiftRightRoundEven(rebased, 13));
}

float amp::runner::halfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return bitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t amp::runner::floatToBFloat16Bits(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x40); // quiet NaN
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float amp::runner::bfloat16BitsToFloat(uint16_t bits) {
  return bitsToFloat(static_cast<uint32_t>(bits) << 16);
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

HostTensor::HostTensor(TensorSpec tensorType) : type(std::move(tensorType)) {
  size_t bytes = type.getByteSize();
  // aligned_alloc wants a multiple of the alignment; never allocate 0 bytes.
  size_t allocated = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  void *pointer = std::aligned_alloc(64, allocated);
  if (!pointer)
    llvm::report_fatal_error("amp-run: out of memory");
  std::memset(pointer, 0, allocated);
  storage.reset(static_cast<uint8_t *>(pointer));
}

double HostTensor::getAsDouble(int64_t index) const {
  assert(index >= 0 && index < getNumElements() && "index out of range");
  const uint8_t *base = storage.get();
  switch (type.element) {
  case ElementKind::F32:
    return reinterpret_cast<const float *>(base)[index];
  case ElementKind::F16:
    return halfBitsToFloat(reinterpret_cast<const uint16_t *>(base)[index]);
  case ElementKind::BF16:
    return bfloat16BitsToFloat(reinterpret_cast<const uint16_t *>(base)[index]);
  case ElementKind::F64:
    return reinterpret_cast<const double *>(base)[index];
  case ElementKind::I32:
    return reinterpret_cast<const int32_t *>(base)[index];
  case ElementKind::I64:
    return static_cast<double>(reinterpret_cast<const int64_t *>(base)[index]);
  }
  llvm_unreachable("unknown element kind");
}

void HostTensor::setFromDouble(int64_t index, double value) {
  assert(index >= 0 && index < getNumElements() && "index out of range");
  uint8_t *base = storage.get();
  switch (type.element) {
  case ElementKind::F32:
    reinterpret_cast<float *>(base)[index] = static_cast<float>(value);
    return;
  case ElementKind::F16:
    reinterpret_cast<uint16_t *>(base)[index] =
        floatToHalfBits(static_cast<float>(value));
    return;
  case ElementKind::BF16:
    reinterpret_cast<uint16_t *>(base)[index] =
        floatToBFloat16Bits(static_cast<float>(value));
    return;
  case ElementKind::F64:
    reinterpret_cast<double *>(base)[index] = value;
    return;
  case ElementKind::I32:
    reinterpret_cast<int32_t *>(base)[index] = static_cast<int32_t>(value);
    return;
  case ElementKind::I64:
    reinterpret_cast<int64_t *>(base)[index] = static_cast<int64_t>(value);
    return;
  }
  llvm_unreachable("unknown element kind");
}

HostTensor HostTensor::clone() const {
  HostTensor copy(type);
  if (storage)
    std::memcpy(copy.getData(), getData(), getByteSize());
  return copy;
}
