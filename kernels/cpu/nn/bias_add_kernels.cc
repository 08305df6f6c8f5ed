// BiasAdd on the CPU: a row-wise add of the bias, split over the intra-op pool for large inputs.
#include <algorithm>
#include <type_traits>

#include "kernels/common/channels_last_kernel.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// 16-bit floats are storage types: add in float.
template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else {
    return a + b;
  }
}

template <typename T>
absl::Status BiasAddKernel(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  const int64_t channels = ctx.input(1).num_elements();
  if (value.num_elements() == 0) return absl::OkStatus();
  const int64_t rows = value.num_elements() / channels;
  const T* in = value.data<T>();
  const T* bias = ctx.input(1).data<T>();
  T* out = ctx.output(0).mutable_data<T>();
  ctx.pool().ParallelFor(rows, std::max<int64_t>(1, 32768 / channels),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             for (int64_t c = 0; c < channels; ++c) {
                               out[r * channels + c] = Add(in[r * channels + c], bias[c]);
                             }
                           }
                         });
  return absl::OkStatus();
}

const KernelRegistrar kF32("BiasAdd", DeviceType::kCpu, {kFloat32},
                           {ChannelsLast<BiasAddKernel<float>>});
const KernelRegistrar kF64("BiasAdd", DeviceType::kCpu, {kFloat64},
                           {ChannelsLast<BiasAddKernel<double>>});
const KernelRegistrar kF16("BiasAdd", DeviceType::kCpu, {kFloat16},
                           {ChannelsLast<BiasAddKernel<float16>>});
const KernelRegistrar kBF16("BiasAdd", DeviceType::kCpu, {kBFloat16},
                            {ChannelsLast<BiasAddKernel<bfloat16>>});
const KernelRegistrar kI32("BiasAdd", DeviceType::kCpu, {kInt32},
                           {ChannelsLast<BiasAddKernel<int32_t>>});
const KernelRegistrar kI64("BiasAdd", DeviceType::kCpu, {kInt64},
                           {ChannelsLast<BiasAddKernel<int64_t>>});

}  // namespace
}  // namespace duet
