// Placement: on which device an op call runs, and where each of its inputs must be. Shared by
// eager execution (which copies inputs there) and graph building (which records the device on
// the node; the session copies at device boundaries).
//
// Note [Placement]
// In order of precedence, a call runs:
//  1. on the CPU, for ops that compute host values or call host code (OpDef::runs_on_host);
//  2. on the device its placement attr names (DuetCopyToDevice);
//  3. where the variable is, for ops that take a variable handle (state lives on one device);
//  4. on the innermost DeviceScope's device;
//  5. where its data inputs are. They must agree; a CPU scalar goes along with tensors on another
//     device (as in PyTorch), anything else on a second device is an error naming both;
//  6. on the CPU when it has no data inputs.
// Host inputs (ArgDef::host_memory: shapes, axes, seeds) are always read on the CPU and never
// decide placement. Inputs not where the call needs them are copied with DuetCopyToDevice, so
// the copies are ops: recorded on tapes and differentiable.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "ops/op_call.h"

namespace duet {

// Bit i set: input i (flattened, as in OpCall::inputs) is a host input of `call`'s op.
uint64_t HostInputMask(const OpCall& call);

// Where `call` runs (Note [Placement]), given its HostInputMask; `scope` is the innermost
// DeviceScope's device, if any. InvalidArgument when its data inputs are on different devices
// and nothing else decides.
absl::StatusOr<Device> PlaceCall(const OpCall& call, uint64_t host_mask,
                                 std::optional<Device> scope);

// Whether input i is a host input, by the call's HostInputMask.
inline bool IsHostInput(uint64_t host_mask, int i) { return i < 64 && (host_mask >> i & 1); }

// The device input i of `call` must be on when the call runs on `device`.
inline Device InputDevice(uint64_t host_mask, int i, Device device) {
  return IsHostInput(host_mask, i) ? Device::cpu() : device;
}

}  // namespace duet
