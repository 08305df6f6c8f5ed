// BroadcastGradientArgs: the reduction axes of each operand, computed on the host.
#include "core/constant.h"
#include "core/int_values.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// Axes as a vector of the op's index dtype.
Tensor AxesTensor(const std::vector<int64_t>& axes, DType dtype) {
  if (dtype == kInt64) return from_vector(axes);
  return from_vector(std::vector<int32_t>(axes.begin(), axes.end()));
}

absl::Status BroadcastGradientArgsKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const BroadcastReduction r,
                        BroadcastGradientAxes(IntValues(ctx.input(0)), IntValues(ctx.input(1))));
  const DType dtype = ctx.input(0).dtype();
  ctx.output(0) = AxesTensor(r.axes0, dtype);
  ctx.output(1) = AxesTensor(r.axes1, dtype);
  return absl::OkStatus();
}

const KernelRegistrar kBroadcastGradientArgs("BroadcastGradientArgs", DeviceType::kCpu,
                                             {kInt32, kInt64},
                                             {BroadcastGradientArgsKernel,
                                              /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
