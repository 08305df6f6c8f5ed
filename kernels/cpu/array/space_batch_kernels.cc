// SpaceToBatchND and BatchToSpaceND on the CPU: one strided copy per block offset
// (kernels/common/space_batch_plan.h); SpaceToBatchND zero-fills its output first (the padding).
#include <cstring>

#include "core/int_values.h"
#include "kernels/common/space_batch_plan.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

absl::Status SpaceToBatchKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  std::memset(out.raw_data(), 0, out.nbytes());
  if (input.num_elements() == 0) return absl::OkStatus();
  const int elem = DTypeSize(input.dtype());
  for (const StridedCopyPlan& plan :
       SpaceToBatchCopies(input.shape(), IntValues(ctx.input(1)), IntValues(ctx.input(2)))) {
    StridedCopy(plan, input.raw_data(), out.raw_data(), elem, ctx.pool());
  }
  return absl::OkStatus();
}

absl::Status BatchToSpaceKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const int elem = DTypeSize(input.dtype());
  for (const StridedCopyPlan& plan :
       SpaceToBatchCopies(out.shape(), IntValues(ctx.input(1)), IntValues(ctx.input(2)))) {
    StridedCopy(InverseCopy(plan), input.raw_data(), out.raw_data(), elem, ctx.pool());
  }
  return absl::OkStatus();
}

const bool kSpaceToBatchND =
    RegisterAllDTypes("SpaceToBatchND", [](auto) -> KernelFn { return SpaceToBatchKernel; });
const bool kBatchToSpaceND =
    RegisterAllDTypes("BatchToSpaceND", [](auto) -> KernelFn { return BatchToSpaceKernel; });

}  // namespace
}  // namespace duet
