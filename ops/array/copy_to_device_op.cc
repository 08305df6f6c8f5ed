// DuetCopyToDevice: the one op that moves a tensor between devices (Tensor::to, .gpu(), .cpu()).
// Being an op makes copies differentiable (the gradient copies back) and lets graph mode record
// them as nodes; the session inserts the same op at device boundaries of a graph.
#include "absl/strings/str_cat.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/array/shape_fn_util.h"
#include "ops/common_shape_fns.h"
#include "ops/op_call.h"

namespace duet {
namespace {

// Rejects a malformed device name when the call is built, in either mode.
absl::Status CopyShape(ShapeContext& ctx) {
  const auto& device = ctx.attr(CopyToDeviceAttrs::kDevice);
  if (!Device::Parse(device).ok()) {
    return absl::InvalidArgumentError(absl::StrCat("'", device, "' is not a device name"));
  }
  return UnchangedShape(ctx);
}

const OpDef* const kCopyToDevice =
    OpDefBuilder("DuetCopyToDevice")
        .Input("input", "T")
        .Output("output", "T")
        .TypeAttr(CopyToDeviceAttrs::kT, kAllDTypes)
        .StringAttr(CopyToDeviceAttrs::kDevice)
        .PlacedByAttr("device")
        .Doc("The input copied to `device` (TensorFlow's form, /device:GPU:0).")
        .SetShapeFn(CopyShape)
        .Register();

// Tensor::to runs through the op, in whichever mode is current (Note [Device copies] in
// core/tensor.cc).
class CopyOpCopier final : public DeviceCopier {
 public:
  Tensor Copy(const Tensor& x, Device device) const override { return copy_to_device(x, device); }
};

const bool installed = [] {
  RegisterDeviceCopier(new CopyOpCopier);
  return true;
}();

}  // namespace

Tensor copy_to_device(const Tensor& x, Device device, OpSite site) {
  OpCall call(kCopyToDevice, {x}, site);
  call.set(CopyToDeviceAttrs::kDevice, device.tf_name());
  return RunSingleOutputOp(call);
}

}  // namespace duet
