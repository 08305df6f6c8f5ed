// Range on CUDA, with the CPU kernel's semantics (kernels/cpu/array/range_kernel.cc): the host
// scalars give the length (RangeLength in core/constant.h), and element i is start + i * delta.
#include <type_traits>

#include "core/constant.h"
#include "kernels/cuda/array/array_kernels.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

template <typename T>
absl::Status RangeKernel(KernelContext& ctx) {
  using Wide = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
  const Wide start = *ctx.input(0).data<T>();
  const Wide limit = *ctx.input(1).data<T>();
  const Wide delta = *ctx.input(2).data<T>();
  // The length in T's own arithmetic (float for float32), as TensorFlow computes it.
  using Length = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
  DUET_ASSIGN_OR_RETURN(const int64_t n,
                        RangeLength(static_cast<Length>(start), static_cast<Length>(limit),
                                    static_cast<Length>(delta)));
  DUET_ASSIGN_OR_RETURN(ctx.output(0), Tensor::TryEmpty(DTypeOf<T>(), Shape{n}, ctx.device()));
  if (n == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * context, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(
      cuda::LaunchRange(ctx.output(0).mutable_data<T>(), n, start, delta, context->stream()),
      "Range");
}

const KernelRegistrar kFloat32Range("Range", DeviceType::kCuda, {kFloat32},
                                    {RangeKernel<float>, /*allocates_outputs=*/true});
const KernelRegistrar kFloat64Range("Range", DeviceType::kCuda, {kFloat64},
                                    {RangeKernel<double>, /*allocates_outputs=*/true});
const KernelRegistrar kInt32Range("Range", DeviceType::kCuda, {kInt32},
                                  {RangeKernel<int32_t>, /*allocates_outputs=*/true});
const KernelRegistrar kInt64Range("Range", DeviceType::kCuda, {kInt64},
                                  {RangeKernel<int64_t>, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
