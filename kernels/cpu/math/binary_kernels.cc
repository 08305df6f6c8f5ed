// CPU kernels for binary elementwise ops (seed: AddV2 on same-shape inputs).
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

template <typename T>
absl::Status AddKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.shape() != y.shape()) return absl::UnimplementedError("broadcasting not yet");
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  T* out = ctx.output(0).mutable_data<T>();
  const int64_t n = x.num_elements();
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
  return absl::OkStatus();
}

const KernelRegistrar kAddF32("AddV2", DeviceType::kCpu, {kFloat32}, {AddKernel<float>});
const KernelRegistrar kAddF64("AddV2", DeviceType::kCpu, {kFloat64}, {AddKernel<double>});

}  // namespace
}  // namespace duet
