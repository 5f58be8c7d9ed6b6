//===- SimMath.cpp - libdevice's __nv_* functions on the host -------------===//
//
// Part of amp-mlir. convert-gpu-to-nvvm lowers math ops in kernels to calls
// of libdevice (`__nv_expf`, ...); the simulated kernels call these host
// versions instead, which are libm's (correctly rounded or within an ulp or
// two, like libdevice's precise functions). The `__nv_fast_*` variants
// (fastmath<afn>) are the precise ones here: the simulator does not model
// the GPU's approximation error. The list is every __nv_* symbol that
// MLIR 22's GPUToNVVM can emit.
//
//===----------------------------------------------------------------------===//

#include "amp/runtime/AmpRuntime.h"

#include <cmath>
#include <cstdlib>

#define AMP_NV_UNARY(name, type, expr)                                         \
  AMP_RUNTIME_API type __nv_##name(type x) { return expr; }
#define AMP_NV_BINARY(name, type, expr)                                        \
  AMP_RUNTIME_API type __nv_##name(type x, type y) { return expr; }

extern "C" {
// f32
AMP_NV_UNARY(acosf, float, std::acos(x))
AMP_NV_UNARY(acoshf, float, std::acosh(x))
AMP_NV_UNARY(asinf, float, std::asin(x))
AMP_NV_UNARY(asinhf, float, std::asinh(x))
AMP_NV_UNARY(atanf, float, std::atan(x))
AMP_NV_UNARY(atanhf, float, std::atanh(x))
AMP_NV_UNARY(cbrtf, float, std::cbrt(x))
AMP_NV_UNARY(ceilf, float, std::ceil(x))
AMP_NV_UNARY(cosf, float, std::cos(x))
AMP_NV_UNARY(coshf, float, std::cosh(x))
AMP_NV_UNARY(erff, float, std::erf(x))
AMP_NV_UNARY(erfcf, float, std::erfc(x))
AMP_NV_UNARY(expf, float, std::exp(x))
AMP_NV_UNARY(exp2f, float, std::exp2(x))
AMP_NV_UNARY(expm1f, float, std::expm1(x))
AMP_NV_UNARY(fabsf, float, std::fabs(x))
AMP_NV_UNARY(floorf, float, std::floor(x))
AMP_NV_UNARY(logf, float, std::log(x))
AMP_NV_UNARY(log10f, float, std::log10(x))
AMP_NV_UNARY(log1pf, float, std::log1p(x))
AMP_NV_UNARY(log2f, float, std::log2(x))
AMP_NV_UNARY(rintf, float, std::rint(x))
AMP_NV_UNARY(roundf, float, std::round(x))
AMP_NV_UNARY(rsqrtf, float, 1.0f / std::sqrt(x))
AMP_NV_UNARY(sinf, float, std::sin(x))
AMP_NV_UNARY(sinhf, float, std::sinh(x))
AMP_NV_UNARY(sqrtf, float, std::sqrt(x))
AMP_NV_UNARY(tanf, float, std::tan(x))
AMP_NV_UNARY(tanhf, float, std::tanh(x))
AMP_NV_UNARY(fast_cosf, float, std::cos(x))
AMP_NV_UNARY(fast_expf, float, std::exp(x))
AMP_NV_UNARY(fast_log10f, float, std::log10(x))
AMP_NV_UNARY(fast_log2f, float, std::log2(x))
AMP_NV_UNARY(fast_logf, float, std::log(x))
AMP_NV_UNARY(fast_sinf, float, std::sin(x))
AMP_NV_UNARY(fast_tanf, float, std::tan(x))
AMP_NV_BINARY(atan2f, float, std::atan2(x, y))
AMP_NV_BINARY(copysignf, float, std::copysign(x, y))
AMP_NV_BINARY(fmaxf, float, std::fmax(x, y))
AMP_NV_BINARY(fminf, float, std::fmin(x, y))
AMP_NV_BINARY(fmodf, float, std::fmod(x, y))
AMP_NV_BINARY(powf, float, std::pow(x, y))
AMP_NV_BINARY(fast_powf, float, std::pow(x, y))
AMP_RUNTIME_API float __nv_fmaf(float x, float y, float z) {
  return std::fma(x, y, z);
}
AMP_RUNTIME_API float __nv_powif(float x, int y) {
  return static_cast<float>(std::pow(x, y));
}
AMP_RUNTIME_API void __nv_sincosf(float x, float *s, float *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
AMP_RUNTIME_API void __nv_fast_sincosf(float x, float *s, float *c) {
  __nv_sincosf(x, s, c);
}
AMP_RUNTIME_API int __nv_finitef(float x) { return std::isfinite(x); }
AMP_RUNTIME_API int __nv_isinff(float x) { return std::isinf(x); }
AMP_RUNTIME_API int __nv_isnanf(float x) { return std::isnan(x); }

// f64
AMP_NV_UNARY(acos, double, std::acos(x))
AMP_NV_UNARY(acosh, double, std::acosh(x))
AMP_NV_UNARY(asin, double, std::asin(x))
AMP_NV_UNARY(asinh, double, std::asinh(x))
AMP_NV_UNARY(atan, double, std::atan(x))
AMP_NV_UNARY(atanh, double, std::atanh(x))
AMP_NV_UNARY(cbrt, double, std::cbrt(x))
AMP_NV_UNARY(ceil, double, std::ceil(x))
AMP_NV_UNARY(cos, double, std::cos(x))
AMP_NV_UNARY(cosh, double, std::cosh(x))
AMP_NV_UNARY(erf, double, std::erf(x))
AMP_NV_UNARY(erfc, double, std::erfc(x))
AMP_NV_UNARY(exp, double, std::exp(x))
AMP_NV_UNARY(exp2, double, std::exp2(x))
AMP_NV_UNARY(expm1, double, std::expm1(x))
AMP_NV_UNARY(fabs, double, std::fabs(x))
AMP_NV_UNARY(floor, double, std::floor(x))
AMP_NV_UNARY(log, double, std::log(x))
AMP_NV_UNARY(log10, double, std::log10(x))
AMP_NV_UNARY(log1p, double, std::log1p(x))
AMP_NV_UNARY(log2, double, std::log2(x))
AMP_NV_UNARY(rint, double, std::rint(x))
AMP_NV_UNARY(round, double, std::round(x))
AMP_NV_UNARY(rsqrt, double, 1.0 / std::sqrt(x))
AMP_NV_UNARY(sin, double, std::sin(x))
AMP_NV_UNARY(sinh, double, std::sinh(x))
AMP_NV_UNARY(sqrt, double, std::sqrt(x))
AMP_NV_UNARY(tan, double, std::tan(x))
AMP_NV_UNARY(tanh, double, std::tanh(x))
AMP_NV_BINARY(atan2, double, std::atan2(x, y))
AMP_NV_BINARY(copysign, double, std::copysign(x, y))
AMP_NV_BINARY(fmax, double, std::fmax(x, y))
AMP_NV_BINARY(fmin, double, std::fmin(x, y))
AMP_NV_BINARY(fmod, double, std::fmod(x, y))
AMP_NV_BINARY(pow, double, std::pow(x, y))
AMP_RUNTIME_API double __nv_fma(double x, double y, double z) {
  return std::fma(x, y, z);
}
AMP_RUNTIME_API double __nv_powi(double x, int y) { return std::pow(x, y); }
AMP_RUNTIME_API void __nv_sincos(double x, double *s, double *c) {
  *s = std::sin(x);
  *c = std::cos(x);
}
AMP_RUNTIME_API int __nv_isfinited(double x) { return std::isfinite(x); }
AMP_RUNTIME_API int __nv_isinfd(double x) { return std::isinf(x); }
AMP_RUNTIME_API int __nv_isnand(double x) { return std::isnan(x); }
AMP_RUNTIME_API int __nv_abs(int x) { return std::abs(x); }
} // extern "C"
