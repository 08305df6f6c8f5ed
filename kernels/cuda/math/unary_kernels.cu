// The unary math ops: 16-byte packs when input and output are aligned for them, grid-stride.
#include "kernels/cuda/math/elementwise_common.cu.h"

namespace duet::cuda {
namespace {

template <typename Op, typename S>
__device__ __forceinline__ S ApplyUnary(S x) {
  return FromCompute<S>(Op()(ToCompute(x)));
}

// z = op(x), N elements per pack (N == 1: element by element).
template <typename Op, typename S, int N>
__global__ void UnaryKernel(const S* __restrict__ x, S* __restrict__ z, int64_t n) {
  const int64_t packs = n / N;
  for (int64_t p = GlobalThread<int64_t>(); p < packs; p += GridStride<int64_t>()) {
    Pack<S, N> a = reinterpret_cast<const Pack<S, N>*>(x)[p];
#pragma unroll
    for (int j = 0; j < N; ++j) a.v[j] = ApplyUnary<Op, S>(a.v[j]);
    reinterpret_cast<Pack<S, N>*>(z)[p] = a;
  }
  for (int64_t i = packs * N + GlobalThread<int64_t>(); i < n; i += GridStride<int64_t>()) {
    z[i] = ApplyUnary<Op, S>(x[i]);
  }
}

enum class UnaryTypes { kArithmetic, kFloat, kBool };

template <UnaryTypes kSet, typename S>
constexpr bool Accepts() {
  if constexpr (kSet == UnaryTypes::kBool) {
    return std::is_same_v<S, bool>;
  } else if constexpr (kSet == UnaryTypes::kFloat) {
    return std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, __half> ||
           std::is_same_v<S, __nv_bfloat16>;
  } else {
    return !std::is_same_v<S, bool>;
  }
}

template <typename Op, UnaryTypes kSet>
cudaError_t LaunchUnaryOp(ElementType type, const void* x, void* z, int64_t n,
                          cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  return VisitElementType(type, [&](auto zero) -> cudaError_t {
    using S = decltype(zero);
    if constexpr (Accepts<kSet, S>()) {
      const S* in = static_cast<const S*>(x);
      S* out = static_cast<S*>(z);
      constexpr int N = kPackSize<S>;
      if (n >= N && IsAligned(in, sizeof(S) * N) && IsAligned(out, sizeof(S) * N)) {
        UnaryKernel<Op, S, N><<<BlocksFor(n / N), kThreads, 0, stream>>>(in, out, n);
      } else {
        UnaryKernel<Op, S, 1><<<BlocksFor(n), kThreads, 0, stream>>>(in, out, n);
      }
      return cudaGetLastError();
    } else {
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace

cudaError_t LaunchUnary(UnaryOp op, ElementType type, const void* x, void* z, int64_t n,
                        cudaStream_t stream) {
  using namespace duet_gpu;
  constexpr UnaryTypes kArith = UnaryTypes::kArithmetic;
  constexpr UnaryTypes kFloat = UnaryTypes::kFloat;
  switch (op) {
    case UnaryOp::kNeg:
      return LaunchUnaryOp<NegFn, kArith>(type, x, z, n, stream);
    case UnaryOp::kAbs:
      return LaunchUnaryOp<AbsFn, kArith>(type, x, z, n, stream);
    case UnaryOp::kSquare:
      return LaunchUnaryOp<SquareFn, kArith>(type, x, z, n, stream);
    case UnaryOp::kSign:
      return LaunchUnaryOp<SignFn, kArith>(type, x, z, n, stream);
    case UnaryOp::kFloor:
      return LaunchUnaryOp<FloorFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kCeil:
      return LaunchUnaryOp<CeilFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kSqrt:
      return LaunchUnaryOp<SqrtFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kRsqrt:
      return LaunchUnaryOp<RsqrtFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kExp:
      return LaunchUnaryOp<ExpFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kLog:
      return LaunchUnaryOp<LogFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kLog1p:
      return LaunchUnaryOp<Log1pFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kRound:
      return LaunchUnaryOp<RoundFn, kArith>(type, x, z, n, stream);
    case UnaryOp::kRint:
      return LaunchUnaryOp<RintFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kSelu:
      return LaunchUnaryOp<SeluFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kSoftsign:
      return LaunchUnaryOp<SoftsignFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kErf:
      return LaunchUnaryOp<ErfFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kErfc:
      return LaunchUnaryOp<ErfcFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kErfinv:
      return LaunchUnaryOp<ErfinvFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kSin:
      return LaunchUnaryOp<SinFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kCos:
      return LaunchUnaryOp<CosFn, kFloat>(type, x, z, n, stream);
    case UnaryOp::kLogicalNot:
      return LaunchUnaryOp<LogicalNotFn, UnaryTypes::kBool>(type, x, z, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace duet::cuda
