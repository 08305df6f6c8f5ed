#include "kernels/kernel_registry.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

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
  const KernelTable* table = op.kernels.load(std::memory_order_acquire);
  if (table == nullptr) {
    PendingKernels& p = Pending();
    absl::MutexLock lock(&p.mu);
    table = op.kernels.load(std::memory_order_acquire);
    if (table == nullptr) {
      auto* built = new KernelTable;  // lives as long as the op
      auto it = p.by_op.find(op.name);
      if (it != p.by_op.end()) {
        for (const Registration& r : it->second) {
          built->kernels[static_cast<int>(r.device)][static_cast<int>(r.dtype)] = r.kernel;
        }
      }
      op.kernels.store(built, std::memory_order_release);
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
  KernelContext ctx(call, outputs, device);
  return kernel->fn(ctx);
}

}  // namespace duet
