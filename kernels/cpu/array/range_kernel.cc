// Range on the CPU. The operands are host scalars; the length follows TensorFlow's rule
// (RangeLength in core/constant.h). Element i is start + i * delta, as numpy.arange computes it
// (not TensorFlow's running sum, which drifts for floats): floats in double, then rounded;
// integers in wrapping 64-bit arithmetic, exact because every result lies in [start, limit).
#include <type_traits>

#include "core/constant.h"
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
  T* out = ctx.output(0).mutable_data<T>();
  ctx.pool().ParallelFor(n, 16 * 1024, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_integral_v<T>) {
        out[i] = static_cast<T>(static_cast<uint64_t>(start) +
                                static_cast<uint64_t>(i) * static_cast<uint64_t>(delta));
      } else {
        out[i] = static_cast<T>(start + static_cast<double>(i) * delta);
      }
    }
  });
  return absl::OkStatus();
}

// The output's length depends on the operands' values, which a graph may not know statically.
const KernelRegistrar kFloat32Range("Range", DeviceType::kCpu, {kFloat32},
                                    {RangeKernel<float>, /*allocates_outputs=*/true});
const KernelRegistrar kFloat64Range("Range", DeviceType::kCpu, {kFloat64},
                                    {RangeKernel<double>, /*allocates_outputs=*/true});
const KernelRegistrar kInt32Range("Range", DeviceType::kCpu, {kInt32},
                                  {RangeKernel<int32_t>, /*allocates_outputs=*/true});
const KernelRegistrar kInt64Range("Range", DeviceType::kCpu, {kInt64},
                                  {RangeKernel<int64_t>, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
