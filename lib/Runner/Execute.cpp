//===- Execute.cpp - calling JIT-compiled functions -----------------------===//
//
// Part of amp-mlir. The calling convention is the one --lower-to-cpu's C
// interface gives every function (`llvm.emit_c_interface`):
//
//   void _mlir_ciface_f(R *results, D0 *arg0, D1 *arg1, ...)
//
// where each Dk is a memref descriptor {allocated, aligned, offset,
// sizes[rank], strides[rank]} (pointers and i64, no padding), and R is the
// descriptor of the single result or a struct of the descriptors of several
// results, laid out one after the other; without results there is no R.
// Results are fresh allocations the caller owns (the ownership-based
// deallocation pipeline clones what it does not own before returning it;
// the GPU's device arguments may come back). For the GPU, arguments and
// results hold device pointers.
//
// On the CPU nothing is copied around a call: the arguments' descriptors
// point into the caller's memory, which --lower-to-cpu's code does not
// write (amp-read-only-arguments), and a result that is a dense block of
// its own is handed to the caller as it is (HostTensor::adopt). Only a
// result whose block holds another result too (one value returned twice)
// or that is not dense is copied out.
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
#include "llvm/ADT/DenseMap.h"
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
// Execution
//===----------------------------------------------------------------------===//

/// The words of a memref descriptor of `type` over `pointer`: allocated,
/// aligned, offset, sizes, strides (row-major).
static SmallVector<int64_t> makeDescriptor(void *pointer,
                                           const TensorSpec &type) {
  SmallVector<int64_t> words;
  words.push_back(reinterpret_cast<intptr_t>(pointer));
  words.push_back(reinterpret_cast<intptr_t>(pointer));
  words.push_back(0);
  words.append(type.shape.begin(), type.shape.end());
  SmallVector<int64_t> strides(type.shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(type.shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.shape[i + 1];
  words.append(strides.begin(), strides.end());
  return words;
}

static size_t getDescriptorWords(const TensorSpec &type) {
  return 3 + 2 * type.shape.size();
}

/// A device buffer that outlives a call: freed when its last DeviceTensor
/// goes.
struct DeviceTensor::Storage {
  GpuRuntime *gpu = nullptr;
  void *pointer = nullptr;
  Storage(GpuRuntime *gpu, void *pointer) : gpu(gpu), pointer(pointer) {}
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  ~Storage() {
    if (pointer)
      gpu->deallocate(pointer);
  }
};

void *DeviceTensor::getData() const {
  return storage ? storage->pointer : nullptr;
}

Expected<HostTensor> DeviceTensor::download() const {
  if (!storage)
    return makeError("an empty device tensor has no data");
  HostTensor tensor(type);
  if (tensor.getByteSize() > 0) {
    storage->gpu->copy(tensor.getData(), storage->pointer,
                       tensor.getByteSize());
    storage->gpu->synchronize();
  }
  if (llvm::Error error = storage->gpu->takeError())
    return std::move(error);
  return std::move(tensor);
}

struct Executable::CallFrame {
  /// The inputs (CPU): the caller's memory, or converted copies; or the
  /// device buffers holding them (GPU): those the frame uploaded (and
  /// frees), and the caller's device tensors by address.
  SmallVector<HostTensor> hostInputs;
  SmallVector<void *> deviceInputs;
  llvm::DenseMap<void *, std::shared_ptr<DeviceTensor::Storage>> residentInputs;
  SmallVector<SmallVector<int64_t>> inputDescriptors;
  SmallVector<void *> inputDescriptorPointers;
  SmallVector<int64_t> resultWords;
  void *resultPointer = nullptr;
  SmallVector<void *> packedArguments;
  /// Target::GpuSim: the live device buffers before the inputs were
  /// uploaded.
  int64_t liveBuffersBefore = 0;
};

llvm::Error Executable::prepare(ArrayRef<CallArgument> inputs,
                                CallFrame &frame) {
  if (gpu && !gpu->hasDevice())
    return makeError("'@" + signature.name +
                     "' was compiled without opening a device "
                     "(CompileOptions::openDevice): it cannot run");
  if (gpu && gpu->isSimulator())
    frame.liveBuffersBefore = gpu->getSimulatorStats().liveBuffers;
  ++copies.calls;
  if (inputs.size() != signature.arguments.size())
    return makeError("'@" + signature.name + "' takes " +
                     llvm::Twine(signature.arguments.size()) +
                     " arguments, got " + llvm::Twine(inputs.size()));
  for (auto [index, argument] : llvm::enumerate(inputs)) {
    const TensorSpec &declared = signature.arguments[index];
    const TensorSpec &callType = callArguments[index];
    if (argument.device) {
      // Used in place: it must be the call type (no conversion on the
      // device).
      const DeviceTensor &device = argument.device;
      if (!gpu)
        return makeError("argument #" + llvm::Twine(index) + " of '@" +
                         signature.name +
                         "' is a device tensor, but the function runs on the "
                         "CPU");
      if (device.storage->gpu != gpu)
        return makeError("argument #" + llvm::Twine(index) + " of '@" +
                         signature.name +
                         "' is a device tensor of another runtime");
      if (!callType.accepts(device.getType()))
        return makeError("argument #" + llvm::Twine(index) + " of '@" +
                         signature.name + "' is " + callType.str() +
                         ", got the device tensor " + device.getType().str());
      frame.residentInputs[device.getData()] = device.storage;
      frame.inputDescriptors.push_back(
          makeDescriptor(device.getData(), device.getType()));
      continue;
    }
    if (!argument.host)
      return makeError("argument #" + llvm::Twine(index) + " of '@" +
                       signature.name + "' is missing");
    const HostTensor &given = *argument.host;
    if (!declared.accepts(given.getType()) &&
        !callType.accepts(given.getType()))
      return makeError("argument #" + llvm::Twine(index) + " of '@" +
                       signature.name + "' is " + declared.str() + ", got " +
                       given.getType().str());
    // An argument arg-precision=low narrowed, given as declared: rounded to
    // nearest even here.
    TensorSpec type{callType.element, given.getType().shape};
    bool convert = given.getType().element != type.element;
    HostTensor converted;
    if (convert) {
      converted = HostTensor(type);
      for (int64_t i = 0, e = given.getNumElements(); i < e; ++i)
        converted.setFromDouble(i, given.getAsDouble(i));
    }
    if (convert)
      copies.inputBytes += given.getByteSize();
    const HostTensor &input = convert ? converted : given;
    void *pointer;
    if (gpu) {
      pointer = gpu->allocate(input.getByteSize());
      gpu->copy(pointer, input.getData(), input.getByteSize());
      frame.deviceInputs.push_back(pointer);
    } else {
      // The compiled code only reads its arguments: the caller's memory.
      frame.hostInputs.push_back(
          convert ? std::move(converted)
                  : HostTensor::borrow(given.getType(), given.getData()));
      pointer = frame.hostInputs.back().getData();
    }
    frame.inputDescriptors.push_back(makeDescriptor(pointer, type));
  }
  if (gpu) {
    // The uploads (from pageable memory) must not overlap a timed call.
    gpu->synchronize();
    if (llvm::Error error = gpu->takeError())
      return error;
  }

  size_t resultWords = 0;
  for (const TensorSpec &type : signature.results)
    resultWords += getDescriptorWords(type);
  frame.resultWords.assign(resultWords, 0);
  frame.resultPointer = frame.resultWords.data();
  for (SmallVector<int64_t> &descriptor : frame.inputDescriptors)
    frame.inputDescriptorPointers.push_back(descriptor.data());
  if (!signature.results.empty())
    frame.packedArguments.push_back(&frame.resultPointer);
  for (void *&pointer : frame.inputDescriptorPointers)
    frame.packedArguments.push_back(&pointer);
  return llvm::Error::success();
}

llvm::Error Executable::invoke(CallFrame &frame) {
  if (nanInfSite)
    *nanInfSite = -1;
  entryPoint(frame.packedArguments.data());
  if (gpu) {
    gpu->synchronize();
    if (llvm::Error error = gpu->takeError())
      return error;
  }
  if (host)
    if (llvm::Error error = host->takeError())
      return error;
  if (nanInfSite && *nanInfSite >= 0) {
    int32_t site = *nanInfSite;
    // "was produced by 'op' at ..." or "reached 'op' at ... from ...".
    std::string what = size_t(site) < nanInfSites.size()
                           ? nanInfSites[site]
                           : "was found by check #" + std::to_string(site);
    return makeError("check-nan-inf: the first Inf or NaN " + what);
  }
  return llvm::Error::success();
}

/// Copies the `type`-shaped, possibly strided memref at `base` (element
/// offset already applied) into `tensor`: one memcpy per run of the trailing
/// dimensions that are dense row-major (a single one for a dense result).
static void gatherStrided(const char *base, ArrayRef<int64_t> strides,
                          HostTensor &tensor) {
  const TensorSpec &type = tensor.getType();
  size_t elementSize = getElementByteSize(type.element);
  char *out = static_cast<char *>(tensor.getData());
  int64_t count = type.getNumElements();
  size_t outer = type.shape.size();
  int64_t run = 1;
  while (outer > 0 &&
         (type.shape[outer - 1] == 1 || strides[outer - 1] == run)) {
    run *= type.shape[outer - 1];
    --outer;
  }
  SmallVector<int64_t> index(outer, 0);
  for (int64_t linear = 0; linear < count; linear += run) {
    int64_t offset = 0;
    for (size_t d = 0; d < outer; ++d)
      offset += index[d] * strides[d];
    std::memcpy(out + linear * elementSize, base + offset * elementSize,
                run * elementSize);
    for (size_t d = outer; d-- > 0;) {
      if (++index[d] < type.shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Whether `strides` are the dense row-major ones of `sizes` (those of
/// unit dimensions do not matter).
static bool isDense(ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != expected)
      return false;
    expected *= sizes[d];
  }
  return true;
}

/// Whether a result's descriptor is a dense row-major buffer of its own
/// that starts at its allocation (what a DeviceTensor can stand for).
static bool isDenseAllocation(void *allocated, const char *aligned,
                              int64_t offset, ArrayRef<int64_t> sizes,
                              ArrayRef<int64_t> strides) {
  return allocated && aligned == allocated && offset == 0 &&
         isDense(sizes, strides);
}

Expected<SmallVector<CallResult>>
Executable::collect(CallFrame &frame, bool copyResults,
                    ArrayRef<bool> keepOnDevice) {
  SmallVector<CallResult> results;
  llvm::SmallPtrSet<void *, 8> toFree;
  llvm::SmallPtrSet<void *, 8> inputBuffers;
  for (HostTensor &input : frame.hostInputs)
    inputBuffers.insert(input.getData());
  for (void *pointer : frame.deviceInputs)
    inputBuffers.insert(pointer);
  for (auto &entry : frame.residentInputs)
    inputBuffers.insert(entry.first);
  // The buffers kept on the device, by address: the caller's device
  // arguments, and what this call hands over.
  llvm::DenseMap<void *, std::shared_ptr<DeviceTensor::Storage>> kept(
      frame.residentInputs);
  int64_t handedOver = 0;

  // How many results each block holds: one that holds a single result can
  // be handed over (CPU).
  llvm::DenseMap<void *, unsigned> holders;
  for (size_t index = 0, word = 0; index < signature.results.size(); ++index) {
    ++holders[reinterpret_cast<void *>(frame.resultWords[word])];
    word += getDescriptorWords(signature.results[index]);
  }

  std::string problem;
  size_t word = 0;
  for (auto [index, type] : llvm::enumerate(signature.results)) {
    const int64_t *descriptor = frame.resultWords.data() + word;
    word += getDescriptorWords(type);
    size_t rank = type.shape.size();
    void *allocated = reinterpret_cast<void *>(descriptor[0]);
    char *aligned = reinterpret_cast<char *>(descriptor[1]);
    int64_t offset = descriptor[2];
    ArrayRef<int64_t> sizes(descriptor + 3, rank);
    ArrayRef<int64_t> strides(descriptor + 3 + rank, rank);
    if (allocated && !inputBuffers.contains(allocated))
      toFree.insert(allocated);
    if (!copyResults || !problem.empty())
      continue;
    // Dynamic dimensions take the sizes the function returned.
    TensorSpec returned{type.element, SmallVector<int64_t>(sizes)};
    if (!type.accepts(returned) ||
        llvm::any_of(sizes, [](int64_t size) { return size < 0; }) ||
        (!aligned && returned.getNumElements() > 0)) {
      problem = ("result #" + llvm::Twine(index) +
                 " came back with an unexpected descriptor")
                    .str();
      continue;
    }
    CallResult result;
    if (gpu && index < keepOnDevice.size() && keepOnDevice[index] &&
        isDenseAllocation(allocated, aligned, offset, sizes, strides)) {
      std::shared_ptr<DeviceTensor::Storage> &storage = kept[allocated];
      if (!storage) {
        storage = std::make_shared<DeviceTensor::Storage>(gpu, allocated);
        ++handedOver;
      }
      result.device.storage = storage;
      result.device.type = returned;
      results.push_back(std::move(result));
      continue;
    }
    size_t elementSize = getElementByteSize(type.element);
    if (!gpu && toFree.contains(allocated) && holders[allocated] == 1 &&
        isDense(sizes, strides)) {
      // A block of its own: the caller's now, as it is.
      toFree.erase(allocated);
      result.host = HostTensor::adopt(
          returned, allocated, aligned + offset * elementSize, freeHostBlock);
      results.push_back(std::move(result));
      continue;
    }
    HostTensor tensor(returned);
    copies.resultBytes += tensor.getByteSize();
    if (returned.getNumElements() > 0) {
      const char *base = aligned + offset * elementSize;
      if (gpu) {
        // Copy the whole span the strides reach, then gather on the host.
        int64_t span = 1;
        for (size_t d = 0; d < rank; ++d)
          span += (sizes[d] - 1) * strides[d];
        std::vector<char> staging(span * elementSize);
        gpu->copy(staging.data(), base, staging.size());
        gpu->synchronize();
        gatherStrided(staging.data(), strides, tensor);
      } else {
        gatherStrided(base, strides, tensor);
      }
    }
    result.host = std::move(tensor);
    results.push_back(std::move(result));
  }

  // What a device tensor now holds is not freed here: a result's buffer
  // handed over, or an uploaded input a kept result returns.
  for (void *pointer : toFree)
    if (!kept.count(pointer)) {
      if (gpu)
        gpu->deallocate(pointer);
      else
        freeHostBlock(pointer);
    }
  for (void *pointer : frame.deviceInputs)
    if (!kept.count(pointer))
      gpu->deallocate(pointer);
  frame.deviceInputs.clear();
  frame.residentInputs.clear();
  if (gpu)
    if (llvm::Error error = gpu->takeError())
      return std::move(error);
  // The simulator knows every device buffer: what the call allocated and
  // neither freed nor returned is a leak (the buffers it handed over to
  // device tensors are the caller's).
  if (gpu && gpu->isSimulator())
    if (llvm::Error error =
            gpu->checkLiveBuffers(frame.liveBuffersBefore + handedOver))
      return std::move(error);
  if (!problem.empty())
    return makeError(problem);
  return std::move(results);
}

HostCopyStats Executable::getHostCopyStats() const {
  HostCopyStats stats;
  stats.calls = copies.calls.load();
  stats.inputBytes = copies.inputBytes.load();
  stats.resultBytes = copies.resultBytes.load();
  return stats;
}

Expected<SimulatorStats> Executable::getSimulatorStats() const {
  if (!gpu || !gpu->isSimulator())
    return makeError("not compiled for the GPU simulator (target gpu-sim)");
  SimulatorStats stats = gpu->getSimulatorStats();
  if (llvm::Error error = gpu->takeError())
    return std::move(error);
  return stats;
}

llvm::Error Executable::resetSimulatorStats() {
  if (!gpu || !gpu->isSimulator())
    return makeError("not compiled for the GPU simulator (target gpu-sim)");
  gpu->resetSimulatorStats();
  return gpu->takeError();
}

Expected<SimulatorEstimate>
Executable::getSimulatorEstimate(StringRef chip) const {
  if (!gpu || !gpu->isSimulator())
    return makeError("not compiled for the GPU simulator (target gpu-sim)");
  return gpu->getSimulatorEstimate(chip);
}

/// Host arguments for prepare().
static SmallVector<CallArgument> hostArguments(ArrayRef<HostTensor> inputs) {
  SmallVector<CallArgument> arguments;
  for (const HostTensor &input : inputs)
    arguments.push_back({&input, {}});
  return arguments;
}

Expected<SmallVector<HostTensor>> Executable::run(ArrayRef<HostTensor> inputs) {
  Expected<SmallVector<CallResult>> results = call(hostArguments(inputs), {});
  if (!results)
    return results.takeError();
  SmallVector<HostTensor> tensors;
  for (CallResult &result : *results)
    tensors.push_back(std::move(result.host));
  return std::move(tensors);
}

Expected<SmallVector<CallResult>>
Executable::call(ArrayRef<CallArgument> inputs, ArrayRef<bool> keepOnDevice) {
  if (!keepOnDevice.empty() && keepOnDevice.size() != signature.results.size())
    return makeError("'@" + signature.name + "' has " +
                     llvm::Twine(signature.results.size()) + " results, got " +
                     llvm::Twine(keepOnDevice.size()) +
                     " flags of which to keep on the device");
  if (!gpu && llvm::is_contained(keepOnDevice, true))
    return makeError("'@" + signature.name +
                     "' runs on the CPU: it has no device to keep results on");
  CallFrame frame;
  if (llvm::Error error = prepare(inputs, frame))
    return std::move(error);
  if (llvm::Error error = invoke(frame))
    return std::move(error);
  return collect(frame, /*copyResults=*/true, keepOnDevice);
}

Expected<SmallVector<double>> Executable::time(ArrayRef<HostTensor> inputs,
                                               unsigned repeat) {
  SmallVector<double> durations;
  SmallVector<CallArgument> arguments = hostArguments(inputs);
  for (unsigned i = 0; i <= repeat; ++i) {
    CallFrame frame;
    if (llvm::Error error = prepare(arguments, frame))
      return std::move(error);
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = invoke(frame))
      return std::move(error);
    auto end = std::chrono::steady_clock::now();
    Expected<SmallVector<CallResult>> released =
        collect(frame, /*copyResults=*/false, {});
    if (!released)
      return released.takeError();
    if (i > 0) // The first call warms up.
      durations.push_back(std::chrono::duration<double>(end - start).count());
  }
  return std::move(durations);
}

//===----------------------------------------------------------------------===//
// CUDA graphs
//===----------------------------------------------------------------------===//

CapturedCall::~CapturedCall() {
  if (graph)
    gpu->destroyGraph(graph);
}

DeviceTensor CapturedCall::getResult(size_t index) const {
  return feedback[index] >= 0 ? arguments[feedback[index]] : results[index];
}

llvm::Error CapturedCall::replay(ArrayRef<CallArgument> inputs) {
  if (inputs.size() != arguments.size())
    return makeError("the captured '@" + name + "' takes " +
                     llvm::Twine(arguments.size()) + " arguments, got " +
                     llvm::Twine(inputs.size()));
  for (auto [index, input] : llvm::enumerate(inputs)) {
    const TensorSpec &type = arguments[index].getType();
    const TensorSpec *given = input.device ? &input.device.getType()
                              : input.host ? &input.host->getType()
                                           : nullptr;
    if (!given)
      continue; // What the buffer holds: the state fed back.
    if (*given != type)
      return makeError("argument #" + llvm::Twine(index) +
                       " of the captured '@" + name + "' is " + type.str() +
                       ", got " + given->str() +
                       " (a CUDA graph replays the captured shapes)");
    const void *source =
        input.device ? input.device.getData() : input.host->getData();
    if (source != arguments[index].getData())
      gpu->copy(arguments[index].getData(), source, type.getByteSize());
  }
  if (llvm::Error error = gpu->takeError())
    return error;
  if (llvm::Error error = gpu->launchGraph(graph))
    return makeError("replaying the captured '@" + name +
                     "': " + llvm::toString(std::move(error)));
  return llvm::Error::success();
}

/// Checks the feedback of Executable::capture against the signature.
static llvm::Error checkFeedback(const Signature &signature,
                                 ArrayRef<TensorSpec> callArguments,
                                 ArrayRef<int64_t> feedback) {
  std::string where = "capturing '@" + signature.name + "': ";
  if (feedback.size() != signature.results.size())
    return makeError(where + "it has " + llvm::Twine(signature.results.size()) +
                     " results, got " + llvm::Twine(feedback.size()) +
                     " feedback entries");
  SmallVector<bool> fed(callArguments.size(), false);
  for (auto [index, argument] : llvm::enumerate(feedback)) {
    if (argument == -1)
      continue;
    std::string result = "result #" + std::to_string(index);
    if (argument < 0 || argument >= int64_t(callArguments.size()))
      return makeError(where + result + " feeds argument #" +
                       llvm::Twine(argument) + ", which does not exist");
    if (fed[argument])
      return makeError(where + "argument #" + llvm::Twine(argument) +
                       " is fed by two results");
    fed[argument] = true;
    if (signature.results[index].element != callArguments[argument].element)
      return makeError(where + result + " (" + signature.results[index].str() +
                       ") cannot feed argument #" + llvm::Twine(argument) +
                       " (" + callArguments[argument].str() + ")");
  }
  return llvm::Error::success();
}

Expected<std::unique_ptr<CapturedCall>>
Executable::capture(ArrayRef<CallArgument> inputs, ArrayRef<int64_t> feedback) {
  std::string where = "capturing '@" + signature.name + "' as a CUDA graph";
  if (!gpu)
    return makeError(where + ": it runs on the CPU (targets gpu and gpu-sim "
                             "capture graphs)");
  SmallVector<int64_t> fed(feedback);
  if (fed.empty())
    fed.assign(signature.results.size(), -1);
  if (llvm::Error error = checkFeedback(signature, callArguments, fed))
    return std::move(error);
  std::unique_ptr<CapturedCall> captured(new CapturedCall);
  captured->gpu = gpu;
  captured->name = signature.name;
  captured->feedback = fed;
  captured->engine = engine;
  auto fresh = [&](const TensorSpec &type) {
    DeviceTensor tensor;
    tensor.storage = std::make_shared<DeviceTensor::Storage>(
        gpu, gpu->allocate(type.getByteSize()));
    tensor.type = type;
    return tensor;
  };
  auto copyOf = [&](const DeviceTensor &tensor) {
    DeviceTensor copy = fresh(tensor.getType());
    gpu->copy(copy.getData(), tensor.getData(), tensor.getType().getByteSize());
    return CallArgument{nullptr, copy};
  };

  // The arguments' own buffers, holding the inputs (uploaded and converted
  // as a call does).
  {
    CallFrame upload;
    if (llvm::Error error = prepare(inputs, upload))
      return std::move(error);
    for (auto [index, input] : llvm::enumerate(inputs)) {
      TensorSpec type = input.device ? input.device.getType()
                                     : TensorSpec{callArguments[index].element,
                                                  input.host->getType().shape};
      DeviceTensor own = fresh(type);
      gpu->copy(own.getData(),
                reinterpret_cast<void *>(upload.inputDescriptors[index][1]),
                type.getByteSize());
      captured->arguments.push_back(own);
    }
    gpu->synchronize();
    for (void *pointer : upload.deviceInputs)
      gpu->deallocate(pointer);
  }

  // The warm-up, on copies: plans, workspaces and constants are made
  // outside the capture, and the results' shapes are known.
  SmallVector<CallArgument> copies;
  for (const DeviceTensor &argument : captured->arguments)
    copies.push_back(copyOf(argument));
  Expected<SmallVector<CallResult>> warm = call(copies, {});
  copies.clear();
  if (!warm)
    return makeError(where + ": the call before the capture failed: " +
                     llvm::toString(warm.takeError()));
  for (auto [index, result] : llvm::enumerate(*warm)) {
    const TensorSpec &type = result.host.getType();
    int64_t argument = fed[index];
    if (argument >= 0 && type != captured->arguments[argument].getType())
      return makeError(where + ": result #" + llvm::Twine(index) + " is " +
                       type.str() + ", but the argument #" +
                       llvm::Twine(argument) + " it feeds is " +
                       captured->arguments[argument].getType().str());
    captured->results.push_back(argument >= 0 ? DeviceTensor() : fresh(type));
  }
  if (llvm::Error error = gpu->takeError())
    return std::move(error);

  SmallVector<CallArgument> own;
  for (const DeviceTensor &argument : captured->arguments)
    own.push_back(CallArgument{nullptr, argument});
  CallFrame frame;
  if (llvm::Error error = prepare(own, frame))
    return std::move(error);
  if (llvm::Error error = gpu->beginCapture())
    return makeError(where + ": " + llvm::toString(std::move(error)));
  entryPoint(frame.packedArguments.data());
  std::string problem = copyCapturedResults(frame, *captured);
  Expected<AmpGpuGraph *> graph = gpu->endCapture();
  llvm::Error raised = gpu->takeError();
  if (!graph) {
    llvm::consumeError(std::move(raised));
    return makeError(where + " failed: " + llvm::toString(graph.takeError()));
  }
  captured->graph = *graph;
  if (raised)
    return makeError(where + " failed: " + llvm::toString(std::move(raised)));
  if (!problem.empty())
    return makeError(where + ": " + problem);
  return std::move(captured);
}

std::string Executable::copyCapturedResults(CallFrame &frame,
                                            CapturedCall &captured) {
  // The results of their own first: a fed-back copy overwrites an
  // argument, which one of them may return.
  SmallVector<size_t> order;
  for (size_t index = 0; index < captured.feedback.size(); ++index)
    if (captured.feedback[index] < 0)
      order.push_back(index);
  for (size_t index = 0; index < captured.feedback.size(); ++index)
    if (captured.feedback[index] >= 0)
      order.push_back(index);
  SmallVector<size_t> firstWord;
  for (size_t index = 0, word = 0; index < signature.results.size(); ++index) {
    firstWord.push_back(word);
    word += getDescriptorWords(signature.results[index]);
  }
  for (size_t index : order) {
    const int64_t *descriptor = frame.resultWords.data() + firstWord[index];
    DeviceTensor destination = captured.getResult(index);
    const TensorSpec &type = destination.getType();
    size_t rank = type.shape.size();
    void *allocated = reinterpret_cast<void *>(descriptor[0]);
    const char *aligned = reinterpret_cast<const char *>(descriptor[1]);
    ArrayRef<int64_t> sizes(descriptor + 3, rank);
    ArrayRef<int64_t> strides(descriptor + 3 + rank, rank);
    std::string result = "result #" + std::to_string(index);
    if (sizes != ArrayRef<int64_t>(type.shape) || !isDense(sizes, strides))
      return result + " is not a dense buffer of the shape of the call "
                      "before the capture";
    const char *source =
        aligned + descriptor[2] * getElementByteSize(type.element);
    if (source == destination.getData())
      continue;
    if (captured.feedback[index] >= 0)
      for (auto [argument, buffer] : llvm::enumerate(captured.arguments))
        if (allocated == buffer.getData())
          return result + " returns argument #" + std::to_string(argument) +
                 "'s buffer, which the graph may overwrite before it is "
                 "copied";
    gpu->copy(destination.getData(), source, type.getByteSize());
  }
  return "";
}
