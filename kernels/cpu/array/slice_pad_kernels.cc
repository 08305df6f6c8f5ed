// Slice and the pads: a strided block copy out of, or into, a bigger tensor. MirrorPad adds the
// mirrored slabs as more copies, MirrorPadGrad gathers (Note [Mirror padding] in
// kernels/common/mirror_pad_plan.h).
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/int_values.h"
#include "kernels/common/mirror_pad_plan.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

absl::Status SliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  StridedCopy(SliceCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
              out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  std::memset(out.raw_data(), 0, out.nbytes());  // zero bits are 0 / 0.0 / false in every dtype
  if (x.num_elements() == 0) return absl::OkStatus();
  StridedCopy(PadCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
              out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

template <typename T>
absl::Status PadV2Kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const T value = ctx.input(2).data<T>()[0];
  T* o = out.mutable_data<T>();
  ctx.pool().ParallelFor(out.num_elements(), 1 << 16,
                         [&](int64_t begin, int64_t end) { std::fill(o + begin, o + end, value); });
  if (x.num_elements() == 0) return absl::OkStatus();
  StridedCopy(PadCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
              out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status MirrorPadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const std::vector<int64_t> paddings = IntValues(ctx.input(1));
  const int elem_size = DTypeSize(x.dtype());
  StridedCopy(PadCopy(x.shape(), out.shape(), paddings), x.raw_data(), out.raw_data(), elem_size,
              ctx.pool());
  const bool symmetric = ctx.attr(MirrorPadAttrs::kMode) == "SYMMETRIC";
  for (const StridedCopyPlan& copy : MirrorPadCopies(out.shape(), paddings, symmetric)) {
    StridedCopy(copy, out.raw_data(), out.raw_data(), elem_size, ctx.pool());
  }
  return absl::OkStatus();
}

// float16 and bfloat16 add in float and round once, as TensorFlow's Eigen kernels do.
template <typename T>
using MirrorAcc =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

template <typename T>
absl::Status MirrorPadGradKernel(KernelContext& ctx) {
  const Tensor& dy = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const std::vector<int64_t> paddings = IntValues(ctx.input(1));
  const bool symmetric = ctx.attr(MirrorPadAttrs::kMode) == "SYMMETRIC";
  const int rank = out.rank();
  // sources[d][i]: the padded positions along d that unpadded index i gathers, times dy's
  // stride along d.
  const auto dy_strides = ContiguousStrides(dy.shape().dims());
  std::vector<std::vector<std::array<int64_t, 3>>> sources(rank);
  std::vector<std::vector<int>> counts(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t n = out.shape().dim(d);
    sources[d].resize(n);
    counts[d].resize(n);
    for (int64_t i = 0; i < n; ++i) {
      counts[d][i] = MirrorSources(i, n, paddings[2 * d], paddings[2 * d + 1], symmetric,
                                   sources[d][i].data());
      for (int k = 0; k < counts[d][i]; ++k) sources[d][i][k] *= dy_strides[d];
    }
  }
  const T* g = dy.data<T>();
  T* o = out.mutable_data<T>();
  ctx.pool().ParallelFor(out.num_elements(), 4096, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(rank), pick(rank);
    for (int64_t flat = begin; flat < end; ++flat) {
      for (int64_t d = rank - 1, rest = flat; d >= 0; --d) {
        index[d] = rest % out.shape().dim(d);
        rest /= out.shape().dim(d);
      }
      // Sum over every combination of one source per dim (an odometer over pick).
      MirrorAcc<T> sum{};
      std::fill(pick.begin(), pick.end(), 0);
      while (true) {
        int64_t at = 0;
        for (int d = 0; d < rank; ++d) at += sources[d][index[d]][pick[d]];
        sum += static_cast<MirrorAcc<T>>(g[at]);
        int d = rank - 1;
        while (d >= 0 && ++pick[d] == counts[d][index[d]]) pick[d--] = 0;
        if (d < 0) break;
      }
      o[flat] = static_cast<T>(sum);
    }
  });
  return absl::OkStatus();
}

const bool kSlice = RegisterAllDTypes("Slice", [](auto) -> KernelFn { return SliceKernel; });
const bool kPad = RegisterAllDTypes("Pad", [](auto) -> KernelFn { return PadKernel; });
const bool kPadV2 =
    RegisterAllDTypes("PadV2", [](auto t) -> KernelFn { return PadV2Kernel<decltype(t)>; });
const bool kMirrorPad =
    RegisterAllDTypes("MirrorPad", [](auto) -> KernelFn { return MirrorPadKernel; });
const KernelRegistrar kMirrorPadGrad("MirrorPadGrad", DeviceType::kCpu, {kFloat32},
                                     {MirrorPadGradKernel<float>});
const KernelRegistrar kMirrorPadGradF64("MirrorPadGrad", DeviceType::kCpu, {kFloat64},
                                        {MirrorPadGradKernel<double>});
const KernelRegistrar kMirrorPadGradF16("MirrorPadGrad", DeviceType::kCpu, {kFloat16},
                                        {MirrorPadGradKernel<float16>});
const KernelRegistrar kMirrorPadGradBF16("MirrorPadGrad", DeviceType::kCpu, {kBFloat16},
                                         {MirrorPadGradKernel<bfloat16>});
const KernelRegistrar kMirrorPadGradI32("MirrorPadGrad", DeviceType::kCpu, {kInt32},
                                        {MirrorPadGradKernel<int32_t>});
const KernelRegistrar kMirrorPadGradI64("MirrorPadGrad", DeviceType::kCpu, {kInt64},
                                        {MirrorPadGradKernel<int64_t>});

}  // namespace
}  // namespace duet
