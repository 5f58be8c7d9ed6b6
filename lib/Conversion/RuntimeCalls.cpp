//===- RuntimeCalls.cpp - calls of libamp_runtime functions ---------------===//
//
// Part of amp-mlir. Declarations and calls of the runtime's library calls,
// from the runtime's own tables (LibraryCalls.def, DTypes.def).
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

std::optional<RuntimeDType> mlir::amp::getRuntimeDType(Type type) {
  MLIRContext *ctx = type.getContext();
#define AMP_DTYPE(NAME, CODE, SPELLING, BYTES)                                 \
  if (type == parseType(SPELLING, ctx))                                        \
    return RuntimeDType::NAME;
#include "amp/runtime/DTypes.def"
  return std::nullopt;
}

std::optional<RuntimeDType> mlir::amp::getRuntimeFloatDType(Type type) {
  if (!isa<FloatType>(type))
    return std::nullopt;
  return getRuntimeDType(type);
}

namespace {
/// One row of the table as the compiler needs it.
struct RuntimeSignature {
  StringLiteral name;
  bool onGpu;
  bool returnsPointer;
  /// The parameters' kinds, one letter each: i (i32), l (i64), f (f32),
  /// p (pointer).
  StringLiteral params;
};

#define AMP_LIBRARY_CALL_KIND_I32 "i"
#define AMP_LIBRARY_CALL_KIND_I64 "l"
#define AMP_LIBRARY_CALL_KIND_F32 "f"
#define AMP_LIBRARY_CALL_KIND_Ptr "p"
#define AMP_LIBRARY_CALL_KIND(KIND, C_TYPE, NAME) AMP_LIBRARY_CALL_KIND_##KIND
#define AMP_LIBRARY_CALL_IS_PTR_Void false
#define AMP_LIBRARY_CALL_IS_PTR_Ptr true

constexpr RuntimeSignature kSignatures[] = {
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  {#GPU_NAME, true, AMP_LIBRARY_CALL_IS_PTR_##RESULT,                          \
   PARAMS(AMP_LIBRARY_CALL_KIND, )},                                           \
      {#CPU_NAME, false, AMP_LIBRARY_CALL_IS_PTR_##RESULT,                     \
       PARAMS(AMP_LIBRARY_CALL_KIND, )},
#define AMP_CPU_LIBRARY_CALL(STEM, CPU_NAME, ARGS, RESULT, PARAMS)             \
  {#CPU_NAME, false, AMP_LIBRARY_CALL_IS_PTR_##RESULT,                         \
   PARAMS(AMP_LIBRARY_CALL_KIND, )},
#include "amp/runtime/LibraryCalls.def"
};

const RuntimeSignature &getSignature(RuntimeFunction function) {
  return kSignatures[static_cast<size_t>(function)];
}

Type getParamType(MLIRContext *ctx, char kind) {
  switch (kind) {
  case 'i':
    return IntegerType::get(ctx, 32);
  case 'l':
    return IntegerType::get(ctx, 64);
  case 'f':
    return Float32Type::get(ctx);
  default:
    return LLVM::LLVMPointerType::get(ctx);
  }
}
} // namespace

StringRef mlir::amp::getRuntimeFunctionName(RuntimeFunction function) {
  return getSignature(function).name;
}

/// The declaration of `sig` in `module` (created at its end if missing), or
/// failure after an error on `user`.
static FailureOr<Operation *> declare(ModuleOp module, Operation *user,
                                      const RuntimeSignature &sig,
                                      ArrayRef<Type> params,
                                      ArrayRef<Type> results) {
  MLIRContext *ctx = module.getContext();
  Type type = FunctionType::get(ctx, params, results);
  if (!sig.onGpu)
    type = LLVM::LLVMFunctionType::get(
        results.empty() ? LLVM::LLVMVoidType::get(ctx) : results[0], params);
  Operation *existing = module.lookupSymbol(sig.name);
  if (!existing) {
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Operation *func;
    if (sig.onGpu) {
      func = func::FuncOp::create(b, module.getLoc(), sig.name,
                                  cast<FunctionType>(type));
      // Enqueues on the runtime's one stream (amp-elide-host-waits).
      func->setAttr(AmpDialect::kStreamOrderedAttrName, b.getUnitAttr());
    } else {
      func = LLVM::LLVMFuncOp::create(b, module.getLoc(), sig.name,
                                      cast<LLVM::LLVMFunctionType>(type));
    }
    SymbolTable::setSymbolVisibility(func, SymbolTable::Visibility::Private);
    return func;
  }
  // A declaration of the table's kind (a func.func for a GPU call, an
  // llvm.func for a CPU twin) and signature is the one to call.
  auto func = dyn_cast<FunctionOpInterface>(existing);
  if (func && func.getFunctionType() == type)
    return existing;
  return user->emitOpError()
         << "cannot declare the runtime function @" << sig.name
         << ": the module defines another symbol of that name";
}

RuntimeFunction mlir::amp::getGpuFunction(LibraryCall call) {
  switch (call) {
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  case LibraryCall::STEM:                                                      \
    return RuntimeFunction::GPU_NAME;
#include "amp/runtime/LibraryCalls.def"
  }
  llvm_unreachable("a library call outside the table");
}

std::optional<RuntimeFunction>
mlir::amp::getCpuLibraryFunction(LibraryCall call) {
  switch (call) {
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)
#define AMP_CPU_LIBRARY_CALL(STEM, CPU_NAME, ARGS, RESULT, PARAMS)             \
  case LibraryCall::ARGS:                                                      \
    return RuntimeFunction::CPU_NAME;
#include "amp/runtime/LibraryCalls.def"
  default:
    return std::nullopt;
  }
}

FailureOr<Operation *> mlir::amp::createRuntimeCall(OpBuilder &builder,
                                                    Operation *user,
                                                    RuntimeFunction function,
                                                    ValueRange args) {
  Location loc = user->getLoc();
  const RuntimeSignature &sig = getSignature(function);
  MLIRContext *ctx = builder.getContext();
  Operation *parent = builder.getInsertionBlock()->getParentOp();
  auto module = dyn_cast<ModuleOp>(parent);
  if (!module)
    module = parent->getParentOfType<ModuleOp>();
  if (!module)
    return user->emitOpError() << "cannot call the runtime function @"
                               << sig.name << " outside a module";
  SmallVector<Type> params;
  for (char kind : sig.params)
    params.push_back(getParamType(ctx, kind));
  if (args.size() != params.size())
    return user->emitOpError()
           << "cannot call the runtime function @" << sig.name << ": it takes "
           << params.size() << " arguments, not " << args.size();
  for (auto [i, arg, param] : llvm::enumerate(args, params))
    if (arg.getType() != param)
      return user->emitOpError()
             << "cannot call the runtime function @" << sig.name
             << ": argument " << i << " must be " << param << ", not "
             << arg.getType();
  SmallVector<Type> results;
  if (sig.returnsPointer)
    results.push_back(LLVM::LLVMPointerType::get(ctx));
  FailureOr<Operation *> callee = declare(module, user, sig, params, results);
  if (failed(callee))
    return failure();
  if (auto func = dyn_cast<func::FuncOp>(*callee))
    return func::CallOp::create(builder, loc, func, args).getOperation();
  return LLVM::CallOp::create(builder, loc, cast<LLVM::LLVMFuncOp>(*callee),
                              args)
      .getOperation();
}

Value mlir::amp::createBufferPointer(OpBuilder &builder, Location loc,
                                     Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    offset = ShapedType::kDynamic;
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
  Value byteOffset;
  if (ShapedType::isDynamic(offset))
    byteOffset = arith::MulIOp::create(
        builder, loc,
        memref::ExtractStridedMetadataOp::create(builder, loc, buffer)
            .getOffset(),
        arith::ConstantIndexOp::create(builder, loc, bytes));
  else if (offset != 0)
    byteOffset = arith::ConstantIndexOp::create(builder, loc, offset * bytes);
  if (byteOffset)
    address = arith::AddIOp::create(builder, loc, address, byteOffset);
  Value asInt =
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()), asInt);
}

Value mlir::amp::createBufferElementCount(OpBuilder &builder, Location loc,
                                          Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Type i64 = builder.getI64Type();
  int64_t staticCount = 1;
  Value count;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    if (!type.isDynamicDim(i)) {
      staticCount *= type.getDimSize(i);
      continue;
    }
    Value size = arith::IndexCastOp::create(
        builder, loc, i64, memref::DimOp::create(builder, loc, buffer, i));
    count = count ? arith::MulIOp::create(builder, loc, count, size).getResult()
                  : size;
  }
  Value constant = arith::ConstantIntOp::create(builder, loc, staticCount, 64);
  if (!count)
    return constant;
  if (staticCount == 1)
    return count;
  return arith::MulIOp::create(builder, loc, count, constant);
}
