// DnnlPlan: a cached, ready-to-run sequence of oneDNN primitives, and the per-thread cache that
// holds them.
//
// Creating a oneDNN primitive costs microseconds (descriptor, implementation search, JIT lookup),
// which would dominate small eager ops. A kernel therefore describes everything its primitives
// depend on (dtype, dims, attrs) as a DnnlKey, gets this thread's plan for that key from
// CachedDnnlPlan (built once by a callback), binds its tensors and runs it:
//
//   constexpr DnnlPlanKind kSoftmaxPlan{"Softmax"};
//   const DnnlKey key = {static_cast<int64_t>(dtype), rows, cols};
//   auto build = [&](DnnlPlan& p, dnnl::memory::data_type type) {
//     const dnnl::memory::desc md({rows, cols}, type, dnnl::memory::format_tag::ab);
//     p.AddBuffer(DNNL_ARG_SRC, md, DnnlUse::kRead);
//     p.AddBuffer(DNNL_ARG_DST, md, DnnlUse::kWrite);
//     p.AddStep(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)}, ...});
//   };
//   DUET_ASSIGN_OR_RETURN(DnnlPlan * plan, CachedDnnlPlan(kSoftmaxPlan, key, dtype, build));
//   plan->Bind(DNNL_ARG_SRC, in);
//   plan->Bind(DNNL_ARG_DST, out);
//   return plan->Run("Softmax float32");
//
// A plan for float16/bfloat16 data computes in float32 where oneDNN has no 16-bit primitive on
// this CPU (Note [Reduced precision without oneDNN support] in dnnl_plan.cc): the builder then gets
// f32 as `type`, and Run converts the 16-bit data bound to its buffers.
//
// Plans are per thread: binding pointers mutates the plan's memory objects, so sharing one across
// threads would need a lock on every call. Each thread's cache is dropped whole when it grows past
// kMaxPlansPerThread (a workload with ever-changing shapes must not grow memory without bound).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// Everything a plan depends on, as integers (dtype, dims, attrs), in a fixed order per kind.
using DnnlKey = absl::InlinedVector<int64_t, 24>;

// Names one kind of plan (usually one kernel). Define each as a namespace-scope constant: its
// address separates the kinds' keys in the cache, its name appears in error messages.
struct DnnlPlanKind {
  const char* name;
};

// How a plan's steps use a caller's buffer: a plan that computes 16-bit data in float32 converts
// what its steps read before they run and what they write after.
enum class DnnlUse { kRead, kWrite, kReadWrite };

class DnnlPlan {
 public:
  // Declares slot `slot` (use the DNNL_ARG_* id it feeds) as a caller-supplied buffer with layout
  // `md`, which the steps read and/or write as `use` says; the caller points it at data with Bind
  // before each Run.
  void AddBuffer(int slot, const dnnl::memory::desc& md, DnnlUse use);
  // The memory of a buffer slot declared with AddBuffer, for AddStep's argument maps.
  const dnnl::memory& buffer(int slot) const;
  // A memory owned by the plan (e.g. weights reordered into the layout a primitive prefers).
  dnnl::memory AddScratch(const dnnl::memory::desc& md);
  // Appends a primitive that Run executes, in order, with `args`.
  void AddStep(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args);
  // Appends a reorder of read-only buffer `slot` into a memory of layout `wanted`, and returns
  // that memory for the steps added next. The plan keeps reordered copies of the tensors bound to
  // `slot` with Bind(slot, tensor) and skips the reorder when one comes again (Note [Cached
  // weight reorders] in dnnl_plan.cc). At most one per plan.
  dnnl::memory AddCachedReorder(int slot, const dnnl::memory::desc& wanted);

  // Points buffer slot `slot` at `data`, dense elements of `dtype`. oneDNN takes non-const
  // pointers; buffers the steps only read are only read. float16 or bfloat16 data for a float32
  // buffer is staged (Note [Reduced precision without oneDNN support]): Run converts it to float32
  // in a per-thread buffer and back. Any other dtype that is not the buffer's fails Run.
  void Bind(int slot, const void* data, DType dtype);
  // Points buffer slot `slot` at the data of `t` (contiguous), as above; a cached reorder of the
  // slot may reuse its copy of `t`.
  void Bind(int slot, const Tensor& t);
  // Executes every step on this thread's stream and waits; oneDNN errors become a status naming
  // `what`.
  absl::Status Run(absl::string_view what);

 private:
  struct Buffer {
    int slot;
    dnnl::memory memory;
    DnnlUse use;
    dnnl::memory::data_type type;  // the layout's (reading it back from `memory` copies the desc)
    int64_t elements;              // in the layout, for staging
    DType bound_dtype = kFloat32;  // of the data the last Bind gave
    // That data when it is staged (16-bit data for a float32 layout), else null.
    void* staged = nullptr;
    bool dtype_mismatch = false;  // it is neither the layout's dtype nor one that can be staged
  };

  // What AddCachedReorder added: its step, and the copies it keeps.
  struct CachedReorder {
    struct Copy {
      std::shared_ptr<TensorImpl> tensor;
      dnnl::memory reordered;
    };
    size_t step = 0;
    int slot = 0;
    // What the later steps read: a memory over data it does not own (set_data_handle on a memory
    // that owns its data frees it), pointed at `scratch` or at a copy.
    dnnl::memory to;
    dnnl::memory scratch;                 // for tensors without a copy
    std::shared_ptr<TensorImpl> bound;    // bound for this run, when it may be cached
    std::vector<Copy> copies;             // at most kMaxCopies
    std::vector<const TensorImpl*> seen;  // bound once: a hint, never trusted for values
    int64_t hits = 0, stores = 0;
    bool disabled = false;

    // Points `to` at the copy of `bound` (true: skip the reorder), or at where the reorder
    // should write (false).
    bool Reuse();
  };

  absl::Status RunSteps(absl::string_view what);

  std::vector<Buffer> buffers_;  // few slots: a linear search is fastest
  std::vector<std::pair<dnnl::primitive, std::unordered_map<int, dnnl::memory>>> steps_;
  std::unique_ptr<CachedReorder> reorder_;
};

// The most plans one thread keeps before its cache is cleared.
inline constexpr int kMaxPlansPerThread = 4096;

// Builds a plan's buffers and steps with oneDNN data type `type` for the data.
using DnnlPlanBuilder = absl::FunctionRef<void(DnnlPlan& plan, dnnl::memory::data_type type)>;

// This thread's plan of `kind` for `key`, built with `build` on first use, for data of `dtype`
// (`key` must tell the dtypes apart). `build` gets `dtype`'s oneDNN type, or f32 for float16 or
// bfloat16 data that oneDNN cannot compute on this CPU (Note [Reduced precision without oneDNN
// support]); either way the plan is cached, so the decision is made once per plan. oneDNN
// exceptions thrown by `build` (e.g. no implementation for float32 either) become the returned
// status and nothing is cached. The pointer is valid until the next CachedDnnlPlan call on this
// thread.
absl::StatusOr<DnnlPlan*> CachedDnnlPlan(const DnnlPlanKind& kind, const DnnlKey& key, DType dtype,
                                         DnnlPlanBuilder build);

// Testing: while set, plans for float16 and bfloat16 data compute in float32 even where oneDNN has
// the 16-bit primitive, so tests run that path on every CPU. Process-wide; plans built while it is
// set are cached apart from the others.
void ForceDnnlFloat32ForTesting(bool force);

}  // namespace duet
