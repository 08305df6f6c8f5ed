// DnnlPlan: a cached, ready-to-run sequence of oneDNN primitives, and the per-thread cache that
// holds them.
//
// Creating a oneDNN primitive costs microseconds (descriptor, implementation search, JIT lookup),
// which would dominate small eager ops. A kernel therefore describes everything its primitives
// depend on (dtype, dims, attrs) as a DnnlKey, gets this thread's plan for that key from
// CachedDnnlPlan (built once by a callback), binds its tensors' pointers and runs it:
//
//   constexpr DnnlPlanKind kSoftmaxPlan{"Softmax"};
//   auto build = [&](DnnlPlan& p) {
//     const dnnl::memory::desc md({rows, cols}, f32, dnnl::memory::format_tag::ab);
//     p.AddBuffer(DNNL_ARG_SRC, md);
//     p.AddBuffer(DNNL_ARG_DST, md);
//     p.AddStep(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)}, ...});
//   };
//   DUET_ASSIGN_OR_RETURN(DnnlPlan * plan, CachedDnnlPlan(kSoftmaxPlan, {rows, cols}, build));
//   plan->Bind(DNNL_ARG_SRC, in);
//   plan->Bind(DNNL_ARG_DST, out);
//   return plan->Run("Softmax float32");
//
// Plans are per thread: binding pointers mutates the plan's memory objects, so sharing one across
// threads would need a lock on every call. Each thread's cache is dropped whole when it grows past
// kMaxPlansPerThread (a workload with ever-changing shapes must not grow memory without bound).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Everything a plan depends on, as integers (dtype, dims, attrs), in a fixed order per kind.
using DnnlKey = absl::InlinedVector<int64_t, 24>;

// Names one kind of plan (usually one kernel). Define each as a namespace-scope constant: its
// address separates the kinds' keys in the cache, its name appears in error messages.
struct DnnlPlanKind {
  const char* name;
};

class DnnlPlan {
 public:
  // Declares slot `slot` (use the DNNL_ARG_* id it feeds) as a caller-supplied buffer with layout
  // `md`; the caller points it at tensor data with Bind before each Run.
  void AddBuffer(int slot, const dnnl::memory::desc& md);
  // The memory of a buffer slot declared with AddBuffer, for AddStep's argument maps.
  const dnnl::memory& buffer(int slot) const;
  // A memory owned by the plan (e.g. weights reordered into the layout a primitive prefers).
  dnnl::memory AddScratch(const dnnl::memory::desc& md);
  // Appends a primitive that Run executes, in order, with `args`.
  void AddStep(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args);

  // Points buffer slot `slot` at `data`. oneDNN takes non-const pointers; inputs are only read.
  void Bind(int slot, const void* data);
  // Executes every step on this thread's stream and waits; oneDNN errors become a status naming
  // `what`.
  absl::Status Run(absl::string_view what);

 private:
  std::vector<std::pair<int, dnnl::memory>> buffers_;  // few slots: a linear search is fastest
  std::vector<std::pair<dnnl::primitive, std::unordered_map<int, dnnl::memory>>> steps_;
};

// The most plans one thread keeps before its cache is cleared.
inline constexpr int kMaxPlansPerThread = 4096;

// This thread's plan of `kind` for `key`, built with `build` on first use. oneDNN exceptions
// thrown by `build` (e.g. no implementation for a dtype on this CPU) become the returned status
// and nothing is cached. The pointer is valid until the next CachedDnnlPlan call on this thread.
absl::StatusOr<DnnlPlan*> CachedDnnlPlan(const DnnlPlanKind& kind, const DnnlKey& key,
                                         absl::FunctionRef<void(DnnlPlan&)> build);

}  // namespace duet
