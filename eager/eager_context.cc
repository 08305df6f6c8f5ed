#include "eager/eager_context.h"

#include "absl/strings/str_cat.h"
#include "eager/device_scope.h"
#include "eager/gradient_tape.h"
#include "kernels/kernel_registry.h"

namespace duet {
namespace {

// All inputs must have values and live on one device, which is where the op runs.
absl::StatusOr<Device> PlaceCall(const OpCall& call) {
  if (call.inputs.empty()) return DeviceScope::Current();
  const Device device = call.inputs[0].device();
  for (const Tensor& t : call.inputs) {
    if (!t.has_value()) {
      return absl::InvalidArgumentError(
          "a symbolic graph tensor was passed to an eager op; use it inside its GraphScope or "
          "fetch its value with Session::run");
    }
    if (t.device() != device) {
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
