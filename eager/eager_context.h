// EagerContext: runs each op call at once and returns concrete tensors.
#pragma once

#include "ops/execution_context.h"

namespace duet {

// The default execution context. Execute binds attrs, runs the shape function, looks the kernel
// up by (op id, device, dtype) in a flat table, allocates outputs from the pooled allocator and
// runs the kernel: no name lookups, no locks, no allocation beyond the outputs.
class EagerContext final : public ExecutionContext {
 public:
  static EagerContext& Get();

  absl::Status Execute(OpCall& call, OutputList& outputs) override;
  bool executing_eagerly() const override { return true; }
};

}  // namespace duet
