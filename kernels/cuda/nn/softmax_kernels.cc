// Softmax and LogSoftmax (last axis) and SoftmaxCrossEntropyWithLogits /
// SparseSoftmaxCrossEntropyWithLogits on CUDA: one block per row (softmax_launchers.h).
//
// Not cudnnSoftmaxForward: the cross-entropies need the same row pass with their own outputs, so
// one row kernel serves all four ops, with the CPU's numerics (double sums for the losses).
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/cuda/nn/softmax_launchers.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

template <bool kLog>
absl::Status SoftmaxKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (y.num_elements() == 0) return absl::OkStatus();
  const int64_t cols = x.shape()[x.rank() - 1];
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(x.dtype()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(cuda::LaunchSoftmax(type, kLog, x.raw_data(), y.raw_data(),
                                              y.num_elements() / cols, cols, device->stream()),
                          kLog ? "LogSoftmax" : "Softmax");
}

// Where an operand of rank <= 2 sits when broadcast (NumPy rules) to [rows, cols]: stride 0 along
// its dims of size 1 and those it lacks.
cuda::BroadcastStrides StridesOf(const Tensor& t) {
  const int rank = t.rank();
  const int64_t rows = rank == 2 ? t.shape()[0] : 1;
  const int64_t cols = rank >= 1 ? t.shape()[rank - 1] : 1;
  return {rows == 1 ? 0 : cols, cols == 1 ? 0 : 1};
}

// Inputs: features and labels, broadcasting to backprop's [rows, cols]; outputs: loss [rows],
// backprop.
absl::Status CrossEntropyKernel(KernelContext& ctx) {
  const Tensor& features = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  const Tensor& backprop = ctx.output(1);
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(features.dtype()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(cuda::LaunchSoftmaxCrossEntropy(
                              type, features.raw_data(), StridesOf(features), labels.raw_data(),
                              StridesOf(labels), ctx.output(0).raw_data(), ctx.output(1).raw_data(),
                              backprop.shape()[0], backprop.shape()[1], device->stream()),
                          "SoftmaxCrossEntropyWithLogits");
}

// Inputs: features [rows, cols], labels [rows] (int32 or int64, on the device). Out-of-range
// labels give NaN rows instead of the CPU's InvalidArgument (softmax_launchers.h).
absl::Status SparseCrossEntropyKernel(KernelContext& ctx) {
  const Tensor& features = ctx.input(0);
  DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(features.dtype()));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return cuda::CudaStatus(
      cuda::LaunchSparseSoftmaxCrossEntropy(
          type, ctx.input(1).dtype() == kInt64, features.raw_data(), ctx.input(1).raw_data(),
          ctx.output(0).raw_data(), ctx.output(1).raw_data(), features.shape()[0],
          features.shape()[1], device->stream()),
      "SparseSoftmaxCrossEntropyWithLogits");
}

const bool kRegistered = [] {
  for (DType t : {kFloat32, kFloat64, kBFloat16}) {
    RegisterKernel("Softmax", DeviceType::kCuda, {t}, KernelDef{&SoftmaxKernel<false>});
    RegisterKernel("LogSoftmax", DeviceType::kCuda, {t}, KernelDef{&SoftmaxKernel<true>});
  }
  for (DType t : {kFloat32, kFloat64}) {
    RegisterKernel("SoftmaxCrossEntropyWithLogits", DeviceType::kCuda, {t},
                   KernelDef{&CrossEntropyKernel});
    RegisterKernel("SparseSoftmaxCrossEntropyWithLogits", DeviceType::kCuda, {t},
                   KernelDef{&SparseCrossEntropyKernel});
  }
  return true;
}();

}  // namespace
}  // namespace duet
