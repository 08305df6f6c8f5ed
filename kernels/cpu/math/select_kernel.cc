// CPU kernel of SelectV2 (where): output = condition ? t : e with three-way NumPy broadcasting.
// Selecting only moves elements, so one kernel per element size serves every dtype.
#include <cstdint>
#include <cstring>

#include "kernels/cpu/math/elementwise.h"

namespace duet {
namespace {

#pragma GCC push_options
#pragma GCC optimize("vect-cost-model=dynamic")

// z[i] = c[i] ? t[i] : e[i] over contiguous operands. GCC vectorizes this only when both loads
// are unconditional and the condition is read as bytes, not as bool.
template <typename U>
void SelectContiguous(const uint8_t* __restrict c, const U* __restrict t, const U* __restrict e,
                      U* __restrict z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const U if_true = t[i];
    const U if_false = e[i];
    z[i] = c[i] != 0 ? if_true : if_false;
  }
}

// The same along one broadcast row, where each operand's stride is 0 (repeats) or 1.
template <typename U>
void SelectStrided(const bool* c, int64_t sc, const U* t, int64_t st, const U* e, int64_t se,
                   U* __restrict z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = c[i * sc] ? t[i * st] : e[i * se];
}

#pragma GCC pop_options

// U is an unsigned integer as wide as the element type.
template <typename U>
absl::Status SelectKernel(KernelContext& ctx) {
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  Tensor& z = ctx.output(0);
  const int64_t n = z.num_elements();
  if (n == 0) return absl::OkStatus();
  const bool* c = cond.data<bool>();
  const U* tp = t.data<U>();
  const U* ep = e.data<U>();
  U* zp = z.mutable_data<U>();
  // A scalar condition picks one whole operand; copy it when it already has the output's size.
  if (cond.num_elements() == 1) {
    const Tensor& picked = c[0] ? t : e;
    if (picked.num_elements() == n) {
      const U* src = picked.data<U>();
      ParallelElements(ctx, n, 1, [&](int64_t i, int64_t end) {
        std::memcpy(zp + i, src + i, static_cast<size_t>(end - i) * sizeof(U));
      });
      return absl::OkStatus();
    }
  }
  if (cond.num_elements() == n && t.num_elements() == n && e.num_elements() == n) {
    ParallelElements(ctx, n, 1, [&](int64_t i, int64_t end) {
      SelectContiguous(reinterpret_cast<const uint8_t*>(c) + i, tp + i, ep + i, zp + i, end - i);
    });
    return absl::OkStatus();
  }
  const Shape* shapes[] = {&cond.shape(), &t.shape(), &e.shape()};
  const BroadcastPlan plan = MakeBroadcastPlan(shapes, z.shape());
  const int64_t sc = plan.inner_stride(0), st = plan.inner_stride(1), se = plan.inner_stride(2);
  auto row = [&](const auto& off, int64_t pos, int64_t len) {
    SelectStrided(c + off[0], sc, tp + off[1], st, ep + off[2], se, zp + pos, len);
  };
  ParallelElements(ctx, n, 1, [&](int64_t i, int64_t end) { ForEachRow(plan, i, end, row); });
  return absl::OkStatus();
}

const KernelRegistrar k8("SelectV2", DeviceType::kCpu, {kBool}, {&SelectKernel<uint8_t>});
const KernelRegistrar k16("SelectV2", DeviceType::kCpu, {kFloat16, kBFloat16},
                          {&SelectKernel<uint16_t>});
const KernelRegistrar k32("SelectV2", DeviceType::kCpu, {kFloat32, kInt32},
                          {&SelectKernel<uint32_t>});
const KernelRegistrar k64("SelectV2", DeviceType::kCpu, {kFloat64, kInt64},
                          {&SelectKernel<uint64_t>});

}  // namespace
}  // namespace duet
