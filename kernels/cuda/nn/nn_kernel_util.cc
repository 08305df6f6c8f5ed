#include "kernels/cuda/nn/nn_kernel_util.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"

namespace duet::cuda {

absl::StatusOr<NnType> ToNnType(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return NnType::kFloat32;
    case kFloat64:
      return NnType::kFloat64;
    case kFloat16:
      return NnType::kFloat16;
    case kBFloat16:
      return NnType::kBFloat16;
    case kInt32:
      return NnType::kInt32;
    case kInt64:
      return NnType::kInt64;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no CUDA nn kernel for dtype ", DTypeName(dtype)));
  }
}

absl::StatusOr<Tensor> DeviceScratch(Device device, size_t bytes) {
  const int64_t words = static_cast<int64_t>((bytes + sizeof(float) - 1) / sizeof(float));
  return Tensor::TryEmpty(kFloat32, Shape{words}, device);
}

}  // namespace duet::cuda
