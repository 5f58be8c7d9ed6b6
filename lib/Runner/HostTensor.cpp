//===- HostTensor.cpp - host tensors of amp-run ---------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Runner/HostTensor.h"
#include "amp/runtime/AmpRuntime.h"

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
  case ElementKind::I1:
    return "i1";
  }
  llvm_unreachable("unknown element kind");
}

unsigned amp::runner::getElementByteSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
    return 1; // One byte per element in memory, as LLVM stores i1.
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
  return kind != ElementKind::I32 && kind != ElementKind::I64 &&
         kind != ElementKind::I1;
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
  if (type.isSignlessInteger(1))
    return ElementKind::I1;
  return std::nullopt;
}

int64_t TensorSpec::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

bool TensorSpec::hasStaticShape() const {
  return llvm::none_of(shape, [](int64_t size) { return size < 0; });
}

bool TensorSpec::accepts(const TensorSpec &other) const {
  if (element != other.element || shape.size() != other.shape.size())
    return false;
  for (auto [expected, given] : llvm::zip(shape, other.shape))
    if (expected != kDynamicDim && expected != given)
      return false;
  return true;
}

size_t TensorSpec::getByteSize() const {
  return static_cast<size_t>(getNumElements()) * getElementByteSize(element);
}

std::string TensorSpec::str() const {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << "tensor<";
  for (int64_t size : shape) {
    if (size == kDynamicDim)
      os << '?';
    else
      os << size;
    os << 'x';
  }
  os << getElementKindName(element) << '>';
  return result;
}

std::optional<TensorSpec> amp::runner::getTensorSpec(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getEncoding())
    return std::nullopt;
  std::optional<ElementKind> kind = getElementKind(tensor.getElementType());
  if (!kind)
    return std::nullopt;
  TensorSpec result;
  result.element = *kind;
  for (int64_t size : tensor.getShape())
    result.shape.push_back(ShapedType::isDynamic(size) ? TensorSpec::kDynamicDim
                                                       : size);
  return result;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

HostTensor::HostTensor(TensorSpec tensorType) : type(std::move(tensorType)) {
  assert(type.hasStaticShape() && "a host tensor needs a static shape");
  size_t bytes = type.getByteSize();
  // aligned_alloc wants a multiple of the alignment; never allocate 0 bytes.
  size_t allocated = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  void *pointer = std::aligned_alloc(64, allocated);
  if (!pointer)
    llvm::report_fatal_error("amp-run: out of memory");
  std::memset(pointer, 0, allocated);
  allocation = pointer;
  deallocate = std::free;
  data = static_cast<uint8_t *>(pointer);
}

HostTensor::HostTensor(HostTensor &&other) noexcept
    : type(std::move(other.type)), allocation(other.allocation),
      deallocate(other.deallocate), data(other.data) {
  other.allocation = nullptr;
  other.data = nullptr;
}

HostTensor &HostTensor::operator=(HostTensor &&other) noexcept {
  if (this != &other) {
    release();
    type = std::move(other.type);
    allocation = other.allocation;
    deallocate = other.deallocate;
    data = other.data;
    other.allocation = nullptr;
    other.data = nullptr;
  }
  return *this;
}

HostTensor::~HostTensor() { release(); }

void HostTensor::release() {
  if (allocation)
    deallocate(allocation);
  allocation = nullptr;
  data = nullptr;
}

HostTensor HostTensor::borrow(TensorSpec type, const void *data) {
  assert(type.hasStaticShape() && "a host tensor needs a static shape");
  HostTensor tensor;
  tensor.type = std::move(type);
  tensor.data = static_cast<uint8_t *>(const_cast<void *>(data));
  return tensor;
}

HostTensor HostTensor::adopt(TensorSpec type, void *allocation, void *data,
                             void (*deallocate)(void *)) {
  assert(type.hasStaticShape() && "a host tensor needs a static shape");
  HostTensor tensor;
  tensor.type = std::move(type);
  tensor.allocation = allocation;
  tensor.deallocate = deallocate;
  tensor.data = static_cast<uint8_t *>(data);
  return tensor;
}

double HostTensor::getAsDouble(int64_t index) const {
  assert(index >= 0 && index < getNumElements() && "index out of range");
  const uint8_t *base = data;
  switch (type.element) {
  case ElementKind::F32:
    return reinterpret_cast<const float *>(base)[index];
  case ElementKind::F16:
    return ampF16ToF32(reinterpret_cast<const uint16_t *>(base)[index]);
  case ElementKind::BF16:
    return ampBF16ToF32(reinterpret_cast<const uint16_t *>(base)[index]);
  case ElementKind::F64:
    return reinterpret_cast<const double *>(base)[index];
  case ElementKind::I32:
    return reinterpret_cast<const int32_t *>(base)[index];
  case ElementKind::I64:
    return static_cast<double>(reinterpret_cast<const int64_t *>(base)[index]);
  case ElementKind::I1:
    return (base[index] & 1) ? 1.0 : 0.0;
  }
  llvm_unreachable("unknown element kind");
}

void HostTensor::setFromDouble(int64_t index, double value) {
  assert(index >= 0 && index < getNumElements() && "index out of range");
  uint8_t *base = data;
  switch (type.element) {
  case ElementKind::F32:
    reinterpret_cast<float *>(base)[index] = static_cast<float>(value);
    return;
  case ElementKind::F16:
    reinterpret_cast<uint16_t *>(base)[index] =
        ampF32ToF16(static_cast<float>(value));
    return;
  case ElementKind::BF16:
    reinterpret_cast<uint16_t *>(base)[index] =
        ampF32ToBF16(static_cast<float>(value));
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
  case ElementKind::I1:
    base[index] = value != 0.0 ? 1 : 0;
    return;
  }
  llvm_unreachable("unknown element kind");
}

HostTensor HostTensor::clone() const {
  HostTensor copy(type);
  if (data && getByteSize() > 0)
    std::memcpy(copy.getData(), getData(), getByteSize());
  return copy;
}
