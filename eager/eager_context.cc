#include "eager/eager_context.h"

#include "absl/strings/str_cat.h"
#include "eager/device_scope.h"
#include "eager/gradient_tape.h"
#include "kernels/kernel_registry.h"
#include "ops/placement.h"

namespace duet {
namespace {

// Where the call runs (Note [Placement]); inputs not on the device they must be on are copied
// there first (the copies are ops of their own, so tapes record them). This loop is eager
// execution's device check (Note [Device checks]): it compares every input with the device the
// kernel reads it on, and a copy that did not land there is the check's error. On the fast path
// (every input on the host, no scope) the inputs are right by construction.
absl::StatusOr<Device> PlaceAndMoveInputs(OpCall& call) {
  bool all_on_host = true;
  for (const Tensor& t : call.inputs) {
    if (!t.has_value()) {
      return absl::InvalidArgumentError(
          "a symbolic graph tensor was passed to an eager op; use it inside its GraphScope or "
          "fetch its value with Session::run");
    }
    all_on_host &= t.device().is_host();
  }
  const std::optional<Device> scope = DeviceScope::Innermost();
  // The common case, decided without the rules: every rule but the copy's picks the host when no
  // scope is open and every input is there, where every input then must be.
  if (all_on_host && !scope.has_value() && call.op->placement_attr < 0) return Device::cpu();
  const HostInputs host_inputs(call);
  DUET_ASSIGN_OR_RETURN(const Device device, PlaceCall(call, host_inputs, scope));
  if (!device_present(device)) {
    return absl::FailedPreconditionError(
        absl::StrCat("device ", device.str(), " is not present on this machine",
                     device.is_cpu() ? " (virtual CPU devices: DUET_VIRTUAL_DEVICES=N)" : ""));
  }
  for (int i = 0; i < static_cast<int>(call.inputs.size()); ++i) {
    Tensor& input = call.inputs[i];
    const std::optional<Device> want =
        RequiredInputDevice(*call.op, host_inputs, i, input.dtype(), device);
    if (!want.has_value() || input.device() == *want) continue;
    if (input.dtype() == kResource) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " is a variable on ",
                                                     input.device().str(), ", but the op runs on ",
                                                     want->str(), "; variables do not move"));
    }
    input = input.to(*want);
    if (input.device() != *want) return InputDeviceError(call, i, input.device(), *want, device);
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
  if (kernel->allocates_outputs) DUET_RETURN_IF_ERROR(CheckOutputDevices(call, outputs, device));
  if (tape_internal::recording_tapes > 0) tape_internal::RecordOperation(call, outputs);
  return absl::OkStatus();
}

}  // namespace duet
