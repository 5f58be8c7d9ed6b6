//===- Inputs.cpp - random and .npy inputs --------------------------------===//
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
// Inputs
//===----------------------------------------------------------------------===//

TensorSpec amp::runner::withDynamicSize(const TensorSpec &type,
                                        int64_t dynamicSize) {
  TensorSpec result = type;
  for (int64_t &size : result.shape)
    if (size == TensorSpec::kDynamicDim)
      size = dynamicSize;
  return result;
}

SmallVector<HostTensor>
amp::runner::makeRandomInputs(const Signature &signature, uint64_t seed,
                              int64_t dynamicSize) {
  std::mt19937_64 generator(seed);
  SmallVector<HostTensor> inputs;
  for (const TensorSpec &declared : signature.arguments) {
    TensorSpec type = withDynamicSize(declared, dynamicSize);
    HostTensor tensor(type);
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      uint64_t bits = generator();
      if (isFloatKind(type.element)) {
        double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;
        double value = 2.0 * unit - 1.0;
        if (type.element != ElementKind::F64)
          value = static_cast<float>(value);
        tensor.setFromDouble(i, value);
      } else {
        tensor.setFromDouble(i, static_cast<double>(bits % 10));
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

Expected<HostTensor> amp::runner::loadInput(StringRef path,
                                            const Signature &signature,
                                            unsigned index) {
  const TensorSpec &expected = signature.arguments[index];
  std::string what = ("argument #" + llvm::Twine(index) + " of '@" +
                      signature.name + "' is " + expected.str())
                         .str();
  Expected<NpyArray> array = readNpy(path);
  if (!array)
    return makeError(llvm::toString(array.takeError()) + " (" + what + ")");

  // The descriptors accepted for this argument.
  SmallVector<StringRef, 2> accepted;
  if (std::optional<StringRef> descr = getNpyDescr(expected.element))
    accepted.push_back(*descr);
  if (expected.element == ElementKind::F16 ||
      expected.element == ElementKind::BF16)
    accepted.push_back("<f4");
  std::string acceptedText;
  for (StringRef descr : accepted)
    acceptedText += (acceptedText.empty() ? "'" : " or '") + descr.str() +
                    "' (" + describeNpyDescr(descr) + ")";

  std::optional<ElementKind> kind = array->getElementKind();
  bool dtypeOk = llvm::is_contained(accepted, array->descr);
  // The call's type: the file's shape where the signature has `?`.
  TensorSpec given{expected.element, array->shape};
  bool shapeOk = expected.accepts(given);
  if (!dtypeOk || !shapeOk) {
    std::string found = "found shape " + formatNpyShape(array->shape) +
                        " and dtype '" + array->descr + "' (" +
                        describeNpyDescr(array->descr) + ")";
    std::string message = path.str() + ": " + what + ", " + found;
    if (!dtypeOk)
      message += "; the dtype must be " + acceptedText;
    if (!dtypeOk && kind && isFloatKind(*kind) &&
        expected.element != ElementKind::F64 && *kind == ElementKind::F64)
      message += " (amp-run does not narrow float64 silently: convert with "
                 "astype(numpy.float32))";
    return makeError(message);
  }

  HostTensor tensor(given);
  if (*kind == expected.element) {
    std::memcpy(tensor.getData(), array->data.data(), tensor.getByteSize());
  } else {
    // '<f4' for an f16/bf16 argument: round to nearest even.
    const char *data = array->data.data();
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      float value;
      std::memcpy(&value, data + i * sizeof(float), sizeof(float));
      tensor.setFromDouble(i, value);
    }
  }
  return std::move(tensor);
}

Expected<SmallVector<HostTensor>>
amp::runner::loadInputs(ArrayRef<std::string> paths,
                        const Signature &signature) {
  if (paths.size() != signature.arguments.size()) {
    std::string types;
    for (const TensorSpec &type : signature.arguments)
      types += (types.empty() ? "" : ", ") + type.str();
    return makeError(
        "'@" + signature.name + "' takes " +
        llvm::Twine(signature.arguments.size()) + " argument" +
        (signature.arguments.size() == 1 ? "" : "s") + " (" +
        (types.empty() ? std::string("none") : types) +
        ") but --inputs gives " + llvm::Twine(paths.size()) + " file" +
        (paths.size() == 1 ? "" : "s") +
        (paths.empty() ? "" : " (" + llvm::join(paths, ", ") + ")"));
  }
  SmallVector<HostTensor> inputs;
  for (auto [index, path] : llvm::enumerate(paths)) {
    Expected<HostTensor> tensor = loadInput(path, signature, index);
    if (!tensor)
      return tensor.takeError();
    inputs.push_back(std::move(*tensor));
  }
  return std::move(inputs);
}
