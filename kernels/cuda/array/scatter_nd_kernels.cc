// GatherNd, ScatterNd, TensorScatterUpdate, TensorScatterAdd on CUDA (Note [Nd indices] in
// ops/array/scatter_nd_ops.cc), planned as on the CPU (kernels/common/nd_index.h). indices live on
// the device. Deliberate differences from the CPU kernels, as TensorFlow's GPU kernels: a row of
// indices outside the shape is not reported (that would need a host synchronization) but gives
// zeros (GatherNd) or is dropped (the scatters); of duplicate rows in TensorScatterUpdate any one
// wins; adds are atomic, so float sums match the CPU within rounding, and float16/bfloat16 sums
// round once (the CPU rounds after every add: equal for the small integers the tests use).
#include "absl/strings/str_cat.h"
#include "kernels/common/nd_index.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/sum_type.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// The launchers' form of the plan; InvalidArgument when indices are elsewhere or too deep.
absl::StatusOr<cuda::NdIndexDims> DeviceDims(KernelContext& ctx, const Tensor& indices,
                                             const NdIndexPlan& plan, absl::string_view op) {
  if (indices.device() != ctx.device()) {
    return absl::InvalidArgumentError(absl::StrCat(op, " on ", ctx.device().str(),
                                                   " needs its indices there, not on ",
                                                   indices.device().str()));
  }
  if (plan.depth > cuda::kMaxCopyRank) {
    return absl::UnimplementedError(absl::StrCat(op, " on CUDA takes rows of at most ",
                                                 cuda::kMaxCopyRank, " indices, got ", plan.depth));
  }
  cuda::NdIndexDims nd;
  nd.depth = plan.depth;
  for (int j = 0; j < plan.depth; ++j) {
    nd.dims[j] = plan.dims[j];
    nd.strides[j] = plan.strides[j];
  }
  return nd;
}

absl::Status GatherNdKernel(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const NdIndexPlan plan = PlanNdIndex(indices.shape(), params.shape());
  DUET_ASSIGN_OR_RETURN(const cuda::NdIndexDims nd, DeviceDims(ctx, indices, plan, "GatherNd"));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchGatherNd(
      params.raw_data(), indices.raw_data(), indices.dtype() == kInt64, out.raw_data(), nd,
      plan.num_rows, plan.slice_size, DTypeSize(params.dtype()), context->stream()));
  return absl::OkStatus();
}

// ScatterNd (tensor_input < 0: starts from zeros) and the TensorScatter ops (from that input).
absl::Status Scatter(KernelContext& ctx, int tensor_input, int indices_input, int updates_input,
                     bool add, absl::string_view op) {
  Tensor& out = ctx.output(0);
  const Tensor& indices = ctx.input(indices_input);
  const int64_t n = out.num_elements();
  if (n == 0) return absl::OkStatus();
  const NdIndexPlan plan = PlanNdIndex(indices.shape(), out.shape());
  DUET_ASSIGN_OR_RETURN(const cuda::NdIndexDims nd, DeviceDims(ctx, indices, plan, op));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  cudaStream_t stream = context->stream();
  if (tensor_input < 0) {
    DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), stream));
  } else {
    DUET_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.raw_data(), ctx.input(tensor_input).raw_data(),
                                              out.nbytes(), cudaMemcpyDeviceToDevice, stream));
  }
  const void* updates = ctx.input(updates_input).raw_data();
  const bool int64_indices = indices.dtype() == kInt64;
  if (!add) {
    DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchScatterNdUpdate(
        updates, indices.raw_data(), int64_indices, out.raw_data(), nd, plan.num_rows,
        plan.slice_size, DTypeSize(out.dtype()), stream));
    return absl::OkStatus();
  }
  // 16-bit floats add in float32 scratch; freeing it before the kernels ran is safe (Note [One
  // stream per device]).
  Tensor scratch;
  if (out.dtype() == kFloat16 || out.dtype() == kBFloat16) {
    DUET_ASSIGN_OR_RETURN(scratch, Tensor::TryEmpty(kFloat32, Shape({n}), ctx.device()));
  }
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchScatterNdAdd(
      cuda::SumTypeOf(out.dtype()), updates, indices.raw_data(), int64_indices, out.raw_data(),
      scratch.defined() ? scratch.mutable_data<float>() : nullptr, n, nd, plan.num_rows,
      plan.slice_size, stream));
  return absl::OkStatus();
}

absl::Status ScatterNdKernel(KernelContext& ctx) {
  return Scatter(ctx, -1, 0, 1, /*add=*/true, "ScatterNd");
}

absl::Status TensorScatterUpdateKernel(KernelContext& ctx) {
  return Scatter(ctx, 0, 1, 2, /*add=*/false, "TensorScatterUpdate");
}

absl::Status TensorScatterAddKernel(KernelContext& ctx) {
  return Scatter(ctx, 0, 1, 2, /*add=*/true, "TensorScatterAdd");
}

const KernelRegistrar kGatherNd("GatherNd", DeviceType::kCuda,
                                {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                                {GatherNdKernel});
const KernelRegistrar kTensorScatterUpdate("TensorScatterUpdate", DeviceType::kCuda,
                                           {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64,
                                            kBool},
                                           {TensorScatterUpdateKernel});
const KernelRegistrar kScatterNd("ScatterNd", DeviceType::kCuda,
                                 {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                                 {ScatterNdKernel});
const KernelRegistrar kTensorScatterAdd("TensorScatterAdd", DeviceType::kCuda,
                                        {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64},
                                        {TensorScatterAddKernel});

}  // namespace
}  // namespace duet
