// OpRef: a reference to an op by name from code outside the op's declaration (graph passes
// matching nodes, graph mode making Const and Placeholder nodes), checked against the registry.
#pragma once

#include <atomic>
#include <vector>

#include "ops/op_def.h"

namespace duet {

// Note [Checked op references]
// Kernels, gradients and rewrite rules name the ops they serve, and they register during static
// initialization, when the op they name may not exist yet; so they cannot hold the OpDef* itself
// and bind by name on first use. A misspelled name would bind to nothing and fail silently, so
// every such name is listed where a test can see it: KernelRegistrar and GradientRegistrar record
// theirs (OpsWithKernels, OpsWithGradientDeclarations), and other code names ops through
// OpRef objects, which join OpRef::All() when constructed. tests/ops/registry_test.cc fails
// on any of these names that no op has.
class OpRef {
 public:
  // Lists itself in All() until destroyed; meant for static storage.
  explicit OpRef(const char* name);
  ~OpRef();
  OpRef(const OpRef&) = delete;
  OpRef& operator=(const OpRef&) = delete;

  const char* name() const { return name_; }
  // The op, looked up once. Throws Error (Internal) when no op has the name.
  const OpDef& def() const;
  // True when `op` is this op.
  bool is(const OpDef& op) const { return &op == &def(); }

  // Every OpRef constructed so far, for the registration test.
  static std::vector<const OpRef*> All();

 private:
  const char* name_;
  mutable std::atomic<const OpDef*> def_{nullptr};
};

}  // namespace duet
