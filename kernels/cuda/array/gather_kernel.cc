// GatherV2 on CUDA: params viewed as (batch, outer, N, inner) and indices as (batch, M)
// (kernels/common/gather_geometry.h); output row (b, o, m) is params[b, o, idx[b, m], :].
// indices are a device input, axis a host one.
//
// Out-of-range indices: the CPU kernel reports them as an error; checking here would need a
// device-to-host copy and a stream synchronization on every gather. Like TensorFlow's GPU kernel,
// this one instead writes zeros for the rows of such indices (see LaunchGather).
#include "absl/strings/str_cat.h"
#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "kernels/common/gather_geometry.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

absl::Status GatherKernel(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  if (indices.device() != ctx.device()) {
    return absl::InvalidArgumentError(absl::StrCat("GatherV2 on ", ctx.device().str(),
                                                   " needs its indices there, not on ",
                                                   indices.device().str()));
  }
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const GatherGeometry g = MakeGatherGeometry(params.shape(), indices.shape(),
                                              WrapAxis(IntScalar(ctx.input(2)), params.rank()),
                                              ctx.attr(GatherAttrs::kBatchDims));
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchGather(
      params.raw_data(), indices.raw_data(), indices.dtype() == kInt64, out.raw_data(), g.batch,
      g.outer, g.n, g.inner, g.num_indices, DTypeSize(params.dtype()), context->stream()));
  return absl::OkStatus();
}

const KernelRegistrar kGatherV2("GatherV2", DeviceType::kCuda,
                                {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                                {GatherKernel});

}  // namespace
}  // namespace duet
