#include "kernels/cpu/common/dnnl_plan.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/half_convert.h"
#include "oneapi/dnnl/dnnl_debug.h"

namespace duet {
namespace {

// Note [Reduced precision without oneDNN support]: oneDNN 2.6 has bfloat16 primitives only on
// CPUs with AVX-512 (avx512_core; avx512_bf16 computes them natively), and float16 ones only with
// AVX512-FP16. Elsewhere (AVX2-only CPUs) creating a bfloat16 matmul, convolution, pooling, batch
// norm or softmax primitive descriptor fails with dnnl_unimplemented. A program must not fail
// because of the CPU model, so CachedDnnlPlan builds a plan for 16-bit data whose build fails that
// way again with f32 layouts and primitives, and Bind stages the 16-bit data bound to it: Run
// converts what the steps read to float32 (exactly) in a per-thread buffer, runs the float32
// primitives, and rounds what they wrote back to the 16-bit type (to nearest even, by
// half_convert.h). The result is the float32 computation rounded once, within the type's rounding
// of the float32 result (the native primitives accumulate in float32 as well). Where the CPU has
// the primitive the native plan runs, with no conversions. The decision is cached with the plan
// (per thread, kind and key): trying the native primitive costs one failed descriptor creation
// when a plan is built, never a call. Every oneDNN-backed kernel goes through CachedDnnlPlan and
// binds its tensors with their dtypes, so all of them fall back alike.
//
// ONEDNN_MAX_CPU_ISA=AVX2 makes an AVX-512 machine take this path (tools/dev.sh test runs the nn
// tests once more with it), and ForceDnnlFloat32ForTesting takes it on any machine
// (tests/ops/nn/reduced_precision_fallback_test.cc compares it with float32 rounded once).

std::atomic<bool> force_float32{false};

bool IsHalf(DType dtype) { return dtype == kFloat16 || dtype == kBFloat16; }

// Conversions split across the intra-op pool from this many elements (about 10 us each).
constexpr int64_t kMinConvertChunk = 32 * 1024;

// to[i] = float(from[i]) for n 16-bit floats of `dtype`, exactly.
void Widen(const void* from, DType dtype, float* to, int64_t n) {
  ThreadPool::Intra().ParallelFor(n, kMinConvertChunk, [&](int64_t begin, int64_t end) {
    if (dtype == kBFloat16) {
      BFloat16ToFloat(static_cast<const bfloat16*>(from) + begin, to + begin, end - begin);
    } else {
      HalfToFloat(static_cast<const float16*>(from) + begin, to + begin, end - begin);
    }
  });
}

// to[i] = from[i] rounded to the 16-bit `dtype` (to nearest even).
void Narrow(const float* from, DType dtype, void* to, int64_t n) {
  ThreadPool::Intra().ParallelFor(n, kMinConvertChunk, [&](int64_t begin, int64_t end) {
    if (dtype == kBFloat16) {
      FloatToBFloat16(from + begin, static_cast<bfloat16*>(to) + begin, end - begin);
    } else {
      FloatToHalf(from + begin, static_cast<float16*>(to) + begin, end - begin);
    }
  });
}

// This thread's float32 staging memory for `n` values, 64-byte aligned (as oneDNN allocates its
// own): it only grows (a workload that falls back repeats its shapes), like the other per-thread
// kernel buffers.
float* StagingBuffer(int64_t n) {
  constexpr int64_t kAlign = 64 / sizeof(float);
  thread_local std::vector<float> buffer;
  if (static_cast<int64_t>(buffer.size()) < n + kAlign) buffer.resize(n + kAlign);
  const auto misaligned = reinterpret_cast<uintptr_t>(buffer.data()) / sizeof(float) % kAlign;
  return buffer.data() + (kAlign - misaligned) % kAlign;
}

// Builds `plan` with `type`; a oneDNN exception becomes a status naming `what`.
absl::Status Build(DnnlPlan& plan, DnnlPlanBuilder build, dnnl::memory::data_type type,
                   absl::string_view what) {
  try {
    build(plan, type);
  } catch (const dnnl::error& e) {
    return DnnlErrorToStatus(e, what);
  }
  return absl::OkStatus();
}

}  // namespace

void DnnlPlan::AddBuffer(int slot, const dnnl::memory::desc& md, DnnlUse use) {
  const auto type = md.data_type();
  const int64_t elements = static_cast<int64_t>(md.get_size() / dnnl::memory::data_type_size(type));
  buffers_.push_back({slot, dnnl::memory(md, DnnlEngine(), DNNL_MEMORY_NONE), use, type, elements});
}

const dnnl::memory& DnnlPlan::buffer(int slot) const {
  for (const Buffer& b : buffers_) {
    if (b.slot == slot) return b.memory;
  }
  throw dnnl::error(dnnl_invalid_arguments, "DnnlPlan: buffer slot was never declared");
}

dnnl::memory DnnlPlan::AddScratch(const dnnl::memory::desc& md) {
  return dnnl::memory(md, DnnlEngine());
}

void DnnlPlan::AddStep(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args) {
  steps_.emplace_back(std::move(primitive), std::move(args));
}

// Note [Cached weight reorders]
// oneDNN's convolutions run fastest on weights in a blocked layout of its choosing, so a plan
// reorders the user's weights before each convolution: for a frozen ResNet-50 at batch 1 that was
// 15 of 24 ms per run, spent reordering the same constants every time. A cached reorder keeps
// the reordered copy of a weights tensor and skips the reorder when the same tensor is bound
// again. That is sound because a tensor's values do not change while anyone but a variable holds
// it: kernels write only what they allocated, or arena views in a static plan (graph/plan.cc),
// and a variable updates its value in place only as the value's sole holder (Note [Variables copy
// on write]). So a copy holds a reference to its tensor, and only tensors that own their memory
// (not views, which may be arena slots) are cached. Weights that change every call (a training
// step's) would fill the cache with dead copies and, held, make the variable copy on write; so a
// tensor is copied only the second time it is bound (the first time only its address is noted, a
// hint never trusted for values), and a plan whose stores keep outnumbering its hits stops.

constexpr size_t kMaxCopies = 16;  // identical layers share a plan: ResNet-50 has up to 5
constexpr size_t kMaxSeen = 64;

bool DnnlPlan::CachedReorder::Reuse() {
  to.set_data_handle(scratch.get_data_handle());
  if (bound == nullptr || disabled) return false;
  for (const Copy& copy : copies) {
    if (copy.tensor == bound) {
      to.set_data_handle(copy.reordered.get_data_handle());
      ++hits;
      return true;
    }
  }
  if (std::find(seen.begin(), seen.end(), bound.get()) == seen.end()) {
    if (seen.size() >= kMaxSeen) seen.clear();
    seen.push_back(bound.get());
    return false;
  }
  if (++stores > 2 * hits + static_cast<int64_t>(kMaxCopies)) {
    disabled = true;
    copies.clear();
    return false;
  }
  if (copies.size() >= kMaxCopies) copies.clear();
  copies.push_back({bound, dnnl::memory(to.get_desc(), DnnlEngine())});
  to.set_data_handle(copies.back().reordered.get_data_handle());
  return false;
}

dnnl::memory DnnlPlan::AddCachedReorder(int slot, const dnnl::memory::desc& wanted) {
  const dnnl::memory from = buffer(slot);
  reorder_ = std::make_unique<CachedReorder>();
  reorder_->step = steps_.size();
  reorder_->slot = slot;
  reorder_->scratch = AddScratch(wanted);
  reorder_->to = dnnl::memory(wanted, DnnlEngine(), reorder_->scratch.get_data_handle());
  AddStep(dnnl::reorder(from, reorder_->to), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, reorder_->to}});
  return reorder_->to;
}

void DnnlPlan::Bind(int slot, const Tensor& t) {
  Bind(slot, t.raw_data(), t.dtype());
  const std::shared_ptr<TensorImpl>& impl = t.impl();
  if (reorder_ != nullptr && reorder_->slot == slot && impl->allocator != nullptr &&
      impl->base == nullptr) {
    reorder_->bound = impl;
  }
}

void DnnlPlan::Bind(int slot, const void* data, DType dtype) {
  if (reorder_ != nullptr && reorder_->slot == slot) reorder_->bound = nullptr;
  for (Buffer& b : buffers_) {
    if (b.slot != slot) continue;
    b.staged = nullptr;
    b.bound_dtype = dtype;
    b.dtype_mismatch = false;
    if (ToDnnlType(dtype) == b.type) {
      b.memory.set_data_handle(const_cast<void*>(data));
    } else if (b.type == dnnl::memory::data_type::f32 && IsHalf(dtype)) {
      b.staged = const_cast<void*>(data);
    } else {
      b.dtype_mismatch = true;
    }
  }
}

absl::Status DnnlPlan::Run(absl::string_view what) {
  // Staged buffers get 64-byte aligned pieces of this thread's staging buffer.
  auto aligned = [](int64_t n) { return (n + 15) / 16 * 16; };
  int64_t staging = 0;
  for (const Buffer& b : buffers_) {
    if (b.dtype_mismatch) {
      return absl::InternalError(absl::StrCat("oneDNN could not run the ", what, ": its ",
                                              dnnl_dt2str(dnnl::memory::convert_to_c(b.type)),
                                              " buffer (argument ", b.slot, ") was bound to ",
                                              DTypeName(b.bound_dtype), " data"));
    }
    if (b.staged != nullptr) staging += aligned(b.elements);
  }
  if (staging == 0) return RunSteps(what);
  float* next = StagingBuffer(staging);
  for (Buffer& b : buffers_) {
    if (b.staged == nullptr) continue;
    b.memory.set_data_handle(next);
    if (b.use != DnnlUse::kWrite) Widen(b.staged, b.bound_dtype, next, b.elements);
    next += aligned(b.elements);
  }
  DUET_RETURN_IF_ERROR(RunSteps(what));
  for (Buffer& b : buffers_) {
    if (b.staged == nullptr || b.use == DnnlUse::kRead) continue;
    Narrow(static_cast<const float*>(b.memory.get_data_handle()), b.bound_dtype, b.staged,
           b.elements);
  }
  return absl::OkStatus();
}

absl::Status DnnlPlan::RunSteps(absl::string_view what) {
  try {
    dnnl::stream& stream = DnnlStream();
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (reorder_ != nullptr && i == reorder_->step && reorder_->Reuse()) continue;
      steps_[i].first.execute(stream, steps_[i].second);
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    if (reorder_ != nullptr) {  // a copy may be half written
      reorder_->bound = nullptr;
      reorder_->copies.clear();
    }
    return DnnlErrorToStatus(e, what);
  }
  if (reorder_ != nullptr) reorder_->bound = nullptr;  // holding it would make a variable copy
  return absl::OkStatus();
}

absl::StatusOr<DnnlPlan*> CachedDnnlPlan(const DnnlPlanKind& kind, const DnnlKey& key, DType dtype,
                                         DnnlPlanBuilder build) {
  // Keyed by the kind's address, whether float32 is forced and the key; one map for all kinds
  // keeps the lookup a single hash.
  using Map = absl::flat_hash_map<std::tuple<const DnnlPlanKind*, bool, DnnlKey>,
                                  std::unique_ptr<DnnlPlan>>;
  thread_local Map plans;
  const bool forced = IsHalf(dtype) && force_float32.load(std::memory_order_relaxed);
  auto lookup = std::make_tuple(&kind, forced, key);
  if (auto it = plans.find(lookup); it != plans.end()) return it->second.get();
  const std::optional<dnnl::memory::data_type> type = ToDnnlType(dtype);
  if (!type) {
    return absl::InternalError(
        absl::StrCat("the ", kind.name, " primitive has no oneDNN type for ", DTypeName(dtype)));
  }
  auto plan = std::make_unique<DnnlPlan>();
  // Note [Reduced precision without oneDNN support]: 16-bit data that oneDNN cannot compute on
  // this CPU is computed in float32.
  bool in_float32 = forced;
  if (!in_float32) {
    const absl::Status native = Build(*plan, build, *type, absl::StrCat(kind.name, " primitive"));
    in_float32 = IsHalf(dtype) && absl::IsUnimplemented(native);
    if (!in_float32) DUET_RETURN_IF_ERROR(native);
  }
  if (in_float32) {
    plan = std::make_unique<DnnlPlan>();
    DUET_RETURN_IF_ERROR(
        Build(*plan, build, dnnl::memory::data_type::f32,
              absl::StrCat(kind.name, " primitive (in float32 for ", DTypeName(dtype), " data)")));
  }
  if (plans.size() >= kMaxPlansPerThread) plans.clear();
  return plans.emplace(std::move(lookup), std::move(plan)).first->second.get();
}

void ForceDnnlFloat32ForTesting(bool force) {
  force_float32.store(force, std::memory_order_relaxed);
}

}  // namespace duet
