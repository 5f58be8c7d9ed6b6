//===- AmpInterfaces.td - amp op interfaces ----------------*- tablegen -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_TD

include "mlir/IR/OpBase.td"

def AmpPrecisionOpInterface : OpInterface<"AmpPrecisionOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    How an operation behaves under automatic mixed precision. The AMP
    policies (`--amp-o1`, `--amp-o2`) ask every operation through this
    interface instead of matching op names: a dialect opts in by attaching an
    external model (the precision policies register models for linalg, tosa,
    arith, math and tensor data movement), and a downstream compiler can
    attach its own to its ops, or replace the default ones.

    * `getAmpCategory()`: white (runs in low precision), black (stays fp32 at
      O1), gray (follows its producers) or unsupported (not a floating-point
      computation). It may look at the operation itself, e.g. a
      `linalg.generic` is classified from its body and iterators.
    * `operandMustStayF32(i)`: operands that keep fp32 whatever the policy
      (batch-norm statistics, a loss scale, ...).
    * `getAccumulatorType(t)`: the type the op accumulates in when it
      computes in `t` (fp32 for matmul and convolution in fp16/bf16), or
      null when it does not accumulate.
    * `supportsPrecision(t)`: whether the op can compute in `t` at all.
    * `isDataMovement()`: the op only moves elements, so conversions commute
      with it (cast placement moves them across).
    * `convertToPrecision(rewriter, t, caster)`: rewrites the op to compute
      in `t`, asking `caster` for every operand in the type it needs (so one
      conversion per value and type is shared). The default changes the
      element type of float operands and results in place (operands that
      must stay f32 stay f32; results take the accumulator type when there
      is one); ops with type-dependent regions or attributes override it.
  }];

  let methods = [
    InterfaceMethod<
      /*desc=*/"Returns the AMP category of this operation.",
      /*retTy=*/"::mlir::amp::Category",
      /*methodName=*/"getAmpCategory">,
    InterfaceMethod<
      /*desc=*/[{
        Returns true if operand `operandIndex` must stay in fp32 whatever the
        precision the operation computes in.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"operandMustStayF32",
      /*args=*/(ins "unsigned":$operandIndex),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<
      /*desc=*/[{
        Returns the element type the operation accumulates in when it
        computes in `computeType`, or a null type if it does not accumulate
        (elementwise ops) or accumulates in `computeType` itself.
      }],
      /*retTy=*/"::mlir::FloatType",
      /*methodName=*/"getAccumulatorType",
      /*args=*/(ins "::mlir::FloatType":$computeType),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{ return {}; }]>,
    InterfaceMethod<
      /*desc=*/[{
        Returns true if the operation can compute in `computeType` (e.g. an
        op may accept f16 but not bf16).
      }],
      /*retTy=*/"bool",
      /*methodName=*/"supportsPrecision",
      /*args=*/(ins "::mlir::FloatType":$computeType),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{ return true; }]>,
    InterfaceMethod<
      /*desc=*/[{
        Returns true if the operation only moves or replicates elements
        (transpose, reshape, slice, pad, broadcast, concat, ...): a
        conversion commutes with it, so cast placement may move conversions
        across it to where the tensor is smallest.
      }],
      /*retTy=*/"bool",
      /*methodName=*/"isDataMovement",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<
      /*desc=*/[{
        Rewrites the operation to compute in `computeType` (f16 or bf16).
        Operands are obtained from `caster`, which converts and shares
        values; the operation may be updated in place or replaced through
        `rewriter`. Results may change type: the caller converts them back
        for users that need the old type. Returns failure, without changing
        anything, when the operation cannot be converted.
      }],
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"convertToPrecision",
      /*args=*/(ins "::mlir::RewriterBase &":$rewriter,
                    "::mlir::FloatType":$computeType,
                    "::mlir::amp::ValueCaster &":$caster),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::amp::detail::convertElementTypesInPlace(
            $_op.getOperation(), rewriter, computeType, caster);
      }]>
  ];
}

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
