//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of amp-mlir. A small reader and writer of NumPy's .npy format (versions
// 1.0, 2.0 and 3.0), for the little-endian, C-ordered arrays amp-run
// exchanges: '<f4', '<f2', '<f8', '<i4', '<i8'.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNNER_NPY_H
#define AMP_RUNNER_NPY_H

#include "amp/Runner/HostTensor.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
namespace amp {
namespace runner {

/// The contents of a .npy file.
struct NpyArray {
  /// The dtype descriptor as written in the file ('<f4'; '=' is normalized to
  /// '<' on little-endian hosts).
  std::string descr;
  SmallVector<int64_t> shape;
  /// Raw element bytes, C order.
  std::vector<char> data;

  int64_t getNumElements() const;
  /// The element kind of `descr`, if amp-run supports it.
  std::optional<ElementKind> getElementKind() const;
};

/// Parses the .npy image `buffer`; errors name `name`. Rejects big-endian,
/// Fortran-ordered, structured and truncated arrays.
llvm::Expected<NpyArray> parseNpy(StringRef buffer, StringRef name);

/// Reads the .npy file at `path`.
llvm::Expected<NpyArray> readNpy(StringRef path);

/// The dtype descriptor of `kind` ('<f4', '<f2', '<f8', '<i4', '<i8'); bf16
/// has none (NumPy has no bfloat16).
std::optional<StringRef> getNpyDescr(ElementKind kind);

/// NumPy's name of a descriptor, for messages: '<f4' -> "float32".
std::string describeNpyDescr(StringRef descr);

/// NumPy's spelling of a shape: (8, 16), (8,), ().
std::string formatNpyShape(ArrayRef<int64_t> shape);

/// Serializes an array (version 1.0, or 2.0 if the header needs it).
std::string serializeNpy(StringRef descr, ArrayRef<int64_t> shape,
                         const void *data, size_t byteSize);

/// Writes `tensor` to `path`: f32, f16, f64, i32 and i64 as themselves, bf16
/// widened (exactly) to '<f4'.
llvm::Error writeNpy(StringRef path, const HostTensor &tensor);

} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_RUNNER_NPY_H
