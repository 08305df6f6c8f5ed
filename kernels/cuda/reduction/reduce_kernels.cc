// Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin, Cumsum and Cumprod on CUDA (All and Any are
// Min and Max of bytes). The axes are a host input; the CPU's planner (reduce_plan.h) turns them
// into (outer, reduce, inner) passes, each one or two kernel launches (reduce_kernels.h). Results
// accumulate in the element type: float sums differ from the CPU's in rounding only (another
// summation order); the CPU accumulates float32 Prod in float64 and int32 Mean in int64
// (docs/cuda.md, "Kernels": a wrapping int32 sum differs there).
#include "kernels/cuda/reduction/reduce_kernels.h"

#include <vector>

#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "kernels/common/reduce_plan.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"
#include "ops/reduction/reduction_attrs.h"

namespace duet {
namespace {

cuda::ReduceType ReduceTypeOf(DType dtype) {
  switch (dtype) {
    case kFloat64:
      return cuda::ReduceType::kFloat64;
    case kInt32:
      return cuda::ReduceType::kInt32;
    case kInt64:
      return cuda::ReduceType::kInt64;
    case kBool:
      return cuda::ReduceType::kBool;
    default:
      return cuda::ReduceType::kFloat32;
  }
}

// Device memory of at least `bytes` bytes (none for 0), released in stream order.
absl::StatusOr<Tensor> Scratch(int64_t bytes, Device device) {
  if (bytes == 0) return Tensor();
  return Tensor::TryEmpty(kFloat64, Shape({(bytes + 7) / 8}), device);
}

// One pass from src to dst on the stream.
absl::Status RunPass(cuda::ReduceOp op, cuda::ReduceType type, const void* src, void* dst,
                     const ReducePass& p, bool mean, int64_t count, Device device,
                     cudaStream_t stream) {
  DUET_ASSIGN_OR_RETURN(
      const Tensor scratch,
      Scratch(cuda::ReducePassScratchBytes(type, p.outer, p.reduce, p.inner), device));
  DUET_CUDA_RETURN_IF_ERROR(
      cuda::LaunchReducePass(op, type, src, dst, p.outer, p.reduce, p.inner, mean, count,
                             scratch.defined() ? scratch.raw_data() : nullptr, stream));
  return absl::OkStatus();
}

template <cuda::ReduceOp kOp, bool kMean = false>
absl::Status ReduceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  const int64_t n_out = out.num_elements();
  if (n_out == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const cuda::ReduceType type = ReduceTypeOf(x.dtype());
  const cudaStream_t stream = context->stream();
  if (x.num_elements() == 0) {  // reducing nothing: the identity (Mean: 0/0)
    return RunPass(kOp, type, nullptr, out.raw_data(), ReducePass{n_out, 0, 1}, kMean, 0,
                   ctx.device(), stream);
  }
  const int64_t count = x.num_elements() / n_out;
  std::vector<ReducePass> passes =
      PlanReduction(x.shape().dims(), ReducedDims(ctx.input(1), x.rank()));
  if (passes.empty()) {  // only size-1 dims: a copy (a pass would add -0.0 to the identity +0.0)
    DUET_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.raw_data(), x.raw_data(), x.nbytes(),
                                              cudaMemcpyDeviceToDevice, stream));
    return absl::OkStatus();
  }
  const void* src = x.raw_data();
  Tensor buffers[2];  // between passes, in stream order
  for (size_t i = 0; i < passes.size(); ++i) {
    const ReducePass& p = passes[i];
    const bool last = i + 1 == passes.size();
    void* dst = out.raw_data();
    if (!last) {
      DUET_ASSIGN_OR_RETURN(buffers[i % 2],
                            Tensor::TryEmpty(x.dtype(), Shape({p.outer * p.inner}), ctx.device()));
      dst = buffers[i % 2].raw_data();
    }
    DUET_RETURN_IF_ERROR(
        RunPass(kOp, type, src, dst, p, kMean && last, count, ctx.device(), stream));
    src = dst;
  }
  return absl::OkStatus();
}

template <bool kMax>
absl::Status ArgReduceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const AxisView v = ViewAroundAxis(x.shape(), WrapAxis(IntScalar(ctx.input(1)), x.rank()));
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchArgReduce(kMax, ReduceTypeOf(x.dtype()), x.raw_data(),
                                                  out.raw_data(), out.dtype() == kInt64, v.outer,
                                                  v.n, v.inner, context->stream()));
  return absl::OkStatus();
}

// Cumsum and Cumprod: the axis is a host input; the launcher walks each column in order.
template <bool kProd>
absl::Status ScanKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (x.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const AxisView v = ViewAroundAxis(x.shape(), WrapAxis(IntScalar(ctx.input(1)), x.rank()));
  DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchScan(
      kProd, ReduceTypeOf(x.dtype()), x.raw_data(), out.raw_data(), v.outer, v.n, v.inner,
      ctx.attr(ScanAttrs::kExclusive), ctx.attr(ScanAttrs::kReverse), context->stream()));
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kTypes = {kFloat32, kFloat64, kInt32, kInt64};

const KernelRegistrar kSum("Sum", DeviceType::kCuda, kTypes, {ReduceKernel<cuda::ReduceOp::kSum>});
const KernelRegistrar kMean("Mean", DeviceType::kCuda, kTypes,
                            {ReduceKernel<cuda::ReduceOp::kSum, /*kMean=*/true>});
const KernelRegistrar kMax("Max", DeviceType::kCuda, kTypes, {ReduceKernel<cuda::ReduceOp::kMax>});
const KernelRegistrar kMin("Min", DeviceType::kCuda, kTypes, {ReduceKernel<cuda::ReduceOp::kMin>});
const KernelRegistrar kProd("Prod", DeviceType::kCuda, kTypes,
                            {ReduceKernel<cuda::ReduceOp::kProd>});
// All and Any have no T: Tidx (int32 or int64) picks their kernels.
const KernelRegistrar kAll("All", DeviceType::kCuda, {kInt32, kInt64},
                           {ReduceKernel<cuda::ReduceOp::kMin>});
const KernelRegistrar kAny("Any", DeviceType::kCuda, {kInt32, kInt64},
                           {ReduceKernel<cuda::ReduceOp::kMax>});
const KernelRegistrar kArgMax("ArgMax", DeviceType::kCuda, kTypes, {ArgReduceKernel<true>});
const KernelRegistrar kArgMin("ArgMin", DeviceType::kCuda, kTypes, {ArgReduceKernel<false>});
const KernelRegistrar kCumsum("Cumsum", DeviceType::kCuda, kTypes, {ScanKernel<false>});
const KernelRegistrar kCumprod("Cumprod", DeviceType::kCuda, kTypes, {ScanKernel<true>});

}  // namespace
}  // namespace duet
