// ConcatV2, Split and SplitV on CUDA. As on the CPU, each operand is a block of columns of the
// whole viewed as (outer, row); one strided copy per operand moves it. axis and size_splits are
// host inputs.
#include "core/int_values.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

int64_t OuterSize(const Shape& shape, int axis) {
  int64_t n = 1;
  for (int d = 0; d < axis; ++d) n *= shape.dim(d);
  return n;
}

int WrapAxis(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

absl::Status ConcatKernel(KernelContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const int axis = WrapAxis(IntScalar(ctx.input(n)), out.rank());
  const int64_t outer = OuterSize(out.shape(), axis);
  const int64_t row = out.num_elements() / outer;
  const int elem = DTypeSize(out.dtype());
  int64_t offset = 0;
  for (int k = 0; k < n; ++k) {
    const int64_t width = ctx.input(k).num_elements() / outer;
    DUET_RETURN_IF_ERROR(cuda::StridedCopy({outer, width}, ctx.input(k).raw_data(), {width, 1},
                                           static_cast<char*>(out.raw_data()) + offset * elem,
                                           {row, 1}, elem, context->stream()));
    offset += width;
  }
  return absl::OkStatus();
}

absl::Status SplitInto(KernelContext& ctx, const Tensor& x, int64_t axis_value) {
  if (x.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const int axis = WrapAxis(axis_value, x.rank());
  const int64_t outer = OuterSize(x.shape(), axis);
  const int64_t row = x.num_elements() / outer;
  const int elem = DTypeSize(x.dtype());
  int64_t offset = 0;
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    Tensor& out = ctx.output(k);
    const int64_t width = out.num_elements() / outer;
    DUET_RETURN_IF_ERROR(
        cuda::StridedCopy({outer, width}, static_cast<const char*>(x.raw_data()) + offset * elem,
                          {row, 1}, out.raw_data(), {width, 1}, elem, context->stream()));
    offset += width;
  }
  return absl::OkStatus();
}

absl::Status SplitKernel(KernelContext& ctx) {
  return SplitInto(ctx, ctx.input(1), IntScalar(ctx.input(0)));
}

absl::Status SplitVKernel(KernelContext& ctx) {
  return SplitInto(ctx, ctx.input(0), IntScalar(ctx.input(2)));
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool};

const KernelRegistrar kConcatV2("ConcatV2", DeviceType::kCuda, kAll, {ConcatKernel});
const KernelRegistrar kSplit("Split", DeviceType::kCuda, kAll, {SplitKernel});
const KernelRegistrar kSplitV("SplitV", DeviceType::kCuda, kAll, {SplitVKernel});

}  // namespace
}  // namespace duet
