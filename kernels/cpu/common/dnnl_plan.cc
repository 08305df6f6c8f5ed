#include "kernels/cpu/common/dnnl_plan.h"

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/common/dnnl_engine.h"

namespace duet {

void DnnlPlan::AddBuffer(int slot, const dnnl::memory::desc& md) {
  buffers_.emplace_back(slot, dnnl::memory(md, DnnlEngine(), DNNL_MEMORY_NONE));
}

const dnnl::memory& DnnlPlan::buffer(int slot) const {
  for (const auto& [s, memory] : buffers_) {
    if (s == slot) return memory;
  }
  throw dnnl::error(dnnl_invalid_arguments, "DnnlPlan: buffer slot was never declared");
}

dnnl::memory DnnlPlan::AddScratch(const dnnl::memory::desc& md) {
  return dnnl::memory(md, DnnlEngine());
}

void DnnlPlan::AddStep(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args) {
  steps_.emplace_back(std::move(primitive), std::move(args));
}

void DnnlPlan::Bind(int slot, const void* data) {
  for (auto& [s, memory] : buffers_) {
    if (s == slot) memory.set_data_handle(const_cast<void*>(data));
  }
}

absl::Status DnnlPlan::Run(absl::string_view what) {
  try {
    dnnl::stream& stream = DnnlStream();
    for (const auto& [primitive, args] : steps_) primitive.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorToStatus(e, what);
  }
  return absl::OkStatus();
}

absl::StatusOr<DnnlPlan*> CachedDnnlPlan(const DnnlPlanKind& kind, const DnnlKey& key,
                                         absl::FunctionRef<void(DnnlPlan&)> build) {
  // Keyed by the kind's address and the key; one map for all kinds keeps the lookup a single hash.
  using Map =
      absl::flat_hash_map<std::pair<const DnnlPlanKind*, DnnlKey>, std::unique_ptr<DnnlPlan>>;
  thread_local Map plans;
  auto lookup = std::make_pair(&kind, key);
  if (auto it = plans.find(lookup); it != plans.end()) return it->second.get();
  auto plan = std::make_unique<DnnlPlan>();
  try {
    build(*plan);
  } catch (const dnnl::error& e) {
    return DnnlErrorToStatus(e, absl::StrCat(kind.name, " primitive"));
  }
  if (plans.size() >= kMaxPlansPerThread) plans.clear();
  return plans.emplace(std::move(lookup), std::move(plan)).first->second.get();
}

}  // namespace duet
