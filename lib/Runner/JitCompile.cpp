//===- JitCompile.cpp - weights out of the JIT module, LLVM optimization --===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//
//
// What makes a JIT compilation of an imported model take seconds rather than
// minutes (docs/performance.md, "Compile time"):
//
// * Large constant globals (the weights) leave the module before its
//   translation to LLVM IR: each becomes an external declaration, its bytes
//   are copied out of the attribute (a dense_resource blob or dense
//   elements) into one aligned buffer, and the JIT binds the declaration to
//   them when it links. Neither the translation, nor LLVM's optimizer, nor
//   its code generator sees the data.
// * The LLVM optimization level is chosen per module from the size of its
//   largest function.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemAlloc.h"
#include "llvm/Target/TargetMachine.h"

#include <cstring>

using namespace mlir;
using namespace mlir::amp::runner;
using namespace mlir::amp::runner::detail;

//===----------------------------------------------------------------------===//
// Large constants
//===----------------------------------------------------------------------===//

amp::runner::detail::DetachedConstants::~DetachedConstants() {
  if (buffer)
    llvm::deallocate_buffer(buffer, size, kAlignment);
}

/// The element type and count of a global's type: an LLVM array (nested for
/// each dimension) of integers or floats of whole bytes.
static std::optional<std::pair<Type, uint64_t>> getArrayElements(Type type) {
  uint64_t count = 1;
  while (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    count *= array.getNumElements();
    type = array.getElementType();
  }
  if (!isa<IntegerType, FloatType>(type) ||
      type.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return std::make_pair(type, count);
}

/// The bytes of `value` as the global of `elementType` x `count` holds them
/// (row-major, the type's size per element), or nothing if its attribute
/// holds them otherwise. A splat is expanded into `storage`.
static std::optional<ArrayRef<char>> getConstantBytes(Attribute value,
                                                      Type elementType,
                                                      uint64_t count,
                                                      std::string &storage) {
  auto elements = dyn_cast_or_null<ShapedType>(
      isa_and_nonnull<TypedAttr>(value) ? cast<TypedAttr>(value).getType()
                                        : Type());
  if (!elements || elements.getElementType() != elementType ||
      static_cast<uint64_t>(elements.getNumElements()) != count)
    return std::nullopt;
  uint64_t bytes = count * (elementType.getIntOrFloatBitWidth() / 8);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != bytes)
      return std::nullopt;
    return blob->getData();
  }
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value);
  if (!dense)
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    if (raw.empty() || bytes % raw.size() != 0)
      return std::nullopt;
    storage.reserve(bytes);
    for (uint64_t i = 0; i < count; ++i)
      storage.append(raw.data(), raw.size());
    return ArrayRef<char>(storage.data(), storage.size());
  }
  if (raw.size() != bytes)
    return std::nullopt;
  return raw;
}

std::unique_ptr<DetachedConstants>
amp::runner::detail::detachLargeConstants(ModuleOp module, uint64_t minBytes) {
  struct Found {
    LLVM::GlobalOp global;
    ArrayRef<char> bytes;
    std::string storage;
    uint64_t offset = 0;
  };
  std::vector<Found> found;
  uint64_t total = 0;
  // Top-level globals only: a GPU module's globals belong to its kernels.
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getConstant() || global.getInitializerBlock() ||
        global.getThreadLocal_() || global.getAddrSpace() != 0 ||
        !global.getValueOrNull())
      continue;
    std::optional<std::pair<Type, uint64_t>> elements =
        getArrayElements(global.getGlobalType());
    if (!elements)
      continue;
    Found one{global, {}, {}, 0};
    std::optional<ArrayRef<char>> bytes =
        getConstantBytes(global.getValueOrNull(), elements->first,
                         elements->second, one.storage);
    if (!bytes || bytes->size() < minBytes)
      continue;
    one.bytes = *bytes;
    uint64_t alignment = std::max<uint64_t>(global.getAlignment().value_or(1),
                                            DetachedConstants::kAlignment);
    if (alignment > DetachedConstants::kAlignment)
      continue; // the buffer's alignment is the most it can promise
    one.offset = llvm::alignTo(total, alignment);
    total = one.offset + bytes->size();
    found.push_back(std::move(one));
  }

  auto detached = std::make_unique<DetachedConstants>();
  if (found.empty())
    return detached;
  detached->size = total;
  detached->buffer = static_cast<char *>(
      llvm::allocate_buffer(total, DetachedConstants::kAlignment));
  for (Found &one : found) {
    std::memcpy(detached->buffer + one.offset, one.bytes.data(),
                one.bytes.size());
    detached->symbols.push_back(
        {one.global.getSymName().str(), detached->buffer + one.offset});
    // A declaration: the JIT binds it to the copy. Not dso_local, so that
    // the code reaches it through the GOT, wherever the buffer lies.
    LLVM::GlobalOp global = one.global;
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setDsoLocal(false);
    global.setUnnamedAddr(std::nullopt);
    global.setVisibility_(LLVM::Visibility::Default);
  }
  return detached;
}

//===----------------------------------------------------------------------===//
// LLVM optimization
//===----------------------------------------------------------------------===//

unsigned amp::runner::detail::chooseOptLevel(const llvm::Module &module,
                                             unsigned requested,
                                             unsigned largeFunction) {
  if (requested <= 1 || largeFunction == 0)
    return requested;
  for (const llvm::Function &function : module)
    if (!function.isDeclaration() &&
        function.getInstructionCount() > largeFunction)
      return 1;
  return requested;
}

llvm::Error amp::runner::detail::optimizeModule(llvm::Module &module,
                                                unsigned optLevel,
                                                llvm::TargetMachine *machine,
                                                bool unroll,
                                                llvm::raw_ostream *passTimes) {
  if (optLevel > 3)
    return makeError("LLVM optimization level " + llvm::Twine(optLevel) +
                     " is not 0 to 3");
  llvm::OptimizationLevel level = optLevel == 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(),
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &modules);
  std::optional<llvm::TimePassesHandler> timer;
  if (passTimes) {
    timer.emplace(/*Enabled=*/true);
    timer->setOutStream(*passTimes);
    timer->registerCallbacks(callbacks);
  }
  // As MLIR's makeOptimizingTransformer: the vectorizers on, and unrolling
  // and interleaving unless `unroll` is false.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = unroll;
  tuning.LoopInterleaving = unroll;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  // The target machine gives the optimizer the host's features (the cost
  // of f16 conversions, vector widths), not only the code generator.
  llvm::PassBuilder builder(machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, modules);
  if (timer)
    timer->print();
  return llvm::Error::success();
}
