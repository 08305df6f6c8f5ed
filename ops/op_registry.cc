#include "ops/op_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace duet {

OpRegistry& OpRegistry::Global() {
  static auto* registry = new OpRegistry;
  return *registry;
}

absl::StatusOr<const OpDef*> OpRegistry::Add(std::unique_ptr<OpDef> def) {
  absl::MutexLock lock(&mu_);
  if (by_name_.contains(def->name)) {
    return absl::AlreadyExistsError(absl::StrCat("op ", def->name, " is registered twice"));
  }
  def->id = static_cast<int>(ops_.size());
  const OpDef* op = def.get();
  by_name_[def->name] = op;
  ops_.push_back(std::move(def));
  return op;
}

const OpDef* OpRegistry::Find(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<const OpDef*> OpRegistry::All() const {
  absl::MutexLock lock(&mu_);
  std::vector<const OpDef*> all;
  for (const auto& op : ops_) all.push_back(op.get());
  std::sort(all.begin(), all.end(),
            [](const OpDef* a, const OpDef* b) { return a->name < b->name; });
  return all;
}

int OpRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(ops_.size());
}

absl::StatusOr<const OpDef*> LookUpOp(absl::string_view name) {
  const OpDef* op = OpRegistry::Global().Find(name);
  if (op == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("unknown op '", name, "': no op of that name is registered in duet"));
  }
  return op;
}

}  // namespace duet
