// The fused optimizer updates on CUDA (ops/state/training_ops.h): ResourceApplyKerasMomentum,
// ResourceApplyAdam, ResourceApplyAdamWithAmsgrad, ResourceApplyRMSProp,
// ResourceApplyCenteredRMSProp and ResourceApplyAdagradV2, one grid-stride kernel each
// (training_launchers.cu) with the CPU kernels' formulas. The variables are locked and checked,
// and copy on write decided, exactly as on the CPU (LockedUpdate,
// kernels/common/variable_update.h); a fresh value is written straight from the old one, so copy on
// write costs no extra pass. The hyper-parameters stay on the device (the kernels load them), so a
// step whose learning rate the GPU computes never waits for the host.
#include <initializer_list>

#include "kernels/common/variable_update.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/state/training_launchers.h"
#include "kernels/kernel_registry.h"
#include "ops/state/state_attrs.h"

namespace duet {
namespace {

// Where one op keeps its tensors: inputs [0, num_variables) are var and its slots.
struct UpdateLayout {
  int num_variables;
  int grad;
  std::initializer_list<int> scalars;  // the launcher's scalar order
};

// Locks and checks the variables, runs `launch(type, args, stream)` over them, and commits.
template <typename Launch>
absl::Status RunUpdate(KernelContext& ctx, const UpdateLayout& layout, const char* what,
                       Launch launch) {
  for (int i : layout.scalars) DUET_RETURN_IF_ERROR(CheckScalarInput(ctx, i));
  LockedUpdate update;
  DUET_RETURN_IF_ERROR(update.Begin(ctx, layout.num_variables, layout.grad));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  const Tensor& grad = ctx.input(layout.grad);
  cuda::UpdateArgs args;
  for (int k = 0; k < update.size(); ++k) {
    args.in[k] = update.old_value(k).raw_data();
    args.out[k] = update.new_value(k).raw_data();
  }
  int s = 0;
  for (int i : layout.scalars) args.scalar[s++] = ctx.input(i).raw_data();
  args.grad = grad.raw_data();
  args.n = grad.num_elements();
  const cuda::UpdateType type =
      grad.dtype() == kFloat64 ? cuda::UpdateType::kFloat64 : cuda::UpdateType::kFloat32;
  DUET_RETURN_IF_ERROR(cuda::CudaStatus(launch(type, args, device->stream()), what));
  update.Commit();
  return absl::OkStatus();
}

absl::Status KerasMomentumKernel(KernelContext& ctx) {
  const bool nesterov = ctx.attr(ApplyNesterovAttrs::kUseNesterov);
  return RunUpdate(
      ctx, {2, 3, {2, 4}}, "ResourceApplyKerasMomentum",
      [nesterov](cuda::UpdateType type, const cuda::UpdateArgs& args, cudaStream_t stream) {
        return cuda::LaunchKerasMomentum(type, args, nesterov, stream);
      });
}

absl::Status AdamKernel(KernelContext& ctx) {
  const bool nesterov = ctx.attr(ApplyNesterovAttrs::kUseNesterov);
  return RunUpdate(
      ctx, {3, 9, {3, 4, 5, 6, 7, 8}}, "ResourceApplyAdam",
      [nesterov](cuda::UpdateType type, const cuda::UpdateArgs& args, cudaStream_t stream) {
        return cuda::LaunchAdam(type, args, nesterov, stream);
      });
}

absl::Status AdamWithAmsgradKernel(KernelContext& ctx) {
  return RunUpdate(ctx, {4, 10, {4, 5, 6, 7, 8, 9}}, "ResourceApplyAdamWithAmsgrad",
                   cuda::LaunchAdamWithAmsgrad);
}

absl::Status RMSPropKernel(KernelContext& ctx) {
  return RunUpdate(ctx, {3, 7, {3, 4, 5, 6}}, "ResourceApplyRMSProp", cuda::LaunchRMSProp);
}

absl::Status CenteredRMSPropKernel(KernelContext& ctx) {
  return RunUpdate(ctx, {4, 8, {4, 5, 6, 7}}, "ResourceApplyCenteredRMSProp",
                   cuda::LaunchCenteredRMSProp);
}

absl::Status AdagradV2Kernel(KernelContext& ctx) {
  const bool update_slots = ctx.attr(ApplyAdagradV2Attrs::kUpdateSlots);
  return RunUpdate(
      ctx, {2, 4, {2, 3}}, "ResourceApplyAdagradV2",
      [update_slots](cuda::UpdateType type, const cuda::UpdateArgs& args, cudaStream_t stream) {
        return cuda::LaunchAdagradV2(type, args, update_slots, stream);
      });
}

const KernelRegistrar kKerasMomentum("ResourceApplyKerasMomentum", DeviceType::kCuda,
                                     {kFloat32, kFloat64}, {KerasMomentumKernel});
const KernelRegistrar kAdam("ResourceApplyAdam", DeviceType::kCuda, {kFloat32, kFloat64},
                            {AdamKernel});
const KernelRegistrar kAdamWithAmsgrad("ResourceApplyAdamWithAmsgrad", DeviceType::kCuda,
                                       {kFloat32, kFloat64}, {AdamWithAmsgradKernel});
const KernelRegistrar kRMSProp("ResourceApplyRMSProp", DeviceType::kCuda, {kFloat32, kFloat64},
                               {RMSPropKernel});
const KernelRegistrar kCenteredRMSProp("ResourceApplyCenteredRMSProp", DeviceType::kCuda,
                                       {kFloat32, kFloat64}, {CenteredRMSPropKernel});
const KernelRegistrar kAdagradV2("ResourceApplyAdagradV2", DeviceType::kCuda, {kFloat32, kFloat64},
                                 {AdagradV2Kernel});

}  // namespace
}  // namespace duet
