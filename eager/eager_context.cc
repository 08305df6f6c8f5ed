#include "eager/eager_context.h"

#include "absl/strings/str_cat.h"
#include "eager/device_scope.h"
#include "eager/gradient_tape.h"
#include "kernels/kernel_registry.h"
#include "ops/placement.h"

namespace duet {
namespace {

// Where the call runs (Note [Placement]); inputs not on the device they must be on are copied
// there first (the copies are ops of their own, so tapes record them).
absl::StatusOr<Device> PlaceAndMoveInputs(OpCall& call) {
  bool all_on_cpu = true;
  for (const Tensor& t : call.inputs) {
    if (!t.has_value()) {
      return absl::InvalidArgumentError(
          "a symbolic graph tensor was passed to an eager op; use it inside its GraphScope or "
          "fetch its value with Session::run");
    }
    all_on_cpu &= t.device().is_cpu();
  }
  const std::optional<Device> scope = DeviceScope::Innermost();
  // The common case, decided without the rules: every rule but the copy's picks the CPU when no
  // scope is open and every input is there.
  if (all_on_cpu && !scope.has_value() && call.op->placement_attr < 0) return Device::cpu();
  const uint64_t host_mask = HostInputMask(call);
  DUET_ASSIGN_OR_RETURN(const Device device, PlaceCall(call, host_mask, scope));
  if (!device.is_cpu() && AllocatorFor(device) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("device ", device.str(), " is not present on this machine"));
  }
  // A copy's input is elsewhere by design; a shape reader needs no elements.
  if (call.op->placement_attr >= 0 || call.op->reads_only_input_shapes) return device;
  for (int i = 0; i < static_cast<int>(call.inputs.size()); ++i) {
    Tensor& input = call.inputs[i];
    const Device want = InputDevice(host_mask, i, device);
    if (input.device() == want) continue;
    if (input.dtype() == kResource) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " is a variable on ",
                                                     input.device().str(), ", but the op runs on ",
                                                     want.str(), "; variables do not move"));
    }
    input = input.to(want);
  }
  return device;
}

// Installs the eager context as the default when the eager layer is linked in.
const bool installed = [] {
  ExecutionContext::SetDefault(&EagerContext::Get());
  return true;
}();

}  // namespace

EagerContext& EagerContext::Get() {
  static auto* context = new EagerContext;
  return *context;
}

absl::Status EagerContext::Execute(OpCall& call, OutputList& outputs) {
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  DUET_ASSIGN_OR_RETURN(const Device device, PlaceAndMoveInputs(call));
  ShapeContext shapes(call);
  DUET_RETURN_IF_ERROR(InferShapes(shapes));
  const DType dtype = DispatchDType(call);
  const KernelDef* kernel = FindKernel(*call.op, device.type(), dtype);
  if (kernel == nullptr) return NoKernelError(*call.op, device.type(), dtype);
  outputs.resize(shapes.num_outputs());
  if (!kernel->allocates_outputs) {
    for (int i = 0; i < shapes.num_outputs(); ++i) {
      const ShapeContext::Output& out = shapes.output(i);
      DUET_ASSIGN_OR_RETURN(outputs[i], Tensor::TryEmpty(out.dtype, out.shape, device));
    }
  }
  KernelContext ctx(call, outputs, device);
  DUET_RETURN_IF_ERROR(kernel->fn(ctx));
  if (tape_internal::recording_tapes > 0) tape_internal::RecordOperation(call, outputs);
  return absl::OkStatus();
}

}  // namespace duet
