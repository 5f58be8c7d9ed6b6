//===- Training.cpp - the amp-training pass
//--------------------------------===//
//
// Part of amp-mlir. Builds a mixed-precision training step (loss scaling,
// fp32 masters, the optimizer update, the step skip) around a frontend's
// forward-backward function. The convention is in Passes.td and
// docs/loss-scaling.md#training-from-a-frontend.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPTRAININGPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr llvm::StringLiteral kParamAttr = AmpDialect::kParamAttrName;
constexpr llvm::StringLiteral kBatchAttr = AmpDialect::kBatchAttrName;
constexpr llvm::StringLiteral kBufferAttr = AmpDialect::kBufferAttrName;
constexpr llvm::StringLiteral kSeedAttr = AmpDialect::kLossSeedAttrName;
constexpr llvm::StringLiteral kLossAttr = AmpDialect::kLossAttrName;
constexpr llvm::StringLiteral kGradAttr = AmpDialect::kGradAttrName;
constexpr llvm::StringLiteral kOptimizerAttr = AmpDialect::kOptimizerAttrName;
constexpr llvm::StringLiteral kLossScalingAttr =
    AmpDialect::kLossScalingAttrName;
constexpr llvm::StringLiteral kStateAttr = AmpDialect::kOptimizerStateAttrName;
constexpr llvm::StringLiteral kScalerAttr = AmpDialect::kScalerAttrName;
constexpr llvm::StringLiteral kFoundInfAttr = AmpDialect::kFoundInfAttrName;

/// The optimizer of the `amp.optimizer` dictionary, PyTorch's semantics.
struct OptimizerSpec {
  OptimizerKind kind = OptimizerKind::sgd;
  double lr = 0.0, weightDecay = 0.0;
  double momentum = 0.0, dampening = 0.0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;

  /// PyTorch's names of the per-parameter state tensors.
  SmallVector<StringRef, 2> stateNames() const {
    switch (kind) {
    case OptimizerKind::sgd:
      return {};
    case OptimizerKind::momentum:
      return {"momentum_buffer"};
    case OptimizerKind::adam:
    case OptimizerKind::adamw:
      return {"exp_avg", "exp_avg_sq"};
    }
    llvm_unreachable("optimizer kind");
  }
};

/// `%g` of a double, for diagnostics.
std::string shortFloat(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return text;
}

/// Reads and checks `amp.optimizer`; emits an error at the function.
FailureOr<OptimizerSpec> parseOptimizer(func::FuncOp func) {
  auto dict = func->getAttrOfType<DictionaryAttr>(kOptimizerAttr);
  if (!dict)
    return func.emitError()
           << "a training function (it has an '" << kSeedAttr
           << "' argument) needs an '" << kOptimizerAttr
           << "' dictionary attribute, e.g. {kind = \"sgd\", lr = 0.1 : f64}";
  OptimizerSpec spec;
  auto kind = dict.getAs<StringAttr>("kind");
  if (!kind)
    return func.emitError() << "'" << kOptimizerAttr
                            << "' needs a string 'kind' (sgd, momentum, adam "
                               "or adamw)";
  StringRef k = kind.getValue();
  SmallVector<StringRef> known = {"kind", "lr", "weight_decay"};
  if (k == "sgd") {
    spec.kind = OptimizerKind::sgd;
  } else if (k == "momentum") {
    spec.kind = OptimizerKind::momentum;
    known.append({"momentum", "dampening", "nesterov"});
  } else if (k == "adam" || k == "adamw") {
    spec.kind = k == "adam" ? OptimizerKind::adam : OptimizerKind::adamw;
    known.append({"beta1", "beta2", "eps"});
  } else {
    return func.emitError() << "unknown optimizer kind '" << k
                            << "' (known: sgd, momentum, adam, adamw)";
  }
  for (NamedAttribute entry : dict) {
    if (!llvm::is_contained(known, entry.getName().getValue()))
      return func.emitError()
             << "'" << kOptimizerAttr << "' of kind '" << k
             << "' has no setting '" << entry.getName().getValue()
             << "' (it takes: " << llvm::join(known, ", ") << ")";
  }
  // Every float setting: a float attribute (any width) in range.
  auto readFloat = [&](StringRef name, double &value, bool required, double lo,
                       bool loOpen, double hi, bool hiOpen) -> LogicalResult {
    Attribute attr = dict.get(name);
    if (!attr) {
      if (!required)
        return success();
      return func.emitError()
             << "'" << kOptimizerAttr << "' needs a float '" << name << "'";
    }
    auto f = dyn_cast<FloatAttr>(attr);
    if (!f)
      return func.emitError() << "'" << kOptimizerAttr << "' setting '" << name
                              << "' must be a float, got " << attr;
    value = f.getValueAsDouble();
    bool okLo = loOpen ? value > lo : value >= lo;
    bool okHi = hiOpen ? value < hi : value <= hi;
    if (!std::isfinite(value) || !okLo || !okHi)
      return func.emitError()
             << "'" << kOptimizerAttr << "' setting '" << name
             << "' = " << shortFloat(value) << " is out of range "
             << (loOpen ? "(" : "[") << shortFloat(lo) << ", " << shortFloat(hi)
             << (hiOpen ? ")" : "]");
    return success();
  };
  double inf = std::numeric_limits<double>::infinity();
  if (failed(readFloat("lr", spec.lr, true, 0.0, true, inf, true)) ||
      failed(readFloat("weight_decay", spec.weightDecay, false, 0.0, false, inf,
                       true)))
    return failure();
  if (spec.kind == OptimizerKind::momentum) {
    if (failed(readFloat("momentum", spec.momentum, true, 0.0, false, 1.0,
                         false)) ||
        failed(readFloat("dampening", spec.dampening, false, 0.0, false, 1.0,
                         false)))
      return failure();
    if (Attribute attr = dict.get("nesterov")) {
      auto b = dyn_cast<BoolAttr>(attr);
      if (!b)
        return func.emitError() << "'" << kOptimizerAttr
                                << "' setting 'nesterov' must be a bool";
      spec.nesterov = b.getValue();
    }
    if (spec.nesterov && (spec.momentum <= 0.0 || spec.dampening != 0.0))
      return func.emitError() << "Nesterov momentum requires a momentum > 0 "
                                 "and zero dampening (as in PyTorch)";
  }
  if (spec.kind == OptimizerKind::adam || spec.kind == OptimizerKind::adamw) {
    if (failed(readFloat("beta1", spec.beta1, false, 0.0, false, 1.0, true)) ||
        failed(readFloat("beta2", spec.beta2, false, 0.0, false, 1.0, true)) ||
        failed(readFloat("eps", spec.eps, false, 0.0, false, inf, true)))
      return failure();
  }
  return spec;
}

/// A parameter of the forward-backward function and what belongs to it.
struct Param {
  StringAttr name;
  BlockArgument arg; // In the original entry block.
  RankedTensorType type;
  unsigned gradResult = 0; // Operand of the return.
};

/// A model buffer (batch norm's running statistics): state the forward pass
/// reads and returns updated.
struct Buffer {
  StringAttr name;
  BlockArgument arg; // In the original entry block.
  RankedTensorType type;
  unsigned result = 0; // Operand of the return: its new value.
};

/// The roles of a forward-backward function's arguments and results.
struct TrainingSignature {
  SmallVector<Param> params;
  SmallVector<Buffer> buffers;
  SmallVector<BlockArgument> batch;
  BlockArgument seed;
  unsigned lossResult = 0;
  func::ReturnOp ret;
};

FailureOr<TrainingSignature> analyse(func::FuncOp func) {
  TrainingSignature sig;
  if (func.isExternal())
    return func.emitError() << "a training function needs a body";
  if (!func.getBody().hasOneBlock()) {
    // Several blocks: there must be exactly one return.
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp r) { returns.push_back(r); });
    if (returns.size() != 1)
      return func.emitError() << "a training function must have exactly one "
                                 "return, it has "
                              << returns.size();
    sig.ret = returns.front();
  } else {
    sig.ret = dyn_cast<func::ReturnOp>(func.front().getTerminator());
    if (!sig.ret)
      return func.emitError() << "a training function must end in func.return";
  }
  llvm::StringMap<unsigned> paramIndex, bufferIndex;
  Block &entry = func.front();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    Location loc = arg.getLoc();
    bool isParam = func.getArgAttr(i, kParamAttr) != nullptr;
    bool isSeed = func.getArgAttr(i, kSeedAttr) != nullptr;
    bool isBatch = func.getArgAttr(i, kBatchAttr) != nullptr;
    bool isBuffer = func.getArgAttr(i, kBufferAttr) != nullptr;
    if (int(isParam) + int(isSeed) + int(isBatch) + int(isBuffer) > 1)
      return emitError(loc) << "argument #" << i << " has more than one of '"
                            << kParamAttr << "', '" << kBufferAttr << "', '"
                            << kSeedAttr << "', '" << kBatchAttr << "'";
    if (isBuffer) {
      auto name = func.getArgAttrOfType<StringAttr>(i, kBufferAttr);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape())
        return emitError(loc)
               << "buffer '" << name.getValue()
               << "' must be a tensor of static shape, got " << arg.getType();
      if (!bufferIndex.try_emplace(name.getValue(), sig.buffers.size()).second)
        return emitError(loc)
               << "two buffers are named '" << name.getValue() << "'";
      sig.buffers.push_back({name, arg, type, 0});
      continue;
    }
    if (isSeed) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() != 0 || !type.getElementType().isF32())
        return emitError(loc)
               << "the '" << kSeedAttr
               << "' argument must be a tensor<f32>, got " << arg.getType();
      if (sig.seed)
        return emitError(loc) << "a training function has one '" << kSeedAttr
                              << "' argument, this is the second";
      sig.seed = arg;
      continue;
    }
    if (isParam) {
      auto name = func.getArgAttrOfType<StringAttr>(i, kParamAttr);
      if (!name)
        return emitError(loc) << "'" << kParamAttr
                              << "' must be a string (the parameter's name)";
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
        return emitError(loc) << "parameter '" << name.getValue()
                              << "' must be an f32 tensor of static shape, "
                                 "got "
                              << arg.getType();
      if (!paramIndex.try_emplace(name.getValue(), sig.params.size()).second)
        return emitError(loc)
               << "two parameters are named '" << name.getValue() << "'";
      sig.params.push_back({name, arg, type, 0});
      continue;
    }
    sig.batch.push_back(arg);
  }
  if (sig.params.empty())
    return func.emitError() << "a training function needs at least one '"
                            << kParamAttr << "' argument";

  bool haveLoss = false;
  SmallVector<bool> haveGrad(sig.params.size(), false);
  SmallVector<bool> haveUpdate(sig.buffers.size(), false);
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    if (auto name = func.getResultAttrOfType<StringAttr>(i, kBufferAttr)) {
      auto it = bufferIndex.find(name.getValue());
      if (it == bufferIndex.end())
        return func.emitError()
               << "result #" << i << " is the new value of buffer '"
               << name.getValue() << "', which is not an argument";
      Buffer &buffer = sig.buffers[it->second];
      if (haveUpdate[it->second])
        return func.emitError()
               << "buffer '" << name.getValue() << "' has two new values";
      if (func.getResultTypes()[i] != buffer.type)
        return func.emitError()
               << "the new value of buffer '" << name.getValue()
               << "' has type " << func.getResultTypes()[i] << ", its argument "
               << buffer.type;
      haveUpdate[it->second] = true;
      buffer.result = i;
      continue;
    }
    if (func.getResultAttr(i, kLossAttr)) {
      auto type = dyn_cast<RankedTensorType>(func.getResultTypes()[i]);
      if (!type || type.getRank() != 0 || !type.getElementType().isF32())
        return func.emitError()
               << "the '" << kLossAttr << "' result must be a tensor<f32>, got "
               << func.getResultTypes()[i];
      if (haveLoss)
        return func.emitError()
               << "a training function has one '" << kLossAttr << "' result";
      haveLoss = true;
      sig.lossResult = i;
      continue;
    }
    auto grad = func.getResultAttrOfType<StringAttr>(i, kGradAttr);
    if (!grad)
      return func.emitError()
             << "result #" << i << " is neither the '" << kLossAttr
             << "' nor an '" << kGradAttr << " = \"name\"' gradient nor an '"
             << kBufferAttr << " = \"name\"' buffer";
    auto it = paramIndex.find(grad.getValue());
    if (it == paramIndex.end())
      return func.emitError()
             << "result #" << i << " is the gradient of '" << grad.getValue()
             << "', which is not a parameter";
    Param &param = sig.params[it->second];
    if (haveGrad[it->second])
      return func.emitError()
             << "parameter '" << grad.getValue() << "' has two gradients";
    if (func.getResultTypes()[i] != param.type)
      return func.emitError()
             << "the gradient of '" << grad.getValue() << "' has type "
             << func.getResultTypes()[i] << ", its parameter " << param.type;
    haveGrad[it->second] = true;
    param.gradResult = i;
  }
  if (!haveLoss)
    return func.emitError()
           << "a training function needs an '" << kLossAttr << "' result";
  for (auto [param, have] : llvm::zip(sig.params, haveGrad))
    if (!have)
      return func.emitError() << "parameter '" << param.name.getValue()
                              << "' has no '" << kGradAttr << "' result";
  for (auto [buffer, have] : llvm::zip(sig.buffers, haveUpdate))
    if (!have)
      return func.emitError()
             << "buffer '" << buffer.name.getValue() << "' has no '"
             << kBufferAttr << "' result (its new value)";
  return sig;
}

/// Identity maps of `rank` dimensions and the broadcast of a 0-d tensor.
/// `step + (found ? 0 : 1)` on 0-d tensors.
Value buildStepCount(OpBuilder &b, Location loc, Value step, Value found) {
  MLIRContext *ctx = b.getContext();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{step.getType()}, ValueRange{step, found},
      ValueRange{step},
      SmallVector<AffineMap>(3, AffineMap::get(0, 0, {}, ctx)),
      ArrayRef<utils::IteratorType>{},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value one = arith::ConstantOp::create(nb, l, nb.getI32IntegerAttr(1));
        Value next = arith::AddIOp::create(nb, l, args[0], one);
        Value r = arith::SelectOp::create(nb, l, args[1], args[0], next);
        linalg::YieldOp::create(nb, l, r);
      });
  return generic.getResult(0);
}

struct AmpTrainingPass
    : public amp::impl::AmpTrainingPassBase<AmpTrainingPass> {
  using Base::Base;
  void runOnOperation() override;

  LogicalResult rewrite(func::FuncOp func, LossScalingAttr defaultConfig);
};

/// The loss scaler's state, in the order steps take and return it.
static constexpr StringLiteral kScalerNames[] = {"scale", "good_steps",
                                                 "bad_steps", "hysteresis"};

namespace {
/// The arguments of a training step: the parameters (fp32 masters), the
/// model's buffers, the optimizer's state (one per state name and
/// parameter), the step count, the loss scaler's state, the batch.
struct StepArguments {
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  /// "<state name>:<parameter>", state name by state name.
  SmallVector<std::string> stateLabels;
  unsigned numParams = 0, bufferBase = 0, stateBase = 0, stepIndex = 0,
           scalerBase = 0, batchBase = 0;
};
} // namespace

static StepArguments getStepArguments(func::FuncOp func,
                                      const TrainingSignature &sig,
                                      const OptimizerSpec &spec) {
  MLIRContext *ctx = func.getContext();
  Builder attrs(ctx);
  auto scalarF32 = RankedTensorType::get({}, attrs.getF32Type());
  auto scalarI32 = RankedTensorType::get({}, attrs.getI32Type());
  auto named = [&](StringRef key, StringRef value) {
    return attrs.getNamedAttr(key, attrs.getStringAttr(value));
  };
  StepArguments args;
  for (const Param &param : sig.params) {
    args.types.push_back(param.type);
    args.attrs.push_back(attrs.getDictionaryAttr(
        {attrs.getNamedAttr(AmpDialect::kMasterAttrName, attrs.getUnitAttr()),
         attrs.getNamedAttr(kParamAttr, param.name)}));
  }
  for (const Buffer &buffer : sig.buffers) {
    args.types.push_back(buffer.type);
    args.attrs.push_back(attrs.getDictionaryAttr(
        {attrs.getNamedAttr(kBufferAttr, buffer.name)}));
  }
  for (StringRef stateName : spec.stateNames())
    for (const Param &param : sig.params)
      args.stateLabels.push_back(
          (stateName + ":" + param.name.getValue()).str());
  for (auto [index, label] : llvm::enumerate(args.stateLabels)) {
    args.types.push_back(sig.params[index % sig.params.size()].type);
    args.attrs.push_back(attrs.getDictionaryAttr({named(kStateAttr, label)}));
  }
  args.types.push_back(scalarI32);
  args.attrs.push_back(attrs.getDictionaryAttr({named(kStateAttr, "step")}));
  args.types.append({scalarF32, scalarI32, scalarI32, scalarI32});
  for (StringRef name : kScalerNames)
    args.attrs.push_back(attrs.getDictionaryAttr({named(kScalerAttr, name)}));
  for (BlockArgument arg : sig.batch) {
    args.types.push_back(arg.getType());
    NamedAttrList list(func.getArgAttrDict(arg.getArgNumber()));
    if (!list.get(kBatchAttr))
      list.set(kBatchAttr, attrs.getUnitAttr());
    args.attrs.push_back(list.getDictionary(ctx));
  }
  args.numParams = sig.params.size();
  args.bufferBase = args.numParams;
  args.stateBase = args.bufferBase + sig.buffers.size();
  args.stepIndex = args.stateBase + args.stateLabels.size();
  args.scalerBase = args.stepIndex + 1;
  args.batchBase = args.scalerBase + std::size(kScalerNames);
  return args;
}

/// @<name>_init of the step `func`: the initial optimizer and scaler state.
static void createInitFunction(func::FuncOp func, const StepArguments &args,
                               LossScalingAttr config) {
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  OpBuilder mb(func);
  mb.setInsertionPointAfter(func);
  SmallVector<Type> initTypes(args.types.begin() + args.stateBase,
                              args.types.begin() + args.batchBase);
  SmallVector<DictionaryAttr> initAttrs(args.attrs.begin() + args.stateBase,
                                        args.attrs.begin() + args.batchBase);
  std::string initName = (func.getSymName() + "_init").str();
  auto init = func::FuncOp::create(mb, loc, initName,
                                   FunctionType::get(ctx, {}, initTypes));
  init.setAllResultAttrs(initAttrs);
  init.setVisibility(func.getVisibility());
  Block *initBody = init.addEntryBlock();
  OpBuilder ib = OpBuilder::atBlockBegin(initBody);
  auto scalarF32 = RankedTensorType::get({}, ib.getF32Type());
  auto scalarI32 = RankedTensorType::get({}, ib.getI32Type());
  SmallVector<Value> initValues;
  for (Type type : ArrayRef(initTypes).drop_back(5))
    initValues.push_back(arith::ConstantOp::create(
        ib, loc,
        DenseElementsAttr::get(cast<ShapedType>(type), APFloat(0.0f))));
  auto i32Const = [&](int64_t v) {
    return arith::ConstantOp::create(
               ib, loc, DenseElementsAttr::get(scalarI32, APInt(32, v, true)))
        .getResult();
  };
  initValues.push_back(i32Const(0));
  initValues.push_back(arith::ConstantOp::create(
      ib, loc,
      DenseElementsAttr::get(scalarF32,
                             APFloat(static_cast<float>(
                                 config.getInitScale().convertToDouble())))));
  initValues.push_back(i32Const(0));
  initValues.push_back(i32Const(0));
  initValues.push_back(i32Const(config.getHysteresis()));
  func::ReturnOp::create(ib, loc, initValues);
}

/// After the backward pass, at the old return: unscale, check,
/// (all-reduce), update. Replaces the return with the step's: the loss, the
/// new parameters, optimizer state, step count and scaler state, and
/// found_inf; their attributes go to `resultAttrs`.
static func::ReturnOp
buildStepUpdate(const TrainingSignature &sig, const OptimizerSpec &spec,
                const StepArguments &args, ArrayRef<Value> newArgs,
                LossScalingAttr config, bool dataParallel,
                SmallVectorImpl<DictionaryAttr> &resultAttrs) {
  func::ReturnOp ret = sig.ret;
  Location retLoc = ret.getLoc();
  OpBuilder b(ret);
  Builder attrs(ret.getContext());
  auto named = [&](StringRef key, StringRef value) {
    return attrs.getNamedAttr(key, attrs.getStringAttr(value));
  };
  Value scale = newArgs[args.scalerBase];
  SmallVector<Value> grads;
  for (const Param &param : sig.params)
    grads.push_back(ret.getOperand(param.gradResult));
  Value loss = ret.getOperand(sig.lossResult);
  auto unscale = CheckFiniteAndUnscaleOp::create(b, retLoc, grads, scale);
  SmallVector<Value> unscaled(unscale.getUnscaled());
  Value found = unscale.getFoundInf();
  if (dataParallel) {
    // Every rank decides from every rank's gradients: found_inf first (each
    // rank checked its own), then the gradients and the reported loss.
    found = AllReduceOp::create(b, retLoc, ReduceKind::max, found);
    for (Value &g : unscaled)
      g = AllReduceOp::create(b, retLoc, ReduceKind::mean, g);
    loss = AllReduceOp::create(b, retLoc, ReduceKind::mean, loss);
  }
  auto update = UpdateLossScalingOp::create(
      b, retLoc, found, scale, newArgs[args.scalerBase + 1],
      newArgs[args.scalerBase + 2], newArgs[args.scalerBase + 3], config);
  Value step = newArgs[args.stepIndex];
  unsigned numParams = args.numParams;
  unsigned numStates = spec.stateNames().size();
  // Every parameter's update in one op (one library call on the GPU), into
  // fresh destinations: the step returns new buffers, not its arguments.
  SmallVector<Value> current(newArgs.begin(), newArgs.begin() + numParams);
  for (unsigned s = 0; s < numStates; ++s)
    for (unsigned i = 0; i < numParams; ++i)
      current.push_back(newArgs[args.stateBase + s * numParams + i]);
  SmallVector<Value> inits;
  for (Value value : current) {
    auto type = cast<RankedTensorType>(value.getType());
    inits.push_back(tensor::EmptyOp::create(b, retLoc, type.getShape(),
                                            type.getElementType()));
  }
  auto optimizer = OptimizerUpdateOp::create(
      b, retLoc, TypeRange(ValueRange(inits)), spec.kind, unscaled, step, found,
      current, inits, APFloat(spec.lr), APFloat(spec.weightDecay),
      APFloat(spec.momentum), APFloat(spec.dampening), spec.nesterov,
      APFloat(spec.beta1), APFloat(spec.beta2), APFloat(spec.eps));
  SmallVector<Value> updated(optimizer.getResults());
  SmallVector<Value> newParams(updated.begin(), updated.begin() + numParams);
  SmallVector<Value> newState(updated.begin() + numParams, updated.end());
  Value newStep = buildStepCount(b, retLoc, step, found);

  SmallVector<Value> results = {loss};
  resultAttrs.push_back(attrs.getDictionaryAttr(
      {attrs.getNamedAttr(kLossAttr, attrs.getUnitAttr())}));
  for (auto [param, value] : llvm::zip(sig.params, newParams)) {
    results.push_back(value);
    resultAttrs.push_back(
        attrs.getDictionaryAttr({attrs.getNamedAttr(kParamAttr, param.name)}));
  }
  // The buffers' new values, whether or not the step is skipped: the
  // forward pass ran (as PyTorch's GradScaler leaves them).
  for (const Buffer &buffer : sig.buffers) {
    results.push_back(ret.getOperand(buffer.result));
    resultAttrs.push_back(attrs.getDictionaryAttr(
        {attrs.getNamedAttr(kBufferAttr, buffer.name)}));
  }
  for (auto [label, value] : llvm::zip(args.stateLabels, newState)) {
    results.push_back(value);
    resultAttrs.push_back(attrs.getDictionaryAttr({named(kStateAttr, label)}));
  }
  results.push_back(newStep);
  resultAttrs.push_back(attrs.getDictionaryAttr({named(kStateAttr, "step")}));
  for (auto [name, value] : llvm::zip(kScalerNames, update.getResults())) {
    results.push_back(value);
    resultAttrs.push_back(attrs.getDictionaryAttr({named(kScalerAttr, name)}));
  }
  results.push_back(found);
  resultAttrs.push_back(attrs.getDictionaryAttr(
      {attrs.getNamedAttr(kFoundInfAttr, attrs.getUnitAttr())}));
  auto newReturn = func::ReturnOp::create(b, retLoc, results);
  ret.erase();
  return newReturn;
}

LogicalResult AmpTrainingPass::rewrite(func::FuncOp func,
                                       LossScalingAttr defaultConfig) {
  FailureOr<TrainingSignature> sigOr = analyse(func);
  if (failed(sigOr))
    return failure();
  FailureOr<OptimizerSpec> specOr = parseOptimizer(func);
  if (failed(specOr))
    return failure();
  TrainingSignature &sig = *sigOr;
  const OptimizerSpec &spec = *specOr;
  LossScalingAttr config = defaultConfig;
  if (Attribute attr = func->getAttr(kLossScalingAttr)) {
    config = dyn_cast<LossScalingAttr>(attr);
    if (!config)
      return func.emitError()
             << "'" << kLossScalingAttr
             << "' must be a #amp.loss_scaling attribute, got " << attr;
  }
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  StepArguments args = getStepArguments(func, sig, spec);

  // The new entry block; the old one's operations move into it.
  Block &oldEntry = func.front();
  auto *entry = new Block();
  func.getBody().push_front(entry);
  SmallVector<Value> newArgs;
  for (Type type : args.types)
    newArgs.push_back(entry->addArgument(type, loc));
  for (auto [i, param] : llvm::enumerate(sig.params))
    param.arg.replaceAllUsesWith(newArgs[i]);
  for (auto [i, buffer] : llvm::enumerate(sig.buffers))
    buffer.arg.replaceAllUsesWith(newArgs[args.bufferBase + i]);
  for (auto [i, arg] : llvm::enumerate(sig.batch))
    arg.replaceAllUsesWith(newArgs[args.batchBase + i]);

  // The seed is the loss scale: gradients come out scaled.
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
  Value one = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scalarF32, APFloat(1.0f)));
  Value seed = ScaleLossOp::create(b, sig.seed.getLoc(), scalarF32, one,
                                   newArgs[args.scalerBase]);
  sig.seed.replaceAllUsesWith(seed);
  entry->getOperations().splice(entry->end(), oldEntry.getOperations());
  oldEntry.erase();

  SmallVector<DictionaryAttr> resultAttrs;
  func::ReturnOp ret = buildStepUpdate(sig, spec, args, newArgs, config,
                                       dataParallel, resultAttrs);
  func.setFunctionType(
      FunctionType::get(ctx, args.types, ret.getOperandTypes()));
  func.setAllArgAttrs(args.attrs);
  func.setAllResultAttrs(resultAttrs);
  func->removeAttr(kOptimizerAttr);
  func->setAttr(kLossScalingAttr, config);
  createInitFunction(func, args, config);
  return success();
}

void AmpTrainingPass::runOnOperation() {
  ModuleOp module = getOperation();
  LossScalingAttr defaultConfig =
      LossScalingAttr::getPreset(&getContext(), scaler);
  if (!defaultConfig) {
    module.emitError() << "amp-training: unknown loss-scaler preset '" << scaler
                       << "' (known: "
                       << llvm::join(LossScalingAttr::getPresetNames(), ", ")
                       << ")";
    return signalPassFailure();
  }
  SmallVector<func::FuncOp> functions;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, kSeedAttr)) {
        functions.push_back(func);
        break;
      }
  }
  // No forward-backward function: nothing changes, and the pass manager
  // skips verifying the module again.
  if (functions.empty())
    return markAllAnalysesPreserved();
  SymbolTable symbols(module);
  for (func::FuncOp func : functions) {
    std::string initName = (func.getSymName() + "_init").str();
    if (symbols.lookup(initName)) {
      func.emitError() << "amp-training adds a function '@" << initName
                       << "', but the module already has one";
      return signalPassFailure();
    }
    if (failed(rewrite(func, defaultConfig)))
      return signalPassFailure();
  }
}

} // namespace
