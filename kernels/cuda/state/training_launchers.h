// Launchers of the fused optimizer updates on CUDA (ops/state/training_ops.h), compiled by nvcc:
// one grid-stride kernel per formula, float32 or float64, with the CPU kernels' formulas
// (kernels/cpu/state/training_kernels.cc) term for term. Plain C-like interface; asynchronous on
// `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace duet::cuda {

// The element type of every array and scalar of one update.
enum class UpdateType { kFloat32, kFloat64 };

// The arrays and hyper-parameters of one update, all device pointers. Variable k (var first, then
// its slots in the op's order) is read from in[k] and written to out[k], which may be the same
// buffer (an in-place update) or a fresh one (copy on write): each element is read before it is
// written, by the same thread. `scalar` holds the op's rank-0 hyper-parameters in its input
// order (for Adam: beta1_power, beta2_power, lr, beta1, beta2, epsilon); the kernels read them
// on the device, so a training step whose schedule lives on the GPU copies nothing to the host.
struct UpdateArgs {
  static constexpr int kMaxVariables = 4;
  static constexpr int kMaxScalars = 6;
  const void* in[kMaxVariables] = {};
  void* out[kMaxVariables] = {};
  const void* grad = nullptr;
  const void* scalar[kMaxScalars] = {};
  int64_t n = 0;
};

// var, accum; scalars lr, momentum (ResourceApplyKerasMomentum's lr, then its momentum).
cudaError_t LaunchKerasMomentum(UpdateType type, const UpdateArgs& args, bool use_nesterov,
                                cudaStream_t stream);
// var, m, v; scalars beta1_power, beta2_power, lr, beta1, beta2, epsilon.
cudaError_t LaunchAdam(UpdateType type, const UpdateArgs& args, bool use_nesterov,
                       cudaStream_t stream);
// var, m, v, vhat; Adam's scalars.
cudaError_t LaunchAdamWithAmsgrad(UpdateType type, const UpdateArgs& args, cudaStream_t stream);
// var, ms, mom; scalars lr, rho, momentum, epsilon.
cudaError_t LaunchRMSProp(UpdateType type, const UpdateArgs& args, cudaStream_t stream);
// var, mg, ms, mom; RMSProp's scalars.
cudaError_t LaunchCenteredRMSProp(UpdateType type, const UpdateArgs& args, cudaStream_t stream);
// var, accum; scalars lr, epsilon.
cudaError_t LaunchAdagradV2(UpdateType type, const UpdateArgs& args, bool update_slots,
                            cudaStream_t stream);

}  // namespace duet::cuda
