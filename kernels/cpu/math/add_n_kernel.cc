// AddN on the CPU: the output is walked in cache-sized blocks, each block summed over all inputs
// before the next, so the partial sums stay in L1. float16 and bfloat16 accumulate in float32 and
// round once.
#include <algorithm>
#include <cstdint>

#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/math/half_kernels.h"

namespace duet {
namespace {

constexpr int64_t kBlock = 1024;  // elements per block: a float32 block is 4 KiB

#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

// z[i] = x[i] + y[i] for i < n.
template <typename T>
void AddInto(const T* __restrict x, const T* __restrict y, T* __restrict z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = AddFn()(x[i], y[i]);
}

// z[i] += x[i] for i < n.
template <typename T>
void Accumulate(const T* __restrict x, T* __restrict z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = AddFn()(z[i], x[i]);
}

#pragma GCC pop_options

// Sums the inputs' elements [begin, end) into z.
template <typename T>
void SumRange(const KernelContext& ctx, T* z, int64_t begin, int64_t end) {
  const int n = ctx.num_inputs();
  for (int64_t b = begin; b < end; b += kBlock) {
    const int64_t len = std::min(kBlock, end - b);
    if (n == 1) {
      std::copy_n(ctx.input(0).data<T>() + b, len, z + b);
      continue;
    }
    AddInto(ctx.input(0).data<T>() + b, ctx.input(1).data<T>() + b, z + b, len);
    for (int k = 2; k < n; ++k) Accumulate(ctx.input(k).data<T>() + b, z + b, len);
  }
}

template <typename T>
absl::Status AddNKernel(KernelContext& ctx) {
  T* z = ctx.output(0).mutable_data<T>();
  ParallelElements(ctx, ElementCount(ctx.output(0).shape()), ctx.num_inputs(),
                   [&](int64_t begin, int64_t end) { SumRange(ctx, z, begin, end); });
  return absl::OkStatus();
}

// float16/bfloat16: each block widened to float32, summed there and rounded once.
template <typename Half>
absl::Status HalfAddNKernel(KernelContext& ctx) {
  Half* z = ctx.output(0).mutable_data<Half>();
  ParallelElements(ctx, ElementCount(ctx.output(0).shape()), ctx.num_inputs() + 2,
                   [&](int64_t begin, int64_t end) {
                     float sum[kBlock], term[kBlock];
                     for (int64_t b = begin; b < end; b += kBlock) {
                       const int64_t len = std::min(kBlock, end - b);
                       ToFloat32(ctx.input(0).data<Half>() + b, sum, len);
                       for (int k = 1; k < ctx.num_inputs(); ++k) {
                         ToFloat32(ctx.input(k).data<Half>() + b, term, len);
                         Accumulate(term, sum, len);
                       }
                       FromFloat32(sum, z + b, len);
                     }
                   });
  return absl::OkStatus();
}

const KernelRegistrar kFloat32AddN("AddN", DeviceType::kCpu, {kFloat32}, {AddNKernel<float>});
const KernelRegistrar kFloat64AddN("AddN", DeviceType::kCpu, {kFloat64}, {AddNKernel<double>});
const KernelRegistrar kInt32AddN("AddN", DeviceType::kCpu, {kInt32}, {AddNKernel<int32_t>});
const KernelRegistrar kInt64AddN("AddN", DeviceType::kCpu, {kInt64}, {AddNKernel<int64_t>});
const KernelRegistrar kFloat16AddN("AddN", DeviceType::kCpu, {kFloat16}, {HalfAddNKernel<float16>});
const KernelRegistrar kBFloat16AddN("AddN", DeviceType::kCpu, {kBFloat16},
                                    {HalfAddNKernel<bfloat16>});

}  // namespace
}  // namespace duet
