// StridedSlice, StridedSliceGrad, ResourceStridedSliceAssign and ReverseV2: one strided copy each
// (negative strides read backwards), out of the input or, for the gradient and the assignment,
// back into zeros of the input's shape or into the variable's value.
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "core/int_values.h"
#include "core/resource.h"
#include "kernels/common/variable_update.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"
#include "ops/array/strided_slice_spec.h"

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

// Note [Variables copy on write] (kernels/cpu/state/variable_kernels.cc): the slice is written in
// place only when the variable is its value's sole holder, else into a copy.
absl::Status ResourceStridedSliceAssignKernel(KernelContext& ctx) {
  VariableResource* variable = VariableOf(ctx.input(0));
  if (variable == nullptr) return absl::InvalidArgumentError("ref is not a variable handle");
  const Tensor& value = ctx.input(4);
  std::lock_guard<std::mutex> lock(variable->mu);
  if (!variable->value.defined()) {
    return absl::FailedPreconditionError(
        absl::StrCat("variable '", variable->name, "' is assigned a slice before it has a value"));
  }
  if (value.dtype() != variable->value.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("variable '", variable->name, "' holds ",
                                                   DTypeName(variable->value.dtype()), ", not ",
                                                   DTypeName(value.dtype())));
  }
  const Shape& shape = variable->value.shape();
  const std::vector<int64_t> begin = IntValues(ctx.input(1));
  DUET_ASSIGN_OR_RETURN(
      const StridedSliceSpec spec,
      ResolveStridedSlice(shape, static_cast<int64_t>(begin.size()), begin, IntValues(ctx.input(2)),
                          IntValues(ctx.input(3)), StridedSliceMasksOf(ctx)));
  if (value.shape() != spec.output) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the slice of variable '", variable->name, "' (of shape ", shape.str(), ") has shape ",
        spec.output.str(), ", but the value has shape ", value.shape().str()));
  }
  DUET_ASSIGN_OR_RETURN(Tensor result, WritableValue(*variable, ctx.device(), /*copy_value=*/true));
  if (value.num_elements() > 0) {
    const StridedCopyPlan plan =
        StridedSliceCopy(shape, spec.begin, spec.strides, spec.sizes.dims());
    StridedCopy(InverseCopy(plan), value.raw_data(), result.raw_data(), DTypeSize(value.dtype()),
                ctx.pool());
  }
  variable->value = std::move(result);
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
const bool kResourceStridedSliceAssign =
    RegisterAllDTypes("ResourceStridedSliceAssign",
                      [](auto) -> KernelFn { return ResourceStridedSliceAssignKernel; });
const bool kReverseV2 =
    RegisterAllDTypes("ReverseV2", [](auto) -> KernelFn { return ReverseV2Kernel; });

}  // namespace
}  // namespace duet
