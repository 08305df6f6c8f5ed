// Slice and Pad on CUDA: a strided copy out of, or into, a bigger tensor (begin, size and
// paddings are host inputs).
#include "core/int_values.h"
#include "kernels/cpu/array/strided_copy.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

absl::Status SliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const std::vector<int64_t> begin = IntValues(ctx.input(1));
  const auto in_strides = ContiguousStrides(x.shape().dims());
  int64_t offset = 0;
  for (int d = 0; d < x.rank(); ++d) offset += begin[d] * in_strides[d];
  const int elem = DTypeSize(x.dtype());
  return cuda::StridedCopy(
      out.shape().dims(), static_cast<const char*>(x.raw_data()) + offset * elem, in_strides,
      out.raw_data(), ContiguousStrides(out.shape().dims()), elem, context->stream());
}

absl::Status PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  // Zero bits are 0 / 0.0 / false in every dtype.
  DUET_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), context->stream()));
  if (x.num_elements() == 0) return absl::OkStatus();
  const std::vector<int64_t> pads = IntValues(ctx.input(1));
  const auto out_strides = ContiguousStrides(out.shape().dims());
  int64_t offset = 0;
  for (int d = 0; d < x.rank(); ++d) offset += pads[2 * d] * out_strides[d];
  const int elem = DTypeSize(x.dtype());
  return cuda::StridedCopy(x.shape().dims(), x.raw_data(), ContiguousStrides(x.shape().dims()),
                           static_cast<char*>(out.raw_data()) + offset * elem, out_strides, elem,
                           context->stream());
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kSlice("Slice", DeviceType::kCuda, kAll, {SliceKernel});
const KernelRegistrar kPad("Pad", DeviceType::kCuda, kAll, {PadKernel});

}  // namespace
}  // namespace duet
