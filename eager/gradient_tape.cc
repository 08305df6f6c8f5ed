#include "eager/gradient_tape.h"

#include <atomic>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/resource.h"
#include "ops/array/array_ops.h"
#include "ops/execution_context.h"
#include "ops/math/add_gradients.h"
#include "ops/math/math_ops.h"

namespace duet {

// One recorded call. See Note [Tape entries keep only what the gradient needs] (ops/gradient.h).
struct TapeEntry {
  const OpDef* op = nullptr;
  const GradientDef* gradient = nullptr;
  AttrList attrs;
  absl::InlinedVector<uint64_t, 4> input_ids;   // 0: no gradient flows to this input
  absl::InlinedVector<uint64_t, 2> output_ids;  // 0: the output carries no gradient
  TensorList inputs;                            // kept inputs; the others undefined
  OutputList outputs;                           // kept outputs; the others undefined
  absl::InlinedVector<TensorMeta, 4> input_meta;
  absl::InlinedVector<TensorMeta, 2> output_meta;
};

namespace {

// Tapes of this thread, oldest first.
thread_local std::vector<TapeState*> thread_tapes;

std::atomic<uint64_t> next_tape_id{1};

// Only floating-point tensors carry gradients; a kResource handle carries its variable's, a
// TensorList (kVariant) its elements' (Note [TensorList gradients] in ops/list/list_grads.cc).
bool CarriesGradient(const Tensor& t) {
  return t.defined() && (IsFloating(t.dtype()) || t.dtype() == kResource || t.dtype() == kVariant);
}

// Ids come from the global counter in blocks, so that recording does not touch a shared cache
// line per tensor.
uint64_t NewTapeId() {
  constexpr uint64_t kBlock = 1024;
  thread_local uint64_t next = 0, end = 0;
  if (next == end) {
    next = next_tape_id.fetch_add(kBlock, std::memory_order_relaxed);
    end = next + kBlock;
  }
  return next++;
}

uint64_t TapeIdOf(const Tensor& t) {
  uint64_t& id = t.impl()->tape_id;
  if (id == 0) id = NewTapeId();
  return id;
}

// Whether flattened argument `index` belongs to an argument whose bit is set in `mask`. Without
// list arguments, argument i is tensor i.
bool Keeps(uint64_t mask, const std::vector<ArgDef>& args, const AttrList& attrs, size_t count,
           int index) {
  if (mask == 0) return false;
  if (args.size() == count) return (mask >> index) & 1;
  int flat = 0;
  for (size_t a = 0; a < args.size(); ++a) {
    const int64_t n = ArgLength(args[a], attrs);
    if (index < flat + n) return (mask >> a) & 1;
    flat += static_cast<int>(n);
  }
  return false;
}
}  // namespace

class TapeState {
 public:
  TapeState(bool persistent, bool watch_accessed_variables, const ExecutionContext& context)
      : persistent_(persistent),
        watch_accessed_variables_(watch_accessed_variables),
        context_(&context),
        in_graph_(!context.executing_eagerly()) {}

  bool persistent() const { return persistent_; }
  // Only ops run in the context the tape was made in are recorded (Note [Tapes in graphs]).
  bool records(const ExecutionContext& context) const {
    return recording() && &context == context_;
  }
  bool recording() const { return !stopped_ && pauses_ == 0; }
  void stop() { stopped_ = true; }
  void pause() { ++pauses_; }
  void resume() { --pauses_; }

  void Watch(const Tensor& t) {
    if (!CarriesGradient(t)) return;
    producer_.try_emplace(TapeIdOf(t), kWatched);
    if (const VariableResource* variable = VariableOf(t)) watched_variables_.insert(variable);
  }

  // The id of `t` if this tape tracks it, else 0. Trainable variables are tracked on first use.
  uint64_t Tracked(const Tensor& t) {
    if (!CarriesGradient(t)) return 0;
    const uint64_t id = t.impl()->tape_id;
    if (id != 0 && producer_.contains(id)) return id;
    const VariableResource* variable = VariableOf(t);
    if (watch_accessed_variables_ && variable != nullptr && variable->trainable) {
      const uint64_t new_id = TapeIdOf(t);
      producer_.emplace(new_id, kWatched);
      return new_id;
    }
    return 0;
  }

  // The ids of the inputs this tape tracks (0 for the others); false when it tracks none.
  template <typename Inputs>
  bool TrackInputs(const Inputs& inputs, absl::InlinedVector<uint64_t, 4>& ids) {
    ids.resize(inputs.size());
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      ids[i] = Tracked(inputs[i]);
      any |= ids[i] != 0;
    }
    return any;
  }

  void Record(const OpCall& call, const GradientDef* gradient, const OutputList& outputs) {
    if (in_graph_) {  // Note [Tapes in graphs]: an output names the node
      if (!outputs.empty()) graph_record_.push_back(outputs.front());
      return;
    }
    const OpDef& op = *call.op;
    absl::InlinedVector<uint64_t, 4> input_ids;
    if (!TrackInputs(call.inputs, input_ids)) return;
    TapeEntry& e = entries_.emplace_back();
    e.op = &op;
    e.gradient = gradient;
    e.attrs = call.attrs;
    e.input_ids = std::move(input_ids);
    const uint64_t keep_in = gradient ? gradient->keep_inputs : 0;
    const uint64_t keep_out = gradient ? gradient->keep_outputs : 0;
    e.inputs.resize(call.inputs.size());
    e.input_meta.resize(call.inputs.size());
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      const Tensor& t = call.inputs[i];
      e.input_meta[i] = {t.dtype(), t.shape(), t.device()};
      if (Keeps(keep_in, op.inputs, call.attrs, call.inputs.size(), i)) e.inputs[i] = t;
    }
    AddOutputs(e, outputs,
               [&](int i) { return Keeps(keep_out, op.outputs, call.attrs, outputs.size(), i); });
  }

  std::vector<std::string> RecordedOpNames() const {
    std::vector<std::string> names;
    for (const TapeEntry& e : entries_) names.push_back(e.op->name);
    return names;
  }

  std::vector<Tensor> Gradient(const std::vector<Tensor>& targets,
                               const std::vector<GradientSource>& sources,
                               const std::vector<Tensor>& output_gradients);
  std::vector<Tensor> GraphGradient(const std::vector<Tensor>& targets,
                                    const std::vector<GradientSource>& sources,
                                    const std::vector<Tensor>& output_gradients);

 private:
  static constexpr int kWatched = -1;  // producer_ value of a tensor watched, not produced

  template <typename KeepFn>
  void AddOutputs(TapeEntry& e, const OutputList& outputs, KeepFn keep) {
    const int index = static_cast<int>(entries_.size()) - 1;
    e.outputs.resize(outputs.size());
    e.output_ids.resize(outputs.size());
    e.output_meta.resize(outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor& t = outputs[i];
      e.output_meta[i] = {t.dtype(), t.shape(), t.device()};
      if (keep(i)) e.outputs[i] = t;
      if (!CarriesGradient(t)) continue;
      e.output_ids[i] = TapeIdOf(t);
      producer_[e.output_ids[i]] = index;
    }
  }

  TensorList Backward(const TapeEntry& e, absl::Span<const Tensor> grads, uint64_t needs_grad);
  // Checks the call's arguments and marks the tape used (a non-persistent tape stops).
  void BeginGradient(size_t num_targets, size_t num_output_gradients);

  bool persistent_;
  bool watch_accessed_variables_;
  const ExecutionContext* context_;  // where the tape was made
  bool in_graph_;                    // made while a graph was built
  bool stopped_ = false;
  int pauses_ = 0;
  bool used_ = false;
  std::deque<TapeEntry> entries_;                // a deque: recording never moves earlier entries
  absl::flat_hash_map<uint64_t, int> producer_;  // tensor id -> entry index, or kWatched
  std::vector<Tensor> graph_record_;             // in a graph: an output of each recorded op
  absl::flat_hash_set<const VariableResource*> watched_variables_;  // passed to watch()
};

namespace {

void SyncRecordingCount() {
  int n = 0;
  for (const TapeState* tape : thread_tapes) n += tape->recording();
  tape_internal::recording_tapes = n;
}

// Pauses a tape while its own gradient is computed: a tape never records its backward pass
// (enclosing tapes do, for higher-order gradients).
class PauseTape {
 public:
  explicit PauseTape(TapeState& tape) : tape_(tape) {
    tape_.pause();
    SyncRecordingCount();
  }
  ~PauseTape() {
    tape_.resume();
    SyncRecordingCount();
  }

 private:
  TapeState& tape_;
};

// grads[id] += g.
void Accumulate(absl::flat_hash_map<uint64_t, Tensor>& grads, uint64_t id, const Tensor& g) {
  auto [it, inserted] = grads.try_emplace(id, g);
  if (!inserted) it->second = add_gradients(it->second, g);
}

}  // namespace

TensorList TapeState::Backward(const TapeEntry& e, absl::Span<const Tensor> grads,
                               uint64_t needs_grad) {
  if (e.gradient == nullptr || e.gradient->fn == nullptr) {
    throw Error(absl::UnimplementedError(
        absl::StrCat("no gradient is defined for op ", e.op->name,
                     " (register one with GradientRegistrar in ops/<family>/*_grads.cc)")));
  }
  const GradientContext ctx(*e.op, e.attrs, e.inputs, e.outputs, e.input_meta, e.output_meta, grads,
                            needs_grad);
  TensorList result = e.gradient->fn(ctx);
  const std::string& what = e.op->name;
  if (result.size() != e.input_meta.size()) {
    throw Error(
        absl::InternalError(absl::StrCat("the gradient of ", what, " returned ", result.size(),
                                         " tensors for ", e.input_meta.size(), " inputs")));
  }
  for (size_t i = 0; i < result.size(); ++i) {
    const Shape& want = e.input_meta[i].shape;
    if (result[i].defined() && e.input_meta[i].dtype != kResource && want.is_fully_defined() &&
        result[i].shape() != want) {
      throw Error(absl::InternalError(absl::StrCat("the gradient of ", what, " for input ", i,
                                                   " has shape ", result[i].shape().str(),
                                                   ", but the input has shape ", want.str())));
    }
  }
  return result;
}

void TapeState::BeginGradient(size_t num_targets, size_t num_output_gradients) {
  if (used_ && !persistent_) {
    throw Error(absl::FailedPreconditionError(
        "GradientTape::gradient can only be called once on a non-persistent tape; use "
        "GradientTape(/*persistent=*/true) to compute several gradients"));
  }
  if (num_output_gradients != 0 && num_output_gradients != num_targets) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("GradientTape::gradient got ", num_output_gradients, " output_gradients for ",
                     num_targets, " targets")));
  }
  used_ = true;
  if (!persistent_) stopped_ = true;
}

// Note [Tapes in graphs]: while a graph is built (a duet::function tracing a training step), a
// tape made in that graph records one output of each op made while it records, not entries; its
// gradient is the graph's symbolic one (graph/gradients.h) through the recorded ops only. So ops
// made before the tape, or while it was stopped or paused, are leaves, as they are eagerly, and
// traced and eager gradients agree. A tape records only the ops of the context it was made in:
// an eager tape around a call of a duet::function records the call, not the graph traced for
// it, and a tape made in a traced function records a cond's If node, not its branches' bodies.
std::vector<Tensor> TapeState::GraphGradient(const std::vector<Tensor>& targets,
                                             const std::vector<GradientSource>& sources,
                                             const std::vector<Tensor>& output_gradients) {
  ExecutionContext& context = ExecutionContext::Current();
  if (&context != context_) {
    throw Error(absl::FailedPreconditionError(
        "GradientTape::gradient while a graph is built needs a tape made in that graph (inside "
        "the traced function or GraphScope): this tape recorded none of its ops"));
  }
  BeginGradient(targets.size(), output_gradients.size());
  PauseTape pause(*this);
  // A variable this tape does not watch gets no gradient, as it would eagerly; the graph's
  // symbolic gradients are taken for the other sources.
  std::vector<Tensor> source_tensors;
  std::vector<int> source_of;  // index into source_tensors, or -1
  for (const GradientSource& source : sources) {
    const VariableResource* variable = VariableOf(source.tensor());
    const bool unwatched = variable != nullptr && !watched_variables_.contains(variable) &&
                           (!watch_accessed_variables_ || !variable->trainable);
    source_of.push_back(unwatched ? -1 : static_cast<int>(source_tensors.size()));
    if (!unwatched) source_tensors.push_back(source.tensor());
  }
  absl::StatusOr<std::vector<Tensor>> grads =
      context.SymbolicGradients(targets, source_tensors, output_gradients, graph_record_);
  if (!persistent_) graph_record_ = {};
  if (!grads.ok()) throw Error(grads.status());
  std::vector<Tensor> result;
  for (int index : source_of) result.push_back(index < 0 ? Tensor() : (*grads)[index]);
  return result;
}

std::vector<Tensor> TapeState::Gradient(const std::vector<Tensor>& targets,
                                        const std::vector<GradientSource>& sources,
                                        const std::vector<Tensor>& output_gradients) {
  BeginGradient(targets.size(), output_gradients.size());
  PauseTape pause(*this);

  // Entries on a path from a source: only they need backward work.
  absl::flat_hash_set<uint64_t> reachable;
  std::vector<uint64_t> source_ids;
  for (const GradientSource& s : sources) {
    const Tensor& t = s.tensor();
    const uint64_t id =
        t.defined() && producer_.contains(t.impl()->tape_id) ? t.impl()->tape_id : 0;
    source_ids.push_back(id);
    if (id != 0) reachable.insert(id);
  }
  std::vector<bool> relevant(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    for (uint64_t id : entries_[i].input_ids) relevant[i] = relevant[i] || reachable.contains(id);
    if (!relevant[i]) continue;
    for (uint64_t id : entries_[i].output_ids) {
      if (id != 0) reachable.insert(id);
    }
  }

  absl::flat_hash_map<uint64_t, Tensor> grads;
  for (size_t k = 0; k < targets.size(); ++k) {
    const Tensor& target = targets[k];
    if (!CarriesGradient(target) || !reachable.contains(target.impl()->tape_id)) continue;
    Tensor seed = output_gradients.empty() ? ones_like(target) : output_gradients[k];
    if (seed.shape() != target.shape()) {
      throw Error(absl::InvalidArgumentError(absl::StrCat("output_gradients[", k, "] has shape ",
                                                          seed.shape().str(), " but target ", k,
                                                          " has shape ", target.shape().str())));
    }
    Accumulate(grads, target.impl()->tape_id, seed);
  }
  const absl::flat_hash_set<uint64_t> keep(source_ids.begin(), source_ids.end());
  for (size_t i = entries_.size(); i-- > 0;) {
    if (!relevant[i]) continue;
    const TapeEntry& e = entries_[i];
    absl::InlinedVector<Tensor, 2> upstream(e.output_ids.size());
    bool any = false;
    for (size_t j = 0; j < e.output_ids.size(); ++j) {
      auto it = grads.find(e.output_ids[j]);
      if (e.output_ids[j] == 0 || it == grads.end()) continue;
      upstream[j] = it->second;
      any = true;
      if (!keep.contains(e.output_ids[j])) grads.erase(it);  // complete: consumers came later
    }
    if (!any) continue;
    uint64_t needs_grad = 0;
    for (size_t j = 0; j < e.input_ids.size(); ++j) {
      if (j >= 64 || reachable.contains(e.input_ids[j])) needs_grad |= uint64_t{1} << (j & 63);
    }
    const TensorList in = Backward(e, upstream, needs_grad);
    for (size_t j = 0; j < in.size(); ++j) {
      const uint64_t id = e.input_ids[j];
      if (id != 0 && in[j].defined() && reachable.contains(id)) Accumulate(grads, id, in[j]);
    }
  }

  std::vector<Tensor> result;
  for (uint64_t id : source_ids) {
    auto it = grads.find(id);
    result.push_back(id != 0 && it != grads.end() ? it->second : Tensor());
  }
  if (!persistent_) {  // release every recorded tensor now, not at the tape's destruction
    entries_ = {};
    producer_ = {};
  }
  return result;
}

GradientTape::GradientTape(bool persistent, bool watch_accessed_variables)
    : state_(std::make_unique<TapeState>(persistent, watch_accessed_variables,
                                         ExecutionContext::Current())) {
  thread_tapes.push_back(state_.get());
  SyncRecordingCount();
}

GradientTape::~GradientTape() {
  std::erase(thread_tapes, state_.get());
  SyncRecordingCount();
}

void GradientTape::watch(const Tensor& tensor) { state_->Watch(tensor); }
void GradientTape::watch(const Variable& variable) { state_->Watch(variable.handle()); }

void GradientTape::stop() {
  state_->stop();
  SyncRecordingCount();
}

bool GradientTape::persistent() const { return state_->persistent(); }

std::vector<Tensor> GradientTape::gradient(const Tensor& target,
                                           const std::vector<GradientSource>& sources,
                                           const std::vector<Tensor>& output_gradients) {
  return gradient(std::vector<Tensor>{target}, sources, output_gradients);
}

std::vector<Tensor> GradientTape::gradient(const std::vector<Tensor>& targets,
                                           const std::vector<GradientSource>& sources,
                                           const std::vector<Tensor>& output_gradients) {
  if (!executing_eagerly()) return state_->GraphGradient(targets, sources, output_gradients);
  return state_->Gradient(targets, sources, output_gradients);
}

StopRecording::StopRecording() : paused_(thread_tapes) {
  for (TapeState* tape : paused_) tape->pause();
  SyncRecordingCount();
}

StopRecording::~StopRecording() {
  for (TapeState* tape : paused_) tape->resume();
  SyncRecordingCount();
}

namespace tape_internal {

std::vector<std::string> RecordedOpNames(const GradientTape& tape) {
  return tape.state_->RecordedOpNames();
}

void RecordOperation(const OpCall& call, const OutputList& outputs) {
  const GradientDef* gradient = FindGradient(*call.op);
  if (gradient != nullptr && gradient->fn == nullptr) return;  // not differentiable
  const ExecutionContext& context = ExecutionContext::Current();
  for (TapeState* tape : thread_tapes) {
    if (tape->records(context)) tape->Record(call, gradient, outputs);
  }
}

}  // namespace tape_internal
}  // namespace duet
