#include "kernels/kernel_registry.h"

#include <array>
#include <atomic>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "ops/array/array_attrs.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

struct Registration {
  DeviceType device;
  DType dtype;
  KernelDef kernel;
};

struct PendingKernels {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::vector<Registration>> by_op ABSL_GUARDED_BY(mu);
};

PendingKernels& Pending() {
  static auto* pending = new PendingKernels;
  return *pending;
}

const char* DeviceTypeName(DeviceType d) { return d == DeviceType::kCpu ? "cpu" : "cuda"; }

// The kernel tables by op id (OpDef::id), each built on the op's first dispatch. Chunks are
// allocated once and never move, so a dispatch reads its table without a lock.
class TablesById {
 public:
  std::atomic<const KernelTable*>& Slot(int id) {
    std::atomic<Chunk*>& chunk = chunks_[id / kChunkSize];
    Chunk* c = chunk.load(std::memory_order_acquire);
    if (c == nullptr) {
      auto* fresh = new Chunk();
      if (chunk.compare_exchange_strong(c, fresh, std::memory_order_acq_rel)) {
        c = fresh;
      } else {
        delete fresh;  // another thread installed one; `c` now holds it
      }
    }
    return (*c)[id % kChunkSize];
  }

 private:
  static constexpr int kChunkSize = 256;
  using Chunk = std::array<std::atomic<const KernelTable*>, kChunkSize>;
  std::array<std::atomic<Chunk*>, 1024> chunks_{};  // room for 262144 ops
};

// Constant-initialized (all null), so dispatch pays no guard for a function-local static.
constinit TablesById tables;

}  // namespace

void RegisterKernel(absl::string_view op_name, DeviceType device,
                    std::initializer_list<DType> dtypes, KernelDef kernel) {
  PendingKernels& p = Pending();
  absl::MutexLock lock(&p.mu);
  for (DType d : dtypes) p.by_op[op_name].push_back(Registration{device, d, kernel});
}

std::vector<std::string> OpsWithKernels() {
  PendingKernels& p = Pending();
  absl::MutexLock lock(&p.mu);
  std::vector<std::string> names;
  for (const auto& [name, registrations] : p.by_op) names.push_back(name);
  return names;
}

const KernelDef* FindKernel(const OpDef& op, DeviceType device, DType dtype) {
  if (op.id < 0) return nullptr;  // an OpDef never registered has no kernels
  std::atomic<const KernelTable*>& slot = tables.Slot(op.id);
  const KernelTable* table = slot.load(std::memory_order_acquire);
  if (table == nullptr) {
    PendingKernels& p = Pending();
    absl::MutexLock lock(&p.mu);
    table = slot.load(std::memory_order_acquire);
    if (table == nullptr) {
      auto* built = new KernelTable;  // lives as long as the op
      auto it = p.by_op.find(op.name);
      if (it != p.by_op.end()) {
        for (const Registration& r : it->second) {
          built->kernels[static_cast<int>(r.device)][static_cast<int>(r.dtype)] = r.kernel;
        }
      }
      slot.store(built, std::memory_order_release);
      table = built;
    }
  }
  const KernelDef& k = table->kernels[static_cast<int>(device)][static_cast<int>(dtype)];
  return k.fn ? &k : nullptr;
}

absl::Status NoKernelError(const OpDef& op, DeviceType device, DType dtype) {
  std::vector<std::string> have;
  for (int d = 0; d < kNumDTypes; ++d) {
    if (FindKernel(op, device, static_cast<DType>(d))) {
      have.emplace_back(DTypeName(static_cast<DType>(d)));
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "no ", DeviceTypeName(device), " kernel for dtype ", DTypeName(dtype),
      have.empty() ? std::string(" (the op has no kernels on this device)")
                   : absl::StrCat(" (kernels exist for: ", absl::StrJoin(have, ", "), ")")));
}

absl::Status RunKernel(const OpCall& call, Device device, OutputList& outputs) {
  const DType dtype = DispatchDType(call);
  const KernelDef* kernel = FindKernel(*call.op, device.type(), dtype);
  if (kernel == nullptr) return NoKernelError(*call.op, device.type(), dtype);
  DUET_RETURN_IF_ERROR(CheckInputDevices(call, device, HostInputs(call)));
  KernelContext ctx(call, outputs, device);
  return kernel->fn(ctx);
}

namespace kernel_internal {
namespace {
std::atomic<bool> device_checks{true};
}  // namespace
bool DeviceChecksOn() { return device_checks.load(std::memory_order_relaxed); }
void SetDeviceChecks(bool on) { device_checks.store(on, std::memory_order_relaxed); }
}  // namespace kernel_internal

absl::Status CheckInputDevices(const OpCall& call, Device device, const HostInputs& host_inputs) {
  if (!kernel_internal::DeviceChecksOn()) return absl::OkStatus();
  for (int i = 0; i < static_cast<int>(call.inputs.size()); ++i) {
    const Tensor& input = call.inputs[i];
    if (!input.defined()) continue;
    const std::optional<Device> want =
        RequiredInputDevice(*call.op, host_inputs, i, input.dtype(), device);
    if (want.has_value() && input.device() != *want) {
      return InputDeviceError(call, i, input.device(), *want, device);
    }
  }
  return absl::OkStatus();
}

absl::Status InputDeviceError(const OpCall& call, int i, Device found, Device want, Device device) {
  const std::string input = absl::StrCat("input ", i, " ('", InputName(call, i), "')");
  const std::string where = want == device ? absl::StrCat("the kernel runs on ", device.str())
                                           : absl::StrCat("the kernel (on ", device.str(),
                                                          ") reads it on the host, ", want.str());
  return absl::InvalidArgumentError(absl::StrCat(
      input, " is on ", found.str(), ", but ", where,
      "; a kernel never reads another device's memory, and nothing copied the input to ",
      want.str(), " (a placement bug: please report it)"));
}

absl::Status CheckOutputDevices(const OpCall& call, const OutputList& outputs, Device device) {
  if (!kernel_internal::DeviceChecksOn()) return absl::OkStatus();
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& out = outputs[k];
    if (!out.defined() || IsObjectDType(out.dtype()) || out.device() == device) continue;
    return absl::InternalError(
        absl::StrCat(call.op->name, "'s kernel on ", device.str(), " made output ", k, " on ",
                     out.device().str(),
                     "; a node's outputs live on its device (a kernel bug: please report it)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> CopiedTo(const Tensor& value, Device device) {
  if (value.device() == device || IsObjectDType(value.dtype())) return value;
  static const OpDef* const copy_op = OpRegistry::Global().Find("DuetCopyToDevice");
  if (copy_op == nullptr) {
    return absl::InternalError("CopiedTo: DuetCopyToDevice is not linked in (link //ops:array)");
  }
  OpCall call(copy_op, {value}, OpSite());
  call.set(CopyToDeviceAttrs::kDevice, device.tf_name());
  DUET_RETURN_IF_ERROR(BindAttrs(call));
  OutputList outputs(1);
  DUET_ASSIGN_OR_RETURN(outputs[0], Tensor::TryEmpty(value.dtype(), value.shape(), device));
  DUET_RETURN_IF_ERROR(RunKernel(call, device, outputs));
  return outputs[0];
}

}  // namespace duet
