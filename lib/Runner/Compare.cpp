//===- Compare.cpp - comparison and printing ------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"
#include "amp/Runner/Npy.h"
#include "amp/Runner/Runner.h"
#include "amp/runtime/AmpRuntime.h"

#include "GpuRuntime.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>

using namespace mlir;
using namespace mlir::amp::runner;
using namespace mlir::amp::runner::detail;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Comparison and printing
//===----------------------------------------------------------------------===//

ErrorStats amp::runner::compareTensors(const HostTensor &value,
                                       const HostTensor &reference) {
  assert(value.getType() == reference.getType() && "comparing unlike tensors");
  ErrorStats stats;
  double squaredError = 0, squaredReference = 0;
  for (int64_t i = 0, e = value.getNumElements(); i < e; ++i) {
    double a = value.getAsDouble(i);
    double b = reference.getAsDouble(i);
    if (!std::isfinite(a) || !std::isfinite(b)) {
      if ((std::isnan(a) && std::isnan(b)) || a == b)
        ++stats.nonFiniteEqual;
      else
        ++stats.nonFiniteMismatch;
      continue;
    }
    double difference = std::fabs(a - b);
    stats.maxAbs = std::max(stats.maxAbs, difference);
    if (b != 0)
      stats.maxRel = std::max(stats.maxRel, difference / std::fabs(b));
    squaredError += difference * difference;
    squaredReference += b * b;
  }
  if (squaredReference > 0)
    stats.relL2 = std::sqrt(squaredError / squaredReference);
  else
    stats.relL2 = squaredError > 0 ? INFINITY : 0.0;
  return stats;
}

double amp::runner::median(ArrayRef<double> values) {
  if (values.empty())
    return 0;
  SmallVector<double> sorted(values.begin(), values.end());
  llvm::sort(sorted);
  size_t middle = sorted.size() / 2;
  if (sorted.size() % 2)
    return sorted[middle];
  return (sorted[middle - 1] + sorted[middle]) / 2;
}

namespace {
/// NumPy-like printing of a HostTensor.
class ValuePrinter {
public:
  ValuePrinter(const HostTensor &tensor, int64_t threshold, int64_t edgeItems)
      : tensor(tensor), shape(tensor.getType().shape), edgeItems(edgeItems),
        summarize(tensor.getNumElements() > threshold) {
    strides.assign(shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
    // Pad every element to the widest printed one.
    forEachShown(0, 0, [&](int64_t index) {
      width = std::max(width, format(index).size());
    });
  }

  void print(llvm::raw_ostream &os) {
    if (shape.empty()) {
      os << format(0);
      return;
    }
    printDimension(os, 0, 0);
  }

private:
  std::string format(int64_t index) const {
    double value = tensor.getAsDouble(index);
    if (!isFloatKind(tensor.getType().element))
      return std::to_string(static_cast<long long>(value));
    if (std::isnan(value))
      return "nan";
    if (std::isinf(value))
      return value > 0 ? "inf" : "-inf";
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%.6g", value);
    return text;
  }

  /// The indices shown along a dimension of `size` (-1 marks the ellipsis).
  SmallVector<int64_t> shownIndices(int64_t size) const {
    SmallVector<int64_t> indices;
    if (!summarize || size <= 2 * edgeItems) {
      for (int64_t i = 0; i < size; ++i)
        indices.push_back(i);
      return indices;
    }
    for (int64_t i = 0; i < edgeItems; ++i)
      indices.push_back(i);
    indices.push_back(-1);
    for (int64_t i = size - edgeItems; i < size; ++i)
      indices.push_back(i);
    return indices;
  }

  void forEachShown(size_t dimension, int64_t base,
                    llvm::function_ref<void(int64_t)> callback) const {
    if (dimension == shape.size())
      return callback(base);
    for (int64_t i : shownIndices(shape[dimension]))
      if (i >= 0)
        forEachShown(dimension + 1, base + i * strides[dimension], callback);
  }

  void printDimension(llvm::raw_ostream &os, size_t dimension, int64_t base) {
    os << '[';
    SmallVector<int64_t> indices = shownIndices(shape[dimension]);
    bool last = dimension + 1 == shape.size();
    for (auto [position, i] : llvm::enumerate(indices)) {
      if (position > 0) {
        if (last) {
          os << ' ';
        } else {
          for (size_t blank = dimension + 1; blank < shape.size(); ++blank)
            os << '\n';
          os.indent(dimension + 1);
        }
      }
      if (i < 0) {
        os << "...";
        continue;
      }
      if (last) {
        std::string text = format(base + i);
        os.indent(width - text.size()) << text;
      } else {
        printDimension(os, dimension + 1, base + i * strides[dimension]);
      }
    }
    os << ']';
  }

  const HostTensor &tensor;
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> strides;
  int64_t edgeItems;
  bool summarize;
  size_t width = 0;
};
} // namespace

void amp::runner::printValues(llvm::raw_ostream &os, const HostTensor &tensor,
                              int64_t threshold, int64_t edgeItems) {
  ValuePrinter(tensor, threshold, edgeItems).print(os);
}
