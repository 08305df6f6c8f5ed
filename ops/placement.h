// Placement: on which device an op call runs, and where each of its inputs must be. Shared by
// eager execution (which copies inputs there) and graph building (which records the device on
// the node; the session copies at device boundaries).
//
// Note [Placement]
// In order of precedence, a call runs:
//  1. on the host (cpu:0), for ops that compute host values or call host code
//     (OpDef::runs_on_host);
//  2. on the device its placement attr names (DuetCopyToDevice);
//  3. where the variable is, for ops that take a variable handle (state lives on one device);
//  4. on the innermost DeviceScope's device;
//  5. where its data inputs are. They must agree; a host scalar (or an empty host tensor) goes
//     along with tensors on another device (as in PyTorch), anything else on a second device is
//     an error naming both;
//  6. on the host when it has no data inputs.
// Host inputs (ArgDef::host_memory: shapes, axes, seeds) are always read on the host and never
// decide placement. Inputs not where the call needs them are copied with DuetCopyToDevice, so
// the copies are ops: recorded on tapes and differentiable. A node's outputs live on its device,
// and a kernel never reads another device's memory (Note [Device checks] in
// kernels/kernel_registry.h). Virtual CPU devices (cpu:1, ...) are devices like a GPU here: only
// cpu:0 is the host.
//
// Note [Calls across devices]
// The ops that call functions (PartitionedCall, StatefulPartitionedCall, If, While; OpDef::
// multi_device) are the exception to "inputs are copied to the op's device": each argument of the
// function is a Placeholder placed where that argument lives (a traced argument's device is part
// of its signature, a captured value's is its node's), so the op hands every data input on where
// it is, and the function's plan copies an argument only if it arrives elsewhere. Its variables
// may live on several devices (a model on cpu:1, an optimizer's step counter on cpu:0). The op's
// own device is where it delivers its outputs: its kernel copies each result made elsewhere there,
// so that a node's outputs live on its device in every graph. It is placed by rules 4, 5 (without
// the agreement check) and 6; rule 3 does not apply. The gradient of such a call returns each
// input's gradient on that input's device, as the copy op's gradient does.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "ops/op_call.h"

namespace duet {

// Which inputs of a call (flattened, as in OpCall::inputs) are host inputs of its op: a bit per
// input, in one inline word for calls of up to 64 inputs and more words beyond (ConcatV2's axis
// follows its N values).
class HostInputs {
 public:
  explicit HostInputs(const OpCall& call);
  bool contains(int i) const {
    const size_t word = static_cast<size_t>(i) / 64;
    return word < words_.size() && (words_[word] >> (i % 64) & 1);
  }

 private:
  absl::InlinedVector<uint64_t, 1> words_;  // empty when the op has no host input
};

// Where `call` runs (Note [Placement]), given its HostInputs; `scope` is the innermost
// DeviceScope's device, if any. InvalidArgument when its data inputs are on different devices
// and nothing else decides.
absl::StatusOr<Device> PlaceCall(const OpCall& call, const HostInputs& host_inputs,
                                 std::optional<Device> scope);

// The device input i (of dtype `dtype`) of an `op` call must be on when the call runs on
// `device`, or nullopt when it may be anywhere: inputs whose elements the kernel never reads
// (copies, shape readers, TensorLists) and the data inputs of multi-device ops (Note [Calls across
// devices]). Host inputs must be on the host, variable handles and data on `device`.
std::optional<Device> RequiredInputDevice(const OpDef& op, const HostInputs& host_inputs, int i,
                                          DType dtype, Device device);

// The name of input i of `call` ("x", "args[3]"), for messages.
std::string InputName(const OpCall& call, int i);

}  // namespace duet
