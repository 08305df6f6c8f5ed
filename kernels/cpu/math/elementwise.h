// Reusable elementwise machinery for CPU kernels: unary maps, binary ops with NumPy broadcasting
// (fast paths for same shape, scalar operands and row/column vectors, and a strided path for any
// ranks), splitting large tensors across the intra-op pool, and kernel registration helpers.
//
// An op is a functor. Binary: `R operator()(T x, T y) const`. Unary: `R operator()(T x) const`
// and/or `template <typename V> static V Vec(V x)` over the AVX2 vectors of simd.h (used for
// float and double when present). An optional `static constexpr int kCost` (default 1) says how
// many simple arithmetic ops one element costs, which lowers the threshold for threading.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "absl/strings/string_view.h"
#include "kernels/common/broadcast.h"
#include "kernels/cpu/math/simd.h"
#include "kernels/kernel_registry.h"

namespace duet {

// Work (elements x cost) below which a kernel stays on the calling thread: waking workers costs
// microseconds, far more than a small op (the 4x4 add budget is a few hundred nanoseconds).
inline constexpr int64_t kParallelWork = 32 * 1024;

// Runs fn(begin, end) over [0, n): inline for small work, else in chunks across the pool.
template <typename Fn>
void ParallelElements(const KernelContext& ctx, int64_t n, int cost, Fn&& fn) {
  if (n * cost < kParallelWork) {
    fn(int64_t{0}, n);
    return;
  }
  const int64_t min_chunk = std::max<int64_t>(kParallelWork / (2 * cost), 256);
  ctx.pool().ParallelFor(n, min_chunk, fn);
}

// Element count of a concrete tensor's shape (every dim known). Inline, unlike
// Shape::num_elements, because the per-op budget of tiny ops has no room for three calls of it.
inline int64_t ElementCount(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dims()) n *= d;
  return n;
}

// The per-element cost of op functor Op (see the file comment).
template <typename Op>
constexpr int CostOf() {
  if constexpr (requires { Op::kCost; }) {
    return Op::kCost;
  } else {
    return 1;
  }
}

// True when Op has an AVX2 version for element type T.
template <typename Op, typename T>
concept VectorUnaryOp = requires(simd::VecT<T> v) {
  { Op::Vec(v) } -> std::same_as<simd::VecT<T>>;
};

// The inner loops. GCC 12 at -O2 only vectorizes loops whose trip count it knows, so these
// request its normal (dynamic) cost model; __restrict because outputs are freshly allocated.
#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

// z[i] = op(x[i]) for i < n.
template <typename T, typename R, typename Op>
void MapUnary(const T* __restrict x, R* __restrict z, int64_t n, Op op) {
  if constexpr (VectorUnaryOp<Op, T> && std::is_same_v<T, R>) {
    simd::Map(x, z, n, [](auto v) { return Op::Vec(v); });
  } else {
    for (int64_t i = 0; i < n; ++i) z[i] = op(x[i]);
  }
}

// z[i] = op(x[i], y[i]): both operands walk along.
template <typename T, typename R, typename Op>
void MapVV(const T* __restrict x, const T* __restrict y, R* __restrict z, int64_t n, Op op) {
  for (int64_t i = 0; i < n; ++i) z[i] = op(x[i], y[i]);
}

// z[i] = op(x[i], y): y repeats.
template <typename T, typename R, typename Op>
void MapVS(const T* __restrict x, T y, R* __restrict z, int64_t n, Op op) {
  for (int64_t i = 0; i < n; ++i) z[i] = op(x[i], y);
}

// z[i] = op(x, y[i]): x repeats.
template <typename T, typename R, typename Op>
void MapSV(T x, const T* __restrict y, R* __restrict z, int64_t n, Op op) {
  for (int64_t i = 0; i < n; ++i) z[i] = op(x, y[i]);
}

#pragma GCC pop_options

// z = op(x, y) with NumPy broadcasting; z is allocated with the broadcast shape.
template <typename T, typename R, typename Op>
void RunBinary(const KernelContext& ctx, const Tensor& x, const Tensor& y, Tensor& z, Op op) {
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  R* c = z.mutable_data<R>();
  const int64_t n = ElementCount(z.shape());
  const int64_t nx = ElementCount(x.shape());
  const int64_t ny = ElementCount(y.shape());
  constexpr int kCost = CostOf<Op>();
  if (n == 0) return;
  if (nx == n && ny == n) {
    ParallelElements(ctx, n, kCost,
                     [&](int64_t i, int64_t e) { MapVV(a + i, b + i, c + i, e - i, op); });
  } else if (nx == 1) {
    ParallelElements(ctx, n, kCost,
                     [&](int64_t i, int64_t e) { MapSV(a[0], b + i, c + i, e - i, op); });
  } else if (ny == 1) {
    ParallelElements(ctx, n, kCost,
                     [&](int64_t i, int64_t e) { MapVS(a + i, b[0], c + i, e - i, op); });
  } else {
    const Shape* shapes[] = {&x.shape(), &y.shape()};
    const BroadcastPlan plan = MakeBroadcastPlan(shapes, z.shape());
    const bool x_walks = plan.inner_stride(0) != 0;
    const bool y_walks = plan.inner_stride(1) != 0;
    auto row = [&](const auto& off, int64_t pos, int64_t len) {
      if (x_walks && y_walks) {
        MapVV(a + off[0], b + off[1], c + pos, len, op);
      } else if (x_walks) {
        MapVS(a + off[0], b[off[1]], c + pos, len, op);
      } else {
        MapSV(a[off[0]], b + off[1], c + pos, len, op);
      }
    };
    ParallelElements(ctx, n, kCost, [&](int64_t i, int64_t e) { ForEachRow(plan, i, e, row); });
  }
}

// Kernel for a binary op: inputs x, y of dtype T, output 0 of Op's result type.
template <typename T, typename Op>
absl::Status BinaryKernel(KernelContext& ctx) {
  using R = std::invoke_result_t<Op, T, T>;
  RunBinary<T, R>(ctx, ctx.input(0), ctx.input(1), ctx.output(0), Op{});
  return absl::OkStatus();
}

// The element type a unary op produces from T: T for vector ops, else its operator()'s result.
template <typename Op, typename T>
struct UnaryResult {
  using type = std::invoke_result_t<Op, T>;
};
template <typename Op, typename T>
requires VectorUnaryOp<Op, T>
struct UnaryResult<Op, T> {
  using type = T;
};

// Kernel for a unary op: input x of dtype T, output 0 of the same shape.
template <typename T, typename Op>
absl::Status UnaryKernel(KernelContext& ctx) {
  using R = typename UnaryResult<Op, T>::type;
  const T* x = ctx.input(0).data<T>();
  R* z = ctx.output(0).mutable_data<R>();
  ParallelElements(ctx, ElementCount(ctx.input(0).shape()), CostOf<Op>(),
                   [&](int64_t i, int64_t e) { MapUnary(x + i, z + i, e - i, Op{}); });
  return absl::OkStatus();
}

// Registers BinaryKernel<T, Op> as op_name's CPU kernel for each T in Ts.
template <typename Op, typename... Ts>
void RegisterBinaryKernels(absl::string_view op_name) {
  (RegisterKernel(op_name, DeviceType::kCpu, {DTypeOf<Ts>()}, KernelDef{&BinaryKernel<Ts, Op>}),
   ...);
}

// Registers UnaryKernel<T, Op> as op_name's CPU kernel for each T in Ts.
template <typename Op, typename... Ts>
void RegisterUnaryKernels(absl::string_view op_name) {
  (RegisterKernel(op_name, DeviceType::kCpu, {DTypeOf<Ts>()}, KernelDef{&UnaryKernel<Ts, Op>}),
   ...);
}

}  // namespace duet
