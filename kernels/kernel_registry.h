// Kernels: the code that runs an op on one device for one dtype, and their registry.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/thread_pool.h"
#include "ops/op_call.h"
#include "ops/placement.h"
#include "ops/shape_context.h"

namespace duet {

// What a kernel gets: the call (inputs, attrs) and its outputs, already allocated with the
// shapes the shape function inferred (unless the kernel allocates its own, see KernelDef).
class KernelContext {
 public:
  // Bit i of `scratch_inputs`: input i is the caller's to lose (see may_overwrite_input).
  KernelContext(const OpCall& call, OutputList& outputs, Device device, uint32_t scratch_inputs = 0)
      : call_(call), outputs_(outputs), device_(device), scratch_inputs_(scratch_inputs) {}

  const OpCall& call() const { return call_; }
  int num_inputs() const { return static_cast<int>(call_.inputs.size()); }
  const Tensor& input(int i) const { return call_.inputs[i]; }
  template <typename T>
  const T& attr(const AttrKey<T>& key) const {
    return call_.attr(key);
  }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  Tensor& output(int i) { return outputs_[i]; }
  Device device() const { return device_; }
  ThreadPool& pool() const { return ThreadPool::Intra(); }
  // Whether nothing reads input i after this kernel, so the kernel may use its buffer as scratch.
  // Only a static plan says so, for arena values this step reads last (Note [Scratch inputs] in
  // graph/plan.cc); eager callers keep their tensors, so eagerly it is always false.
  bool may_overwrite_input(int i) const { return i < 32 && (scratch_inputs_ >> i & 1) != 0; }

 private:
  const OpCall& call_;
  OutputList& outputs_;
  Device device_;
  uint32_t scratch_inputs_;
  KernelMemoryScope running_;  // Note [Host reads of device memory] in core/device.cc
};

using KernelFn = absl::Status (*)(KernelContext& ctx);

struct KernelDef {
  KernelFn fn = nullptr;
  // The kernel sets its outputs itself (views such as Reshape, or data-dependent allocation);
  // the dispatcher then passes undefined outputs instead of allocating them.
  bool allocates_outputs = false;
  // Output 0 may be written over input `in_place_input` (same shape and dtype), which the kernel
  // then finds already holding that input's value: a static plan gives both one buffer when the
  // step reads that input last (Note [In-place outputs] in graph/plan.cc). -1: never.
  int in_place_input = -1;
};

// Kernels of one op, by device type and dispatch dtype (see DispatchDType); kResource and
// kVariant have columns too, for the ops that pass objects on (Identity of a TensorList).
struct KernelTable {
  KernelDef kernels[kNumDeviceTypes][kNumAllDTypes];
};

// Registers a kernel for op `op_name` on `device` for each dtype in `dtypes` (for ops without a
// type attr, pass {kFloat32}). Called during static initialization, before or after the op
// itself registers; tables are assembled on first use.
void RegisterKernel(absl::string_view op_name, DeviceType device,
                    std::initializer_list<DType> dtypes, KernelDef kernel);

// Registers at static-initialization time: `static KernelRegistrar r("AddV2", ...);`.
struct KernelRegistrar {
  KernelRegistrar(absl::string_view op_name, DeviceType device, std::initializer_list<DType> dtypes,
                  KernelDef kernel) {
    RegisterKernel(op_name, device, dtypes, kernel);
  }
};

// The names kernels were registered for (Note [Checked op references] in ops/op_ref.h).
std::vector<std::string> OpsWithKernels();

// The kernel for (op, device, dtype), or nullptr. Lock-free after the op's first lookup.
const KernelDef* FindKernel(const OpDef& op, DeviceType device, DType dtype);

// NotFound naming the op, device and dtype, and listing the dtypes that do have kernels.
absl::Status NoKernelError(const OpDef& op, DeviceType device, DType dtype);

// Runs the kernel of `call` (attrs bound) on `device` into `outputs`, allocated already unless
// the kernel allocates its own: for code that runs one kernel outside the dispatchers (plan-time
// copies, variable updates). NoKernelError when there is none; the device check's error when an
// input is elsewhere (Note [Device checks]).
absl::Status RunKernel(const OpCall& call, Device device, OutputList& outputs);

// Note [Device checks]
// A kernel runs on one device and reads only that device's memory, and host inputs on the host
// (RequiredInputDevice in ops/placement.h says where each input must be). Placement and copy
// insertion are meant to guarantee it, but a mistake there must never hand a kernel another
// device's pointer: a GPU kernel given a host address faults and poisons the CUDA context, a CPU
// kernel given GPU memory crashes the process. So every launch checks, and a misplaced input is
// an InvalidArgument naming the op (in a plan, the node and the user's line), the input and both
// devices. Plans check every step (their steps' required devices are compiled once), RunKernel
// every call, and eager execution while it places a call: its placement loop compares each input
// with the device the kernel reads it on and checks each copy it makes (on the all-on-the-host
// fast path the devices are right by construction). A check is one comparison per input.
// Objects are checked where they are opened: a variable handle passes wherever it is, and the
// kernels that read or write the value behind it check that value's device themselves
// (CheckValueDevice in kernels/common/variable_update.h). Virtual devices (Note [Virtual devices]
// in core/device.cc) make the check bite on machines without a GPU.
absl::Status CheckInputDevices(const OpCall& call, Device device, const HostInputs& host_inputs);
// The device check's error for input i of `call`, found on `found` where its kernel on `device`
// needs it on `want`.
absl::Status InputDeviceError(const OpCall& call, int i, Device found, Device want, Device device);
// The other half of the check, for kernels that set their own outputs (KernelDef::
// allocates_outputs: views, calls, data-dependent shapes): every output but an object (a handle,
// a TensorList) is on the kernel's device, as a node's outputs live on its node's device.
absl::Status CheckOutputDevices(const OpCall& call, const OutputList& outputs, Device device);

// `value` on `device`: the tensor itself when it is there or holds an object (a variable handle,
// a TensorList), else a copy by DuetCopyToDevice's kernel run directly. For plans and kernels,
// which must not add nodes to whatever graph is being built.
absl::StatusOr<Tensor> CopiedTo(const Tensor& value, Device device);

namespace kernel_internal {
// Whether launches run the device check: always, except while a benchmark measuring the check's
// own cost turns it off (tools/bench/function_bench.cc, docs/benchmarks.md). Nothing else may.
bool DeviceChecksOn();
void SetDeviceChecks(bool on);
}  // namespace kernel_internal

}  // namespace duet
