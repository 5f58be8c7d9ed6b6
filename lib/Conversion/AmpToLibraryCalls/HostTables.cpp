//===- HostTables.cpp - host arrays of a multi-tensor call ----------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "HostTables.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

bool mlir::amp::isDenseBuffer(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (type.getDimSize(i) == 1)
      continue;
    if (ShapedType::isDynamic(strides[i]) || strides[i] != expected ||
        ShapedType::isDynamic(type.getDimSize(i)))
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

HostTable::HostTable(OpBuilder &builder, Operation *user, int64_t count)
    : builder(builder), user(user) {
  OpBuilder::InsertionGuard guard(builder);
  auto func = user->getParentOfType<FunctionOpInterface>();
  builder.setInsertionPointToStart(&func.getFunctionBody().front());
  size = LLVM::ConstantOp::create(builder, user->getLoc(), builder.getI64Type(),
                                  builder.getI64IntegerAttr(count));
  last = size;
}

Value HostTable::addArray(Type element) {
  OpBuilder::InsertionGuard guard(builder);
  // After the size and the arrays before it, in the order they were asked.
  builder.setInsertionPointAfterValue(last);
  Type ptr = LLVM::LLVMPointerType::get(builder.getContext());
  last = LLVM::AllocaOp::create(builder, user->getLoc(), ptr, element, size);
  return last;
}

void HostTable::store(Value array, Type element, int64_t index, Value value) {
  Location loc = user->getLoc();
  Type ptr = LLVM::LLVMPointerType::get(builder.getContext());
  Value slot =
      LLVM::GEPOp::create(builder, loc, ptr, element, array,
                          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
  LLVM::StoreOp::create(builder, loc, value, slot);
}
