// What the nn family's CUDA kernels (.cc) share: the launcher element type of a duet dtype, the
// conversion of a launch status, and device scratch tensors from the caching allocator.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/error.h"
#include "core/tensor.h"
#include "kernels/cuda/nn/nn_launch_types.h"

namespace duet::cuda {

// The launcher type of `dtype`; InvalidArgument for dtypes the nn launchers lack (bool, ...).
absl::StatusOr<NnType> ToNnType(DType dtype);

// An uninitialized device tensor of at least `bytes` bytes on `device` (float32 elements), for
// workspaces and padded copies; its memory returns to the caching allocator when dropped.
// Stream order makes reuse safe (Note [One stream per device]).
absl::StatusOr<Tensor> DeviceScratch(Device device, size_t bytes);

}  // namespace duet::cuda
