// Transpose on CUDA. After coalescing (kernels/common/strided_copy_plan.h, as on the CPU), a
// permutation that swaps the last two of at most three merged dims is a batched 2-D transpose
// through shared-memory tiles (2-D, NCHW to NHWC, and any rotation of dims); the rest, including
// permutations that keep the innermost dim, go through the general strided copy.
#include <optional>

#include "core/int_values.h"
#include "kernels/common/strided_copy_plan.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/array/strided_copy.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// The (batch, rows, cols) input view when `c` (output dims, input strides) is a batched 2-D
// transpose: out[b, x, y] = in[b, y, x].
struct BatchTranspose {
  int64_t batch, rows, cols;
};
std::optional<BatchTranspose> AsBatchTranspose(const StridedDims& c) {
  if (c.rank() == 2 && c.src[0] == 1 && c.src[1] == c.dims[0]) {
    return BatchTranspose{1, c.dims[1], c.dims[0]};
  }
  if (c.rank() == 3 && c.src[1] == 1 && c.src[2] == c.dims[1] &&
      c.src[0] == c.dims[1] * c.dims[2]) {
    return BatchTranspose{c.dims[0], c.dims[2], c.dims[1]};
  }
  return std::nullopt;
}

absl::Status TransposeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  const StridedCopyPlan plan = TransposeCopy(x.shape(), out.shape(), IntValues(ctx.input(1)));
  const int elem = DTypeSize(x.dtype());
  const CoalescedDims c = Coalesce(plan.layout.dims, plan.layout.src, plan.layout.dst);
  if (const auto t = AsBatchTranspose(c.dims)) {
    DUET_CUDA_RETURN_IF_ERROR(cuda::LaunchBatchTranspose(
        x.raw_data(), out.raw_data(), t->batch, t->rows, t->cols, elem, context->stream()));
    return absl::OkStatus();
  }
  return cuda::StridedCopy(plan, x.raw_data(), out.raw_data(), elem, context->stream());
}

const KernelRegistrar kTranspose("Transpose", DeviceType::kCuda,
                                 {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool},
                                 {TransposeKernel});

}  // namespace
}  // namespace duet
