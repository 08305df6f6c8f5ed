// DenseBincount on CUDA by atomic adds (LaunchDenseBincount): float sums depend on the order of
// the adds, so they match the CPU within rounding. The shape function checked the shapes. Values
// and weights live on the device, size on the host. Negative values are dropped rather than
// reported (the CPU reports them): checking would need a host synchronization.
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/sum_type.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

absl::Status DenseBincountKernel(KernelContext& ctx) {
  const Tensor& values = ctx.input(0);
  const Tensor& weights = ctx.input(2);
  Tensor& out = ctx.output(0);
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const int64_t rows = values.rank() == 2 ? values.shape().dim(0) : 1;
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchDenseBincount(
      cuda::SumTypeOf(out.dtype()), values.raw_data(), values.dtype() == kInt64,
      weights.num_elements() != 0 ? weights.raw_data() : nullptr,
      ctx.attr(DenseBincountAttrs::kBinaryOutput), out.raw_data(), rows,
      rows == 0 ? 0 : values.num_elements() / rows, out.shape().dim(out.rank() - 1),
      context->stream()));
  return absl::OkStatus();
}

// Registered per value dtype (Tidx, the op's dispatch attr); the launcher reads T from the output.
const KernelRegistrar kDenseBincount("DenseBincount", DeviceType::kCuda, {kInt32, kInt64},
                                     {DenseBincountKernel});

}  // namespace
}  // namespace duet
