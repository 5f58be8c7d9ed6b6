//===- DecisionOptions.h - the options of the precision decision -*- C++
//-*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_DECISIONOPTIONS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_DECISIONOPTIONS_H

namespace mlir {
namespace amp {

/// Copies the options of the precision decision, which carry the same names
/// in the pass options, the passes themselves and AmpPipelineOptions, from
/// `src` to `dst` (the level is set by the caller).
template <typename Dst, typename Src>
void copyDecisionOptions(const Src &src, Dst &dst) {
  dst.dtype = src.dtype;
  dst.customWhiteList.assign(src.customWhiteList.begin(),
                             src.customWhiteList.end());
  dst.customBlackList.assign(src.customBlackList.begin(),
                             src.customBlackList.end());
  dst.useFp16Guard = src.useFp16Guard;
  dst.policyFile = src.policyFile;
  dst.explain = src.explain;
  dst.placement = src.placement;
  dst.lossScaling = src.lossScaling;
  dst.argPrecision = src.argPrecision;
  dst.rounding = src.rounding;
  dst.f64 = src.f64;
}

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_DECISIONOPTIONS_H
