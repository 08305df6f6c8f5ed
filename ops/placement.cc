#include "ops/placement.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace duet {

uint64_t HostInputMask(const OpCall& call) {
  if (!call.op->has_host_input) return 0;
  uint64_t mask = 0;
  int flat = 0;
  for (const ArgDef& arg : call.op->inputs) {
    const int64_t length = arg.is_list() ? ArgLength(arg, call.attrs) : 1;
    if (arg.host_memory) {
      for (int64_t k = 0; k < length && flat + k < 64; ++k) mask |= uint64_t{1} << (flat + k);
    }
    flat += static_cast<int>(std::max<int64_t>(length, 0));
  }
  return mask;
}

absl::StatusOr<Device> PlaceCall(const OpCall& call, uint64_t host_mask,
                                 std::optional<Device> scope) {
  const OpDef& op = *call.op;
  if (op.runs_on_host) return Device::cpu();
  if (op.placement_attr >= 0) {
    return Device::Parse(std::get<std::string>(call.attrs[op.placement_attr]));
  }
  // One pass over the inputs (this runs for every eager op): a variable handle decides at once;
  // otherwise the first data input that is not a CPU scalar, and whether another disagrees.
  std::optional<Device> device;
  const Tensor* disagrees = nullptr;
  for (int i = 0; i < static_cast<int>(call.inputs.size()); ++i) {
    const Tensor& t = call.inputs[i];
    if (!t.defined() || IsHostInput(host_mask, i)) continue;
    if (t.dtype() == kResource) return t.device();
    if (t.device().is_cpu() && t.rank() == 0) continue;
    if (!device.has_value()) {
      device = t.device();
    } else if (t.device() != *device && disagrees == nullptr) {
      disagrees = &t;
    }
  }
  if (scope.has_value()) return *scope;
  if (disagrees != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inputs are on different devices (", device->str(), " and ", disagrees->device().str(),
        "); copy one explicitly with .to(device), or run the op in a DeviceScope"));
  }
  return device.value_or(Device::cpu());
}

}  // namespace duet
