#include "ops/execution_context.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace duet {
namespace {
std::atomic<ExecutionContext*> default_context{nullptr};
thread_local ExecutionContext* current_context = nullptr;
}  // namespace

ExecutionContext& ExecutionContext::Current() {
  if (current_context != nullptr) return *current_context;
  ExecutionContext* fallback = default_context.load(std::memory_order_acquire);
  if (fallback == nullptr) {
    std::fprintf(stderr, "duet: no eager context is linked in (depend on //eager or //:duet)\n");
    std::abort();
  }
  return *fallback;
}

void ExecutionContext::SetDefault(ExecutionContext* context) {
  default_context.store(context, std::memory_order_release);
}

ExecutionContext::Scope::Scope(ExecutionContext* context) : previous_(current_context) {
  current_context = context;
}

ExecutionContext::Scope::~Scope() { current_context = previous_; }

absl::StatusOr<std::vector<Tensor>> ExecutionContext::SymbolicGradients(
    const std::vector<Tensor>&, const std::vector<Tensor>&, const std::vector<Tensor>&,
    const std::vector<Tensor>&) {
  return absl::UnimplementedError("symbolic gradients need a graph context");
}

bool executing_eagerly() { return ExecutionContext::Current().executing_eagerly(); }

}  // namespace duet
