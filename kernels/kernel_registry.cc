#include "kernels/kernel_registry.h"

#include <array>
#include <atomic>
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
  KernelContext ctx(call, outputs, device);
  return kernel->fn(ctx);
}

}  // namespace duet
