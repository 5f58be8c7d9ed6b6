//===- GPUToSim.cpp - the amp-gpu-to-sim pass -----------------------------===//
//
// Part of amp-mlir. Turns the NVVM kernels of `--lower-to-gpu` into host
// functions and their launches into calls of the GPU simulator
// (libamp_runtime_gpusim, runtime/include/amp/runtime/AmpGpuSim.h), so that
// the output of the GPU pipeline runs on the CPU: same host code, same
// launches, same kernels up to the NVVM ops, which become simulator calls.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/GPUToSim/GPUToSim.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/runtime/AmpGpuSim.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPGPUTOSIMPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

/// AmpGpuSim.h's AmpSimRegister number of a special-register op
/// ("nvvm.read.ptx.sreg.tid.x" -> 0), or -1.
static int getSpecialRegister(StringRef opName) {
  if (!opName.consume_front("nvvm.read.ptx.sreg."))
    return -1;
  return llvm::StringSwitch<int>(opName)
      .Case("tid.x", 0)
      .Case("tid.y", 1)
      .Case("tid.z", 2)
      .Case("ntid.x", 3)
      .Case("ntid.y", 4)
      .Case("ntid.z", 5)
      .Case("ctaid.x", 6)
      .Case("ctaid.y", 7)
      .Case("ctaid.z", 8)
      .Case("nctaid.x", 9)
      .Case("nctaid.y", 10)
      .Case("nctaid.z", 11)
      .Case("laneid", 12)
      .Case("warpsize", 13)
      .Default(-1);
}

/// True if `pointer` is derived (through GEPs and casts) from a kernel
/// alloca or a global: memory the simulator does not track.
static bool isUntrackedMemory(Value pointer) {
  while (true) {
    if (auto type = dyn_cast<LLVM::LLVMPointerType>(pointer.getType()))
      if (type.getAddressSpace() == 3 || type.getAddressSpace() == 5)
        return true;
    Operation *def = pointer.getDefiningOp();
    if (!def)
      return false;
    if (isa<LLVM::AllocaOp, LLVM::AddressOfOp>(def))
      return true;
    if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      pointer = gep.getBase();
      continue;
    }
    if (isa<LLVM::AddrSpaceCastOp, LLVM::BitcastOp>(def)) {
      pointer = def->getOperand(0);
      continue;
    }
    return false;
  }
}

/// The elements of a scalar or vector floating-point type, else 0.
static int64_t getFloatElements(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return isa<FloatType>(vector.getElementType()) && !vector.isScalable()
               ? vector.getNumElements()
               : 0;
  return isa<FloatType>(type) ? 1 : 0;
}

/// The floating-point operations of `op` for the roofline estimate
/// (AmpGpuSim.h's ampSimCountFlops): 1 per element for add, subtract,
/// multiply, divide, remainder, min/max and math functions (LLVM's
/// intrinsics and libdevice's __nv_* calls), 2 for fma/fmuladd; 0 for
/// everything else (conversions, comparisons, negations, selects).
static int64_t getFlops(Operation *op) {
  if (op->getNumResults() != 1)
    return 0;
  int64_t elements = getFloatElements(op->getResult(0).getType());
  if (!elements)
    return 0;
  if (isa<LLVM::FMAOp, LLVM::FMulAddOp>(op))
    return 2 * elements;
  if (isa<LLVM::FAddOp, LLVM::FSubOp, LLVM::FMulOp, LLVM::FDivOp, LLVM::FRemOp,
          LLVM::MaxNumOp, LLVM::MinNumOp, LLVM::MaximumOp, LLVM::MinimumOp,
          LLVM::SqrtOp, LLVM::ExpOp, LLVM::Exp2Op, LLVM::LogOp, LLVM::Log2Op,
          LLVM::Log10Op, LLVM::PowOp, LLVM::SinOp, LLVM::CosOp, LLVM::TanhOp>(
          op))
    return elements;
  if (auto call = dyn_cast<LLVM::CallOp>(op))
    if (std::optional<StringRef> callee = call.getCallee())
      if (callee->starts_with("__nv_"))
        return elements;
  return 0;
}

/// The error of a libdevice declaration whose parameters are not
/// libdevice's, or success. The simulator binds each __nv_* call to a host
/// function by name, and the x86-64 calling convention hands an i64 to an
/// `int` parameter as its low half, so such a call computes here what the
/// GPU would not: there libdevice's function reads its `int` from a
/// register the caller never set. The libdevice functions that
/// convert-gpu-to-nvvm can call with an integer operand: the powers.
static LogicalResult checkLibdeviceSignature(LLVM::LLVMFuncOp func) {
  MLIRContext *context = func.getContext();
  Type i32 = IntegerType::get(context, 32);
  Type f32 = Float32Type::get(context);
  Type f64 = Float64Type::get(context);
  Type base = llvm::StringSwitch<Type>(func.getName())
                  .Case("__nv_powif", f32)
                  .Case("__nv_powi", f64)
                  .Default(nullptr);
  if (!base)
    return success();
  auto expected = LLVM::LLVMFunctionType::get(base, {base, i32});
  if (func.getFunctionType() == expected)
    return success();
  return func.emitError("amp-gpu-to-sim: '@")
         << func.getName() << "' is declared " << func.getFunctionType()
         << ", but libdevice's is " << expected
         << ": on the GPU the call would pass its exponent where the "
            "function does not read it";
}

namespace {
struct AmpGPUToSimPass
    : public amp::impl::AmpGPUToSimPassBase<AmpGPUToSimPass> {
  void runOnOperation() override;

private:
  LLVM::LLVMFuncOp getOrDeclare(StringRef name, Type result,
                                ArrayRef<Type> arguments);
  LogicalResult moveModule(gpu::GPUModuleOp module);
  LogicalResult rewriteNVVM(LLVM::LLVMFuncOp func, StringRef moduleName);
  void instrumentAccesses(LLVM::LLVMFuncOp func);
  void instrumentFlops(LLVM::LLVMFuncOp func);
  void buildPackedEntry(LLVM::LLVMFuncOp kernel, StringRef key);
  LogicalResult rewriteLaunch(gpu::LaunchFuncOp launch);
  LLVM::GlobalOp getSegmentsGlobal(Location loc, StringRef symbol,
                                   int64_t numParams, int32_t bodies);

  ModuleOp host;
  std::optional<DataLayout> dataLayout;
  /// "module::kernel" -> its packed entry.
  llvm::StringMap<LLVM::LLVMFuncOp> packed;
  /// gpu.module names whose kernels synchronise threads.
  llvm::StringSet<> synchronizing;
  /// gpu.module names whose kernels run the bodies of merged launches
  /// (amp.uneven_blocks), and how many: the kernel's last parameters are
  /// their blocks.
  llvm::StringMap<int32_t> merged;
};
} // namespace

/// The constant `symbol`: the indices of a merged kernel's last `bodies`
/// parameters (of `numParams`), its bodies' blocks
/// (ampSimLaunchKernelInSegments).
LLVM::GlobalOp AmpGPUToSimPass::getSegmentsGlobal(Location loc,
                                                  StringRef symbol,
                                                  int64_t numParams,
                                                  int32_t bodies) {
  if (auto existing = host.lookupSymbol<LLVM::GlobalOp>(symbol))
    return existing;
  Type i32 = IntegerType::get(&getContext(), 32);
  SmallVector<int32_t> indices;
  for (int32_t i = 0; i < bodies; ++i)
    indices.push_back(int32_t(numParams) - bodies + i);
  OpBuilder global = OpBuilder::atBlockEnd(host.getBody());
  return LLVM::GlobalOp::create(
      global, loc, LLVM::LLVMArrayType::get(i32, bodies),
      /*isConstant=*/true, LLVM::Linkage::Internal, symbol,
      DenseElementsAttr::get(RankedTensorType::get({bodies}, i32),
                             ArrayRef<int32_t>(indices)));
}

LLVM::LLVMFuncOp AmpGPUToSimPass::getOrDeclare(StringRef name, Type result,
                                               ArrayRef<Type> arguments) {
  if (auto existing = host.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(host.getBody());
  return LLVM::LLVMFuncOp::create(
      builder, host.getLoc(), name,
      LLVM::LLVMFunctionType::get(result, arguments));
}

void AmpGPUToSimPass::runOnOperation() {
  host = getOperation();
  dataLayout.emplace(host);
  SmallVector<gpu::GPUModuleOp> modules(host.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp module : modules)
    if (failed(moveModule(module)))
      return signalPassFailure();

  SmallVector<gpu::LaunchFuncOp> launches;
  host.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  for (gpu::LaunchFuncOp launch : launches)
    if (failed(rewriteLaunch(launch)))
      return signalPassFailure();

  for (gpu::GPUModuleOp module : modules)
    module.erase();
  host->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}

/// Moves the functions and globals of `module` into the host module, renamed
/// `<module>.<symbol>`, and rewrites their NVVM ops.
LogicalResult AmpGPUToSimPass::moveModule(gpu::GPUModuleOp module) {
  StringRef moduleName = module.getName();
  if (auto bodies =
          module->getAttrOfType<IntegerAttr>(AmpDialect::kUnevenBlocksAttrName))
    merged[moduleName] = static_cast<int32_t>(bodies.getInt());
  SmallVector<Operation *> ops;
  for (Operation &op : module.getBody()->getOperations())
    ops.push_back(&op);

  SmallVector<LLVM::LLVMFuncOp> definitions;
  SmallVector<std::pair<LLVM::LLVMFuncOp, std::string>> kernels;
  for (Operation *op : ops) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (!symbol)
      continue;
    StringRef name = symbol.getName();
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    // Declarations (libdevice's __nv_* functions): one in the host module,
    // resolved against the simulator's exports.
    if (func && func.isExternal()) {
      if (failed(checkLibdeviceSignature(func)))
        return failure();
      if (auto existing = host.lookupSymbol<LLVM::LLVMFuncOp>(name)) {
        if (existing.getFunctionType() != func.getFunctionType())
          return func.emitError("amp-gpu-to-sim: '@")
                 << name << "' of gpu.module '@" << moduleName
                 << "' has another type in the host module";
        op->erase();
        continue;
      }
      op->moveBefore(host.getBody(), host.getBody()->end());
      continue;
    }
    if (auto global = dyn_cast<LLVM::GlobalOp>(op)) {
      if (global.getAddrSpace() == 3 && !global.getValueOrNull() &&
          !global.getInitializerBlock() &&
          global.getLinkage() == LLVM::Linkage::External)
        return global.emitError("amp-gpu-to-sim: the simulator "
                                "does not model dynamic shared memory ('@")
               << name << "' in gpu.module '@" << moduleName << "')";
    } else if (!func) {
      return op->emitError("amp-gpu-to-sim: cannot move '")
             << op->getName() << "' out of gpu.module '@" << moduleName << "'";
    }
    std::string newName = (moduleName + "." + name).str();
    if (failed(SymbolTable::replaceAllSymbolUses(
            op, StringAttr::get(&getContext(), newName), module)))
      return op->emitError("amp-gpu-to-sim: cannot rename '@") << name << "'";
    SymbolTable::setSymbolName(op, newName);
    if (func) {
      definitions.push_back(func);
      if (func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
          func->hasAttr("nvvm.kernel"))
        kernels.push_back({func, (moduleName + "::" + name).str()});
    }
  }

  for (LLVM::LLVMFuncOp func : definitions) {
    if (failed(rewriteNVVM(func, moduleName)))
      return failure();
    instrumentAccesses(func);
    instrumentFlops(func);
    // Target attributes mean nothing on the host (nvvm.kernel would make it
    // a ptx_kernel).
    for (NamedAttribute attr : llvm::to_vector(func->getAttrs()))
      if (attr.getName().strref().starts_with("nvvm.") ||
          attr.getName().strref().starts_with("gpu."))
        func->removeAttr(attr.getName());
    if (ArrayAttr argAttrs = func.getAllArgAttrs()) {
      SmallVector<Attribute> cleaned;
      for (Attribute attrs : argAttrs) {
        NamedAttrList list(cast<DictionaryAttr>(attrs));
        for (NamedAttribute attr : llvm::to_vector(list.getAttrs()))
          if (attr.getName().strref().starts_with("nvvm."))
            list.erase(attr.getName());
        cleaned.push_back(list.getDictionary(&getContext()));
      }
      func.setAllArgAttrs(cleaned);
    }
    func.setLinkage(LLVM::Linkage::Internal);
  }
  for (Operation *op : ops)
    if (op->getBlock() == module.getBody())
      op->moveBefore(host.getBody(), host.getBody()->end());
  for (auto &[kernel, key] : kernels)
    buildPackedEntry(kernel, key);
  return success();
}

LogicalResult AmpGPUToSimPass::rewriteNVVM(LLVM::LLVMFuncOp func,
                                           StringRef moduleName) {
  StringRef kernelName = func.getName();
  MLIRContext *context = &getContext();
  Type i32 = IntegerType::get(context, 32);
  Type i64 = IntegerType::get(context, 64);
  Type voidType = LLVM::LLVMVoidType::get(context);
  SmallVector<Operation *> nvvmOps;
  func.walk([&](Operation *op) {
    if (isa<NVVM::NVVMDialect>(op->getDialect()))
      nvvmOps.push_back(op);
    if (auto intrinsic = dyn_cast<LLVM::CallIntrinsicOp>(op))
      if (intrinsic.getIntrin().starts_with("llvm.nvvm."))
        nvvmOps.push_back(op);
  });
  bool synchronizes = false;
  for (Operation *op : nvvmOps) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    StringRef name = op->getName().getStringRef();
    // NVVM intrinsics called directly (amp-precise-gpu-math's correctly
    // rounded sqrt): the host's correctly rounded equivalent.
    if (auto intrinsic = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      StringRef intrin = intrinsic.getIntrin();
      if ((intrin == "llvm.nvvm.sqrt.rn.f" ||
           intrin == "llvm.nvvm.sqrt.rn.d") &&
          intrinsic.getArgs().size() == 1 && intrinsic->getNumResults() == 1) {
        Value root =
            LLVM::SqrtOp::create(builder, loc, intrinsic.getArgs().front());
        intrinsic->replaceAllUsesWith(ValueRange{root});
        op->erase();
        continue;
      }
      return op->emitError("amp-gpu-to-sim: kernel '@")
             << kernelName << "': the GPU simulator does not model the "
             << "intrinsic '" << intrin << "'";
    }
    int reg = getSpecialRegister(name);
    if (reg >= 0 && op->getNumResults() == 1 &&
        op->getResult(0).getType() == i32) {
      LLVM::LLVMFuncOp callee =
          getOrDeclare("ampSimSpecialRegister", i32, {i32});
      Value code = LLVM::ConstantOp::create(builder, loc, i32,
                                            builder.getI32IntegerAttr(reg));
      auto call = LLVM::CallOp::create(builder, loc, callee, ValueRange{code});
      op->replaceAllUsesWith(call.getResults());
      op->erase();
      continue;
    }
    if (isa<NVVM::Barrier0Op>(op) ||
        (isa<NVVM::BarrierOp>(op) && op->getNumOperands() == 0 &&
         op->getNumResults() == 0)) {
      LLVM::LLVMFuncOp callee = getOrDeclare("ampSimBarrier", voidType, {});
      LLVM::CallOp::create(builder, loc, callee, ValueRange{});
      op->erase();
      synchronizes = true;
      continue;
    }
    if (auto shuffle = dyn_cast<NVVM::ShflOp>(op)) {
      // i32 or f32 (the op's verifier).
      Value value = shuffle.getVal();
      Type valueType = value.getType();
      LLVM::LLVMFuncOp callee =
          getOrDeclare("ampSimShuffle", i64, {i32, i32, i32, i32, i32});
      int mode = 0;
      switch (shuffle.getKind()) {
      case NVVM::ShflKind::up:
        mode = 0;
        break;
      case NVVM::ShflKind::down:
        mode = 1;
        break;
      case NVVM::ShflKind::bfly:
        mode = 2;
        break;
      case NVVM::ShflKind::idx:
        mode = 3;
        break;
      }
      Value bits =
          valueType == i32
              ? value
              : LLVM::BitcastOp::create(builder, loc, i32, value).getResult();
      Value modeValue = LLVM::ConstantOp::create(
          builder, loc, i32, builder.getI32IntegerAttr(mode));
      auto call = LLVM::CallOp::create(
          builder, loc, callee,
          ValueRange{modeValue, shuffle.getThreadMask(), bits,
                     shuffle.getOffset(), shuffle.getMaskAndClamp()});
      Value packedResult = call.getResult();
      Value resultBits = LLVM::TruncOp::create(builder, loc, i32, packedResult);
      Value result =
          valueType == i32
              ? resultBits
              : LLVM::BitcastOp::create(builder, loc, valueType, resultBits)
                    .getResult();
      Type resultType = shuffle.getResult().getType();
      if (auto structType = dyn_cast<LLVM::LLVMStructType>(resultType)) {
        Value shift = LLVM::ConstantOp::create(builder, loc, i64,
                                               builder.getI64IntegerAttr(32));
        Value high = LLVM::LShrOp::create(builder, loc, packedResult, shift);
        Value valid = LLVM::TruncOp::create(builder, loc,
                                            IntegerType::get(context, 1), high);
        Value aggregate = LLVM::UndefOp::create(builder, loc, structType);
        aggregate = LLVM::InsertValueOp::create(builder, loc, aggregate, result,
                                                ArrayRef<int64_t>{0});
        aggregate = LLVM::InsertValueOp::create(builder, loc, aggregate, valid,
                                                ArrayRef<int64_t>{1});
        result = aggregate;
      }
      shuffle.getResult().replaceAllUsesWith(result);
      op->erase();
      synchronizes = true;
      continue;
    }
    // cvt.rn.satfinite to FP8 (amp-float8-to-nvvm): the simulator's.
    if (auto cvt = dyn_cast<NVVM::ConvertF32x2ToF8x2Op>(op)) {
      Type dst = cvt.getDstTy();
      int32_t code = isa<Float8E4M3FNType>(dst) ? 5
                     : isa<Float8E5M2Type>(dst) ? 6
                                                : -1;
      if (code >= 0 && cvt.getRnd() == NVVM::FPRoundingMode::RN &&
          cvt.getSat() == NVVM::SaturationMode::SATFINITE && !cvt.getRelu()) {
        LLVM::LLVMFuncOp callee =
            getOrDeclare("ampSimCvtF32x2ToF8x2", i32,
                         {builder.getF32Type(), builder.getF32Type(), i32});
        Value type = LLVM::ConstantOp::create(builder, loc, i32,
                                              builder.getI32IntegerAttr(code));
        auto call = LLVM::CallOp::create(
            builder, loc, callee, ValueRange{cvt.getA(), cvt.getB(), type});
        Value packed = LLVM::TruncOp::create(
            builder, loc, IntegerType::get(context, 16), call.getResult());
        Type resultType = cvt.getDst().getType();
        if (resultType != packed.getType())
          packed = LLVM::BitcastOp::create(builder, loc, resultType, packed);
        cvt.getDst().replaceAllUsesWith(packed);
        op->erase();
        continue;
      }
    }
    return op->emitError("amp-gpu-to-sim: kernel '@")
           << kernelName << "': the GPU simulator does not model '" << name
           << "'";
  }
  if (synchronizes)
    synchronizing.insert(moduleName);
  return success();
}

void AmpGPUToSimPass::instrumentAccesses(LLVM::LLVMFuncOp func) {
  MLIRContext *context = &getContext();
  Type i32 = IntegerType::get(context, 32);
  Type i64 = IntegerType::get(context, 64);
  auto ptr = LLVM::LLVMPointerType::get(context);
  func.walk([&](Operation *op) {
    Value pointer;
    Type accessed;
    bool store = false;
    // An alignment the access states (a vectorised load: 16) is checked.
    uint64_t alignment = 0;
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      pointer = load.getAddr();
      accessed = load.getType();
      alignment = load.getAlignment().value_or(0);
    } else if (auto storeOp = dyn_cast<LLVM::StoreOp>(op)) {
      pointer = storeOp.getAddr();
      accessed = storeOp.getValue().getType();
      alignment = storeOp.getAlignment().value_or(0);
      store = true;
    } else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op)) {
      pointer = rmw.getPtr();
      accessed = rmw.getVal().getType();
      store = true;
    } else if (auto cmpxchg = dyn_cast<LLVM::AtomicCmpXchgOp>(op)) {
      pointer = cmpxchg.getPtr();
      accessed = cmpxchg.getVal().getType();
      store = true;
    } else {
      return;
    }
    if (isUntrackedMemory(pointer))
      return;
    OpBuilder builder(op);
    Location loc = op->getLoc();
    auto pointerType = cast<LLVM::LLVMPointerType>(pointer.getType());
    Value generic = pointer;
    if (pointerType.getAddressSpace() != 0)
      generic = LLVM::AddrSpaceCastOp::create(builder, loc, ptr, pointer);
    Value bytes = LLVM::ConstantOp::create(
        builder, loc, i64,
        builder.getI64IntegerAttr(dataLayout->getTypeSize(accessed)));
    // Bit 0: a store; bits 8 and up: the alignment to check (0: none).
    Value isStore = LLVM::ConstantOp::create(
        builder, loc, i32,
        builder.getI32IntegerAttr(
            int32_t(store) |
            int32_t(std::min<uint64_t>(alignment, 1 << 20) << 8)));
    LLVM::LLVMFuncOp check =
        getOrDeclare("ampSimCheckAccess", ptr, {ptr, i64, i32});
    Value checked = LLVM::CallOp::create(builder, loc, check,
                                         ValueRange{generic, bytes, isStore})
                        .getResult();
    if (pointerType.getAddressSpace() != 0)
      checked =
          LLVM::AddrSpaceCastOp::create(builder, loc, pointerType, checked);
    op->replaceUsesOfWith(pointer, checked);
  });
}

/// A call of ampSimCountFlops at the start of each block with
/// floating-point operations, with their count: a block runs to its end
/// once entered, so the count is exact per thread and per execution.
void AmpGPUToSimPass::instrumentFlops(LLVM::LLVMFuncOp func) {
  MLIRContext *context = &getContext();
  Type i64 = IntegerType::get(context, 64);
  Type voidType = LLVM::LLVMVoidType::get(context);
  for (Block &block : func.getBody()) {
    int64_t flops = 0;
    for (Operation &op : block)
      flops += getFlops(&op);
    if (!flops)
      continue;
    OpBuilder builder = OpBuilder::atBlockBegin(&block);
    Location loc = func.getLoc();
    LLVM::LLVMFuncOp callee = getOrDeclare("ampSimCountFlops", voidType, {i64});
    Value count = LLVM::ConstantOp::create(builder, loc, i64,
                                           builder.getI64IntegerAttr(flops));
    LLVM::CallOp::create(builder, loc, callee, ValueRange{count});
  }
}

/// `<kernel>.packed(ptr params)`: loads each argument through the
/// cuLaunchKernel parameter array and calls the kernel.
void AmpGPUToSimPass::buildPackedEntry(LLVM::LLVMFuncOp kernel, StringRef key) {
  MLIRContext *context = &getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  Location loc = kernel.getLoc();
  OpBuilder builder = OpBuilder::atBlockEnd(host.getBody());
  auto entry = LLVM::LLVMFuncOp::create(
      builder, loc, (kernel.getName() + ".packed").str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptr}));
  entry.setLinkage(LLVM::Linkage::Internal);
  Block *body = entry.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);
  Value params = body->getArgument(0);
  SmallVector<Value> arguments;
  for (auto [index, type] :
       llvm::enumerate(kernel.getFunctionType().getParams())) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptr, ptr, params,
                                     ArrayRef<LLVM::GEPArg>{int32_t(index)});
    Value address = LLVM::LoadOp::create(builder, loc, ptr, slot);
    arguments.push_back(LLVM::LoadOp::create(builder, loc, type, address));
  }
  LLVM::CallOp::create(builder, loc, kernel, arguments);
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
  packed[key] = entry;
}

LogicalResult AmpGPUToSimPass::rewriteLaunch(gpu::LaunchFuncOp launch) {
  MLIRContext *context = &getContext();
  Location loc = launch.getLoc();
  StringRef moduleName = launch.getKernelModuleName().getValue();
  StringRef kernelName = launch.getKernelName().getValue();
  std::string key = (moduleName + "::" + kernelName).str();
  auto it = packed.find(key);
  if (it == packed.end())
    return launch.emitError("amp-gpu-to-sim: no kernel '")
           << key << "' to simulate";
  if (launch.hasClusterSize())
    return launch.emitError("amp-gpu-to-sim: cluster launches are "
                            "not simulated");
  if (launch->getNumResults() != 0)
    return launch.emitError("amp-gpu-to-sim: a launch with an "
                            "async token (run after gpu-to-llvm)");
  auto func = launch->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func)
    return launch.emitError("amp-gpu-to-sim: a launch outside an "
                            "llvm.func (run after gpu-to-llvm)");

  Type i32 = IntegerType::get(context, 32);
  Type i64 = IntegerType::get(context, 64);
  auto ptr = LLVM::LLVMPointerType::get(context);
  Type voidType = LLVM::LLVMVoidType::get(context);

  // The kernel's name, a global string.
  std::string nameSymbol = key;
  std::replace(nameSymbol.begin(), nameSymbol.end(), ':', '_');
  nameSymbol += ".name";
  auto nameGlobal = host.lookupSymbol<LLVM::GlobalOp>(nameSymbol);
  if (!nameGlobal) {
    OpBuilder builder = OpBuilder::atBlockEnd(host.getBody());
    std::string text = key + '\0';
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size());
    nameGlobal = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                        LLVM::Linkage::Internal, nameSymbol,
                                        builder.getStringAttr(text));
  }

  // The parameter array: slots in the entry block, so that a launch in a
  // loop does not grow the stack.
  OpBuilder entryBuilder(&func.getBody().front(),
                         func.getBody().front().begin());
  Value one = LLVM::ConstantOp::create(entryBuilder, loc, i64,
                                       entryBuilder.getI64IntegerAttr(1));
  ValueRange operands = launch.getKernelOperands();
  Value count = LLVM::ConstantOp::create(
      entryBuilder, loc, i64,
      entryBuilder.getI64IntegerAttr(std::max<size_t>(operands.size(), 1)));
  Value array = LLVM::AllocaOp::create(entryBuilder, loc, ptr, ptr, count);
  SmallVector<Value> slots;
  for (Value operand : operands)
    slots.push_back(
        LLVM::AllocaOp::create(entryBuilder, loc, ptr, operand.getType(), one));

  OpBuilder builder(launch);
  for (auto [index, operand] : llvm::enumerate(operands)) {
    LLVM::StoreOp::create(builder, loc, operand, slots[index]);
    Value element = LLVM::GEPOp::create(builder, loc, ptr, ptr, array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(index)});
    LLVM::StoreOp::create(builder, loc, slots[index], element);
  }
  auto toI64 = [&](Value value) -> Value {
    auto type = dyn_cast<IntegerType>(value.getType());
    if (type && type.getWidth() < 64)
      return LLVM::ZExtOp::create(builder, loc, i64, value);
    if (type && type.getWidth() > 64)
      return LLVM::TruncOp::create(builder, loc, i64, value);
    return value;
  };
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value sharedMemory =
      launch.getDynamicSharedMemorySize()
          ? launch.getDynamicSharedMemorySize()
          : LLVM::ConstantOp::create(builder, loc, i32,
                                     builder.getI32IntegerAttr(0))
                .getResult();
  int32_t launchFlags =
      (synchronizing.contains(moduleName) ? AMP_SIM_KERNEL_SYNCHRONIZES : 0) |
      (merged.contains(moduleName) ? AMP_SIM_KERNEL_UNEVEN : 0);
  Value flags = LLVM::ConstantOp::create(
      builder, loc, i32, builder.getI32IntegerAttr(launchFlags));
  Value name = LLVM::AddressOfOp::create(builder, loc, nameGlobal);
  Value kernel = LLVM::AddressOfOp::create(builder, loc, it->second);
  // The byte size of each parameter, for a capture to keep their values.
  Value numParams = LLVM::ConstantOp::create(
      builder, loc, i32, builder.getI32IntegerAttr(operands.size()));
  Value sizes;
  if (operands.empty()) {
    sizes = LLVM::ZeroOp::create(builder, loc, ptr);
  } else {
    std::string sizesSymbol = (nameSymbol + ".param_sizes");
    auto sizesGlobal = host.lookupSymbol<LLVM::GlobalOp>(sizesSymbol);
    if (!sizesGlobal) {
      DataLayout layout = DataLayout::closest(launch);
      SmallVector<int32_t> bytes;
      for (Value operand : operands)
        bytes.push_back(
            int32_t(layout.getTypeSize(operand.getType()).getFixedValue()));
      OpBuilder global = OpBuilder::atBlockEnd(host.getBody());
      auto type = LLVM::LLVMArrayType::get(i32, bytes.size());
      sizesGlobal = LLVM::GlobalOp::create(
          global, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
          sizesSymbol,
          DenseElementsAttr::get(
              RankedTensorType::get({int64_t(bytes.size())}, i32),
              ArrayRef<int32_t>(bytes)));
    }
    sizes = LLVM::AddressOfOp::create(builder, loc, sizesGlobal);
  }
  SmallVector<Value> arguments = {
      name,          kernel,         toI64(grid.x),  toI64(grid.y),
      toI64(grid.z), toI64(block.x), toI64(block.y), toI64(block.z),
      sharedMemory,  array,          flags,          numParams,
      sizes};
  auto bodiesIt = merged.find(moduleName);
  if (bodiesIt == merged.end() || bodiesIt->second > int32_t(operands.size())) {
    LLVM::LLVMFuncOp callee = getOrDeclare(
        "ampSimLaunchKernelWithSizes", voidType,
        {ptr, ptr, i64, i64, i64, i64, i64, i64, i32, ptr, i32, i32, ptr});
    LLVM::CallOp::create(builder, loc, callee, arguments);
    launch.erase();
    return success();
  }
  // A merged kernel: its last parameters are its bodies' blocks.
  int32_t bodies = bodiesIt->second;
  arguments.push_back(LLVM::ConstantOp::create(
      builder, loc, i32, builder.getI32IntegerAttr(bodies)));
  arguments.push_back(
      LLVM::AddressOfOp::create(builder, loc,
                                getSegmentsGlobal(loc, nameSymbol + ".segments",
                                                  operands.size(), bodies)));
  LLVM::LLVMFuncOp callee =
      getOrDeclare("ampSimLaunchKernelInSegments", voidType,
                   {ptr, ptr, i64, i64, i64, i64, i64, i64, i32, ptr, i32, i32,
                    ptr, i32, ptr});
  LLVM::CallOp::create(builder, loc, callee, arguments);
  launch.erase();
  return success();
}
