//===- HostTensor.h - host tensors of amp-run -------------------*- C++ -*-===//
//
// Part of amp-mlir. The values amp-run passes to and gets back from a compiled
// function: dense, row-major host buffers of a static tensor type, with exact
// conversions between f32 and f16/bf16 (round to nearest even).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNNER_HOSTTENSOR_H
#define AMP_RUNNER_HOSTTENSOR_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
class Type;

namespace amp {
namespace runner {

/// The element types amp-run can pass in and out.
enum class ElementKind : uint8_t { F32, F16, BF16, F64, I32, I64, I1 };

/// "f32", "f16", "bf16", "f64", "i32", "i64".
StringRef getElementKindName(ElementKind kind);
/// Size of one element in bytes.
unsigned getElementByteSize(ElementKind kind);
/// True for the floating-point kinds.
bool isFloatKind(ElementKind kind);
/// The kind of an MLIR element type, if amp-run supports it.
std::optional<ElementKind> getElementKind(Type type);

/// A ranked tensor type. In a signature, a dimension may be dynamic
/// (kDynamicDim, MLIR's `?`); the tensors of a call have static shapes.
struct TensorSpec {
  /// The size of a dynamic dimension (`?`).
  static constexpr int64_t kDynamicDim = -1;

  ElementKind element = ElementKind::F32;
  SmallVector<int64_t> shape;

  /// The number of elements of a static shape.
  int64_t getNumElements() const;
  size_t getByteSize() const;
  /// True when no dimension is dynamic.
  bool hasStaticShape() const;
  /// True when `other` (of static shape) is an instance of this type: the
  /// same element type and rank, and the same size where this type's is
  /// static.
  bool accepts(const TensorSpec &other) const;
  /// The MLIR spelling: `tensor<8x16xf32>`, `tensor<?x16xf32>`,
  /// `tensor<f32>`.
  std::string str() const;

  bool operator==(const TensorSpec &other) const {
    return element == other.element && shape == other.shape;
  }
  bool operator!=(const TensorSpec &other) const { return !(*this == other); }
};

/// The tensor type of an MLIR type (a ranked tensor without encoding, of a
/// supported element type; dynamic dimensions become kDynamicDim), or
/// std::nullopt.
std::optional<TensorSpec> getTensorSpec(Type type);

/// A dense row-major host buffer of a TensorSpec of static shape. It owns
/// its memory (made zero-initialized and 64-byte aligned, or adopted from
/// compiled code), or borrows the caller's. Move-only; `clone` copies.
class HostTensor {
public:
  HostTensor() = default;
  explicit HostTensor(TensorSpec type);
  HostTensor(HostTensor &&other) noexcept;
  HostTensor &operator=(HostTensor &&other) noexcept;
  ~HostTensor();

  /// A tensor over the caller's `data` (dense row-major, aligned to its
  /// element), which must outlive it; nothing is copied or freed. What
  /// writes through getData() writes the caller's memory: the runner hands
  /// borrowed inputs to compiled CPU code, which does not write its
  /// arguments (amp-read-only-arguments).
  static HostTensor borrow(TensorSpec type, const void *data);
  /// Takes over a block of compiled code (at `allocation`) whose elements
  /// start at `data`: it is released with `deallocate` (the allocator's
  /// free: libamp_runtime's _mlir_memref_to_llvm_free, which keeps large
  /// blocks for the next call, or libc's).
  static HostTensor adopt(TensorSpec type, void *allocation, void *data,
                          void (*deallocate)(void *));

  const TensorSpec &getType() const { return type; }
  int64_t getNumElements() const { return type.getNumElements(); }
  size_t getByteSize() const { return type.getByteSize(); }
  void *getData() { return data; }
  const void *getData() const { return data; }

  /// Element `index` (row-major), widened to double (exact for every kind but
  /// i64 beyond 2^53).
  double getAsDouble(int64_t index) const;
  /// Stores `value` at `index`: floats are rounded to nearest even (f16/bf16
  /// through f32), integers are truncated toward zero.
  void setFromDouble(int64_t index, double value);

  /// A copy that owns its memory.
  HostTensor clone() const;

private:
  void release();

  TensorSpec type;
  /// The block to free (null: nothing, or borrowed), and how.
  void *allocation = nullptr;
  void (*deallocate)(void *) = nullptr;
  uint8_t *data = nullptr;
};

} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_RUNNER_HOSTTENSOR_H
