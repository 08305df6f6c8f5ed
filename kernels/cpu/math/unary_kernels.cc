// CPU kernels of the unary math ops (float16/bfloat16 compute in float32, half_kernels.h).
// Transcendentals run on SLEEF's AVX2 functions (functors.h).
#include <cstdint>

#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/half_kernels.h"

namespace duet {
namespace {

const bool registered = [] {
  RegisterUnaryKernels<NegFn, float, double, int32_t, int64_t>("Neg");
  RegisterUnaryKernels<AbsFn, float, double, int32_t, int64_t>("Abs");
  RegisterUnaryKernels<SquareFn, float, double, int32_t, int64_t>("Square");
  RegisterUnaryKernels<SignFn, float, double, int32_t, int64_t>("Sign");
  RegisterUnaryKernels<ReluFn, float, double, int32_t, int64_t>("Relu");
  RegisterUnaryKernels<Relu6Fn, float, double, int32_t, int64_t>("Relu6");
  RegisterUnaryKernels<FloorFn, float, double>("Floor");
  RegisterUnaryKernels<CeilFn, float, double>("Ceil");
  RegisterUnaryKernels<SqrtFn, float, double>("Sqrt");
  RegisterUnaryKernels<RsqrtFn, float, double>("Rsqrt");
  RegisterUnaryKernels<ExpFn, float, double>("Exp");
  RegisterUnaryKernels<LogFn, float, double>("Log");
  RegisterUnaryKernels<Log1pFn, float, double>("Log1p");
  RegisterUnaryKernels<TanhFn, float, double>("Tanh");
  RegisterUnaryKernels<SigmoidFn, float, double>("Sigmoid");
  RegisterUnaryKernels<EluFn, float, double>("Elu");
  RegisterUnaryKernels<SoftplusFn, float, double>("Softplus");
  RegisterUnaryKernels<RoundFn, float, double, int32_t, int64_t>("Round");
  RegisterUnaryKernels<RintFn, float, double>("Rint");
  RegisterUnaryKernels<SeluFn, float, double>("Selu");
  RegisterUnaryKernels<SoftsignFn, float, double>("Softsign");
  RegisterUnaryKernels<ErfFn, float, double>("Erf");
  RegisterUnaryKernels<ErfcFn, float, double>("Erfc");
  RegisterUnaryKernels<ErfinvFn, float, double>("Erfinv");
  RegisterUnaryKernels<SinFn, float, double>("Sin");
  RegisterUnaryKernels<CosFn, float, double>("Cos");
  RegisterHalfUnaryKernels<NegFn>("Neg");
  RegisterHalfUnaryKernels<AbsFn>("Abs");
  RegisterHalfUnaryKernels<SquareFn>("Square");
  RegisterHalfUnaryKernels<SignFn>("Sign");
  RegisterHalfUnaryKernels<ReluFn>("Relu");
  RegisterHalfUnaryKernels<Relu6Fn>("Relu6");
  RegisterHalfUnaryKernels<FloorFn>("Floor");
  RegisterHalfUnaryKernels<CeilFn>("Ceil");
  RegisterHalfUnaryKernels<SqrtFn>("Sqrt");
  RegisterHalfUnaryKernels<RsqrtFn>("Rsqrt");
  RegisterHalfUnaryKernels<ExpFn>("Exp");
  RegisterHalfUnaryKernels<LogFn>("Log");
  RegisterHalfUnaryKernels<Log1pFn>("Log1p");
  RegisterHalfUnaryKernels<TanhFn>("Tanh");
  RegisterHalfUnaryKernels<SigmoidFn>("Sigmoid");
  RegisterHalfUnaryKernels<EluFn>("Elu");
  RegisterHalfUnaryKernels<SoftplusFn>("Softplus");
  RegisterHalfUnaryKernels<RoundFn>("Round");
  RegisterHalfUnaryKernels<RintFn>("Rint");
  RegisterHalfUnaryKernels<SeluFn>("Selu");
  RegisterHalfUnaryKernels<SoftsignFn>("Softsign");
  RegisterHalfUnaryKernels<ErfFn>("Erf");
  RegisterHalfUnaryKernels<ErfcFn>("Erfc");
  RegisterHalfUnaryKernels<ErfinvFn>("Erfinv");
  RegisterHalfUnaryKernels<SinFn>("Sin");
  RegisterHalfUnaryKernels<CosFn>("Cos");
  return true;
}();

}  // namespace
}  // namespace duet
