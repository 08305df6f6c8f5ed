// StridedSlice, StridedSliceGrad and ReverseV2: one strided copy each (negative strides read
// backwards), out of the input or, for the gradient, back into zeros of the input's shape.
#include <cstring>

#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

absl::Status StridedSliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const StridedCopyPlan plan, StridedSliceCopy(ctx, x.shape()));
  StridedCopy(plan, x.raw_data(), out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status StridedSliceGradKernel(KernelContext& ctx) {
  const Tensor& dy = ctx.input(4);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  std::memset(out.raw_data(), 0, out.nbytes());  // zero bits are 0 / 0.0 / false in every dtype
  if (dy.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const StridedCopyPlan plan, StridedSliceCopy(ctx, out.shape()));
  StridedCopy(InverseCopy(plan), dy.raw_data(), out.raw_data(), DTypeSize(dy.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status ReverseV2Kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(const StridedCopyPlan plan, ReverseCopy(ctx));
  StridedCopy(plan, x.raw_data(), out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

const bool kStridedSlice =
    RegisterAllDTypes("StridedSlice", [](auto) -> KernelFn { return StridedSliceKernel; });
const bool kStridedSliceGrad =
    RegisterAllDTypes("StridedSliceGrad", [](auto) -> KernelFn { return StridedSliceGradKernel; });
const bool kReverseV2 =
    RegisterAllDTypes("ReverseV2", [](auto) -> KernelFn { return ReverseV2Kernel; });

}  // namespace
}  // namespace duet
