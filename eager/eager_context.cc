#include "eager/eager_context.h"

#include "absl/strings/str_cat.h"
#include "eager/device_scope.h"
#include "eager/gradient_tape.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// The device named by the op's placement attr (a copy), else the current DeviceScope's.
absl::StatusOr<Device> ChosenDevice(const OpCall& call) {
  if (call.op->placement_attr < 0) return DeviceScope::Current();
  return Device::Parse(std::get<std::string>(call.attrs[call.op->placement_attr]));
}

// Where the call runs: a copy on its target device; an op without inputs on the DeviceScope's;
// any other op where its inputs are, which must be one device. The device must be present.
absl::StatusOr<Device> PlaceCall(const OpCall& call) {
  const bool chosen = call.op->placement_attr >= 0 || call.inputs.empty();
  Device device;
  if (chosen) {
    DUET_ASSIGN_OR_RETURN(device, ChosenDevice(call));
  } else {
    device = call.inputs[0].device();
  }
  if (!device.is_cpu() && AllocatorFor(device) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("device ", device.str(), " is not present on this machine"));
  }
  for (const Tensor& t : call.inputs) {
    if (!t.has_value()) {
      return absl::InvalidArgumentError(
          "a symbolic graph tensor was passed to an eager op; use it inside its GraphScope or "
          "fetch its value with Session::run");
    }
    if (!chosen && t.device() != device) {
      return absl::InvalidArgumentError(absl::StrCat("inputs are on different devices (",
                                                     device.str(), " and ", t.device().str(),
                                                     "); copy one explicitly with .to(device)"));
    }
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
  DUET_ASSIGN_OR_RETURN(const Device device, PlaceCall(call));
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
