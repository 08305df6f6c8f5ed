// Bucketize on CUDA: the boundaries (an attr, on the host) are copied into a device buffer for
// each call, then LaunchBucketize searches them per element.
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/math/elementwise_launchers.h"
#include "kernels/cuda/math/elementwise_layout.h"
#include "kernels/kernel_registry.h"
#include "ops/math/math_attrs.h"

namespace duet::cuda {
namespace {

absl::Status BucketizeKernel(KernelContext& ctx) {
  const std::vector<float>& boundaries = ctx.attr(BucketizeAttrs::kBoundaries);
  const Tensor& x = ctx.input(0);
  Tensor& z = ctx.output(0);
  if (z.num_elements() == 0) return absl::OkStatus();
  DUET_ASSIGN_OR_RETURN(DeviceContext * device, CurrentContext(ctx.device()));
  const int64_t count = static_cast<int64_t>(boundaries.size());
  DUET_ASSIGN_OR_RETURN(Tensor on_device, Tensor::TryEmpty(kFloat32, Shape{count}, ctx.device()));
  if (count > 0) {
    DUET_RETURN_IF_ERROR(CopyBytes(on_device.raw_data(), ctx.device(), boundaries.data(),
                                   Device::cpu(), count * sizeof(float)));
  }
  return CudaStatus(LaunchBucketize(ElementTypeOf(x.dtype()), x.raw_data(), on_device.data<float>(),
                                    static_cast<int>(count), z.mutable_data<int32_t>(),
                                    z.num_elements(), device->stream()),
                    "LaunchBucketize");
}

const KernelRegistrar kBucketize("Bucketize", DeviceType::kCuda,
                                 {kInt32, kInt64, kFloat32, kFloat64}, {&BucketizeKernel});

}  // namespace
}  // namespace duet::cuda
