// ExecutionContext: where op calls go. Eager mode runs them; graph mode records them as nodes.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/op_call.h"

namespace duet {

// The thread's current context receives every op call. EagerContext (eager/) is the default;
// GraphContext (graph/) is current inside a GraphScope or while tracing.
class ExecutionContext {
 public:
  virtual ~ExecutionContext() = default;
  // Runs or records `call`, filling `outputs`. Errors are returned unannotated; RunOp annotates.
  virtual absl::Status Execute(OpCall& call, OutputList& outputs) = 0;
  virtual bool executing_eagerly() const = 0;
  // Gradients of the sum of `targets` with respect to `sources` (variables by their handles), for
  // a GradientTape used while a graph is built (duet::function's training steps): graph contexts
  // add the gradient ops, differentiating only the nodes that made `recorded` (an output of each
  // op the tape recorded). Unimplemented here.
  virtual absl::StatusOr<std::vector<Tensor>> SymbolicGradients(
      const std::vector<Tensor>& targets, const std::vector<Tensor>& sources,
      const std::vector<Tensor>& output_gradients, const std::vector<Tensor>& recorded);

  // The current context of this thread.
  static ExecutionContext& Current();
  // The process-wide default (eager) context, installed by the eager layer at startup.
  static void SetDefault(ExecutionContext* context);

  // Makes `context` current on this thread for the scope's lifetime.
  class Scope {
   public:
    explicit Scope(ExecutionContext* context);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ExecutionContext* previous_;
  };
};

// True when ops run now (no graph is being built on this thread).
bool executing_eagerly();

}  // namespace duet
