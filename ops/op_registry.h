// The op registry: the single source of truth for which ops exist.
#pragma once

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "ops/op_def.h"

namespace duet {

// All registered ops, by name and by id. Ops register during static initialization
// (OpDefBuilder::Register); lookups by name are for graph import and tools, not the hot path,
// which holds OpDef pointers.
class OpRegistry {
 public:
  static OpRegistry& Global();

  // Takes ownership; fails on a duplicate name.
  absl::StatusOr<const OpDef*> Add(std::unique_ptr<OpDef> def);
  // nullptr when unknown.
  const OpDef* Find(absl::string_view name) const;
  // Every op, sorted by name.
  std::vector<const OpDef*> All() const;
  int size() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<OpDef>> ops_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, const OpDef*> by_name_ ABSL_GUARDED_BY(mu_);
};

// The op named `name`; NotFound with a clear message when it is not registered.
absl::StatusOr<const OpDef*> LookUpOp(absl::string_view name);

}  // namespace duet
