#include "ops/placement.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace duet {

HostInputs::HostInputs(const OpCall& call) {
  if (!call.op->has_host_input) return;
  int64_t flat = 0;
  for (const ArgDef& arg : call.op->inputs) {
    const int64_t length = arg.is_list() ? std::max<int64_t>(ArgLength(arg, call.attrs), 0) : 1;
    if (arg.host_memory) {
      for (int64_t i = flat; i < flat + length; ++i) {
        if (words_.size() <= static_cast<size_t>(i / 64)) words_.resize(i / 64 + 1, 0);
        words_[i / 64] |= uint64_t{1} << (i % 64);
      }
    }
    flat += length;
  }
}

namespace {

// A host value that goes along with tensors on another device (rule 5): a scalar, or an empty
// tensor (DenseBincount's "no weights"), which has nothing to copy.
bool GoesAlong(const Shape& shape) {
  return shape.rank() == 0 || (shape.is_fully_defined() && shape.num_elements() == 0);
}

}  // namespace

absl::StatusOr<Device> PlaceCall(const OpCall& call, const HostInputs& host_inputs,
                                 std::optional<Device> scope) {
  const OpDef& op = *call.op;
  if (op.runs_on_host) return Device::cpu();
  if (op.placement_attr >= 0) {
    return Device::Parse(std::get<std::string>(call.attrs[op.placement_attr]));
  }
  // One pass over the inputs (this runs for every eager op): a variable handle decides at once
  // (not for multi-device ops, Note [Calls across devices]); otherwise the first data input that
  // is not a host scalar, and whether another disagrees.
  std::optional<Device> device, variable;
  const Tensor* disagrees = nullptr;
  for (int i = 0; i < static_cast<int>(call.inputs.size()); ++i) {
    const Tensor& t = call.inputs[i];
    if (!t.defined() || host_inputs.contains(i)) continue;
    if (t.dtype() == kResource) {
      if (!op.multi_device) return t.device();
      if (!variable.has_value()) variable = t.device();
      continue;
    }
    if (t.device().is_host() && GoesAlong(t.shape())) continue;
    if (!device.has_value()) {
      device = t.device();
    } else if (t.device() != *device && disagrees == nullptr) {
      disagrees = &t;
    }
  }
  if (scope.has_value()) return *scope;
  if (disagrees != nullptr && !op.multi_device) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inputs are on different devices (", device->str(), " and ", disagrees->device().str(),
        "); copy one explicitly with .to(device), or run the op in a DeviceScope"));
  }
  return device.value_or(variable.value_or(Device::cpu()));
}

std::optional<Device> RequiredInputDevice(const OpDef& op, const HostInputs& host_inputs, int i,
                                          DType dtype, Device device) {
  if (host_inputs.contains(i)) return Device::cpu();
  if (op.placement_attr >= 0 || op.reads_only_input_shapes || op.multi_device) return std::nullopt;
  if (dtype == kVariant) return std::nullopt;  // a host object (TensorList)
  return device;
}

std::string InputName(const OpCall& call, int i) {
  int flat = 0;
  for (const ArgDef& arg : call.op->inputs) {
    const int64_t length = arg.is_list() ? std::max<int64_t>(ArgLength(arg, call.attrs), 0) : 1;
    if (i < flat + length) {
      return arg.is_list() ? absl::StrCat(arg.name, "[", i - flat, "]") : arg.name;
    }
    flat += static_cast<int>(length);
  }
  return absl::StrCat("input ", i);
}

}  // namespace duet
