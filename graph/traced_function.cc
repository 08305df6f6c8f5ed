#include "graph/traced_function.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <list>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/resource.h"
#include "eager/device_scope.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/freeze.h"
#include "graph/function.h"
#include "graph/graph_context.h"
#include "graph/graph_def.h"
#include "graph/passes/optimize.h"
#include "ops/array/array_ops.h"
#include "ops/control_flow/control_flow_ops.h"

namespace duet {
namespace {

std::atomic<bool> run_eagerly{false};

// The tracers whose callables run on this thread (RecursionGuard).
thread_local std::vector<const function_internal::Tracer*> running;

}  // namespace

void run_functions_eagerly(bool eagerly) { run_eagerly.store(eagerly); }
bool functions_run_eagerly() { return run_eagerly.load(std::memory_order_relaxed); }

namespace function_internal {
namespace {

// Note [Signatures]: what a call's arguments are, as far as tracing is concerned. A tensor's
// dtype and shape (-1 dims once relaxed), a variable's identity (its state: the traced graph
// reads and updates that variable), a plain value's value. Two calls with equal keys run the same
// traced function.
struct ArgSignature {
  enum Kind { kTensor, kTensors, kVariable, kInt, kDouble, kBool, kString } kind = kTensor;
  std::vector<TensorSpec> tensors;  // one (kTensor) or the list's (kTensors)
  const void* variable = nullptr;
  std::string variable_name;
  std::variant<std::monostate, int64_t, double, bool, std::string> value;  // plain values
};

// The arguments' signatures, and the caller's innermost DeviceScope: ops traced inside it are
// placed on its device (Note [Placement]), so a call under another scope traces again.
struct Signature {
  std::vector<ArgSignature> args;
  std::optional<Device> scope;
};

TensorSpec SpecOf(const Tensor& t) {
  if (!t.defined()) {
    throw Error(absl::InvalidArgumentError("a duet::function argument is an undefined Tensor"));
  }
  return {t.dtype(), t.shape(), t.device()};
}

Signature SignatureOf(const std::vector<ArgValue>& args) {
  Signature signature{std::vector<ArgSignature>(args.size()), DeviceScope::Innermost()};
  for (size_t i = 0; i < args.size(); ++i) {
    ArgSignature& s = signature.args[i];
    s.kind = static_cast<ArgSignature::Kind>(args[i].index());
    if (const auto* t = std::get_if<Tensor>(&args[i])) {
      s.tensors = {SpecOf(*t)};
    } else if (const auto* ts = std::get_if<std::vector<Tensor>>(&args[i])) {
      for (const Tensor& t : *ts) s.tensors.push_back(SpecOf(t));
    } else if (const auto* v = std::get_if<Variable>(&args[i])) {
      s.variable = VariableOf(v->handle());
      s.variable_name = v->name();
    } else if (const auto* n = std::get_if<int64_t>(&args[i])) {
      s.value = *n;
    } else if (const auto* d = std::get_if<double>(&args[i])) {
      s.value = *d;
    } else if (const auto* b = std::get_if<bool>(&args[i])) {
      s.value = *b;
    } else {
      s.value = std::get<std::string>(args[i]);
    }
  }
  return signature;
}

std::string ValueString(const decltype(ArgSignature::value)& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return absl::StrCat(*i);
  if (const auto* d = std::get_if<double>(&value)) return absl::StrCat(*d);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&value)) return absl::StrCat("\"", *s, "\"");
  return "?";
}

std::string SpecString(const TensorSpec& spec) {
  return absl::StrCat(DTypeName(spec.dtype), " ", spec.shape.str(),
                      spec.device.is_host() ? "" : absl::StrCat(" on ", spec.device.str()));
}

std::string ScopeString(const std::optional<Device>& scope) {
  return scope.has_value() ? absl::StrCat("DeviceScope(", scope->str(), ")") : "no DeviceScope";
}

std::string KeyOf(const Signature& signature) {
  std::string key = signature.scope.has_value() ? signature.scope->str() + ";" : ";";
  for (const ArgSignature& s : signature.args) {
    absl::StrAppend(&key, static_cast<int>(s.kind), ":");
    for (const TensorSpec& t : s.tensors) absl::StrAppend(&key, SpecString(t), ",");
    if (s.variable != nullptr) absl::StrAppend(&key, reinterpret_cast<uintptr_t>(s.variable));
    if (s.kind >= ArgSignature::kInt) absl::StrAppend(&key, ValueString(s.value));
    key += ';';
  }
  return key;
}

// True when `arg` has the signature's kind, variable or value, and tensors of its dtypes and
// compatible shapes (the signature may have unknown dims).
bool Accepts(const ArgSignature& traced, const ArgSignature& arg) {
  if (traced.kind != arg.kind || traced.variable != arg.variable ||
      traced.tensors.size() != arg.tensors.size() || traced.value != arg.value) {
    return false;
  }
  for (size_t i = 0; i < arg.tensors.size(); ++i) {
    if (traced.tensors[i].dtype != arg.tensors[i].dtype ||
        traced.tensors[i].device != arg.tensors[i].device ||
        !arg.tensors[i].shape.IsCompatibleWith(traced.tensors[i].shape)) {
      return false;
    }
  }
  return true;
}

bool AcceptsAll(const Signature& traced, const Signature& call) {
  if (traced.args.size() != call.args.size() || traced.scope != call.scope) return false;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (!Accepts(traced.args[i], call.args[i])) return false;
  }
  return true;
}

// What changed in argument `i` from `before` to `now`, or "" when nothing did.
std::string Change(size_t i, const ArgSignature& before, const ArgSignature& now) {
  const std::string arg = absl::StrCat("arg ", i, ": ");
  if (before.kind != now.kind) return absl::StrCat(arg, "another kind of argument");
  if (before.variable != now.variable) {
    return absl::StrCat(arg, "variable '", before.variable_name, "' -> another variable '",
                        now.variable_name, "'");
  }
  if (before.value != now.value) {
    return absl::StrCat(arg, "value ", ValueString(before.value), " -> ", ValueString(now.value));
  }
  if (before.tensors.size() != now.tensors.size()) {
    return absl::StrCat(arg, before.tensors.size(), " tensors -> ", now.tensors.size());
  }
  std::vector<std::string> changes;
  for (size_t k = 0; k < now.tensors.size(); ++k) {
    const TensorSpec &b = before.tensors[k], &n = now.tensors[k];
    const std::string which = now.kind == ArgSignature::kTensors ? absl::StrCat("[", k, "] ") : "";
    if (b.dtype != n.dtype) {
      changes.push_back(
          absl::StrCat(which, "dtype ", DTypeName(b.dtype), " -> ", DTypeName(n.dtype)));
    } else if (b.device != n.device) {
      changes.push_back(absl::StrCat(which, "device ", b.device.str(), " -> ", n.device.str()));
    } else if (!n.shape.IsCompatibleWith(b.shape)) {
      changes.push_back(absl::StrCat(which, "shape ", b.shape.str(), " -> ", n.shape.str()));
    }
  }
  return changes.empty() ? "" : absl::StrCat(arg, absl::StrJoin(changes, ", "));
}

std::vector<std::string> Changes(const Signature& before, const Signature& now) {
  std::vector<std::string> changes;
  if (before.scope != now.scope) {
    changes.push_back(absl::StrCat(ScopeString(before.scope), " -> ", ScopeString(now.scope)));
  }
  if (before.args.size() != now.args.size()) {
    changes.push_back(absl::StrCat(before.args.size(), " arguments -> ", now.args.size()));
    return changes;
  }
  for (size_t i = 0; i < now.args.size(); ++i) {
    std::string change = Change(i, before.args[i], now.args[i]);
    if (!change.empty()) changes.push_back(std::move(change));
  }
  return changes;
}

// `now` with the dims that differ from `before` unknown, when only dims differ; else nullopt.
std::optional<Signature> Relaxed(const Signature& before, const Signature& now) {
  if (before.args.size() != now.args.size() || before.scope != now.scope) return std::nullopt;
  Signature relaxed = now;
  for (size_t i = 0; i < now.args.size(); ++i) {
    const ArgSignature &b = before.args[i], &n = now.args[i];
    if (b.kind != n.kind || b.variable != n.variable || b.value != n.value ||
        b.tensors.size() != n.tensors.size()) {
      return std::nullopt;
    }
    for (size_t k = 0; k < n.tensors.size(); ++k) {
      const Shape &bs = b.tensors[k].shape, &ns = n.tensors[k].shape;
      if (b.tensors[k].dtype != n.tensors[k].dtype || bs.unknown_rank() || ns.unknown_rank() ||
          bs.rank() != ns.rank()) {
        return std::nullopt;
      }
      std::vector<int64_t> dims(ns.dims().begin(), ns.dims().end());
      for (int d = 0; d < ns.rank(); ++d) {
        if (bs.dim(d) != ns.dim(d)) dims[d] = Shape::kUnknownDim;
      }
      relaxed.args[i].tensors[k].shape = Shape(absl::MakeConstSpan(dims));
    }
  }
  return relaxed;
}

// `args`' signature with the tensor shapes of `input_signature`, which they must match.
Signature Declared(const std::string& name, const std::vector<TensorSpec>& input_signature,
                   Signature signature) {
  std::vector<ArgSignature>& args = signature.args;
  size_t next = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    for (TensorSpec& t : args[i].tensors) {
      const std::string which = absl::StrCat("duet::function '", name, "': tensor ", next,
                                             " (in arg ", i, ") is ", SpecString(t));
      if (next >= input_signature.size()) {
        throw Error(absl::InvalidArgumentError(
            absl::StrCat(which, ", but input_signature has ", input_signature.size(), " specs")));
      }
      const TensorSpec& declared = input_signature[next++];
      if (declared.dtype != t.dtype || !t.shape.IsCompatibleWith(declared.shape)) {
        throw Error(absl::InvalidArgumentError(
            absl::StrCat(which, ", but input_signature says ", SpecString(declared))));
      }
      t.shape = declared.shape;
    }
  }
  if (next != input_signature.size()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("duet::function '", name, "': input_signature has ", input_signature.size(),
                     " specs for ", next, " tensors")));
  }
  return signature;
}

// The argument tensors of a call: each Tensor, each element of a std::vector<Tensor>.
std::vector<Tensor> TensorsOf(const std::vector<ArgValue>& args) {
  std::vector<Tensor> tensors;
  for (const ArgValue& arg : args) {
    if (const auto* t = std::get_if<Tensor>(&arg)) tensors.push_back(*t);
    if (const auto* ts = std::get_if<std::vector<Tensor>>(&arg)) {
      tensors.insert(tensors.end(), ts->begin(), ts->end());
    }
  }
  return tensors;
}

// `args` with their tensors replaced, in order, by `tensors` (the placeholders of a trace).
std::vector<ArgValue> WithTensors(const std::vector<ArgValue>& args,
                                  const std::vector<Tensor>& tensors) {
  std::vector<ArgValue> result = args;
  size_t next = 0;
  for (ArgValue& arg : result) {
    if (auto* t = std::get_if<Tensor>(&arg)) *t = tensors[next++];
    if (auto* ts = std::get_if<std::vector<Tensor>>(&arg)) {
      for (Tensor& t : *ts) t = tensors[next++];
    }
  }
  return result;
}

std::vector<ArgSpec> ArgSpecs(const Signature& signature) {
  std::vector<ArgSpec> specs;
  for (const ArgSignature& s : signature.args) {
    for (const TensorSpec& t : s.tensors) specs.emplace_back(t.dtype, t.shape, t.device);
  }
  return specs;
}

}  // namespace

// One traced signature: the function (arguments: the call's tensors, then the handles of the
// variables it captured) and those handles.
struct Tracer::Entry {
  Signature signature;
  std::shared_ptr<const Function> function;
  std::vector<Tensor> captured;  // variable handles
  bool stateful = true;
  std::vector<std::string> keys;  // the cache keys that name it
  // FunctionOptions::check_host_values, guarded by State::mu: the first call is the trace itself;
  // the last difference reported (each is reported once until it changes).
  bool checked_once = false;
  std::string last_difference;
};

struct Tracer::State {
  mutable std::mutex mu;  // guards all below; held while tracing, so a signature traces once
  std::list<std::shared_ptr<Entry>> entries;  // most recently used first
  absl::flat_hash_map<std::string, std::list<std::shared_ptr<Entry>>::iterator> by_key;
  std::vector<Signature> traced;  // every signature traced, in order
  std::vector<std::string> reasons;
  std::vector<std::string> host_changes;
};

Tracer::Tracer(FunctionOptions options)
    : options_(std::move(options)), state_(std::make_unique<State>()) {}
Tracer::~Tracer() = default;

int Tracer::trace_count() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return static_cast<int>(state_->traced.size());
}

std::vector<std::string> Tracer::retrace_reasons() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->reasons;
}

std::vector<std::string> Tracer::host_value_changes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->host_changes;
}

namespace {

// One trace of the callable for `signature` in the context of `holder_graph`: variables the
// callable uses are captured by handle, as arguments of the function (Note [Function captures]),
// so calls pass the live variables and tapes see them. Also says whether it made Variables.
struct HeldTrace {
  FunctionTrace trace;
  bool made_variables = false;
};

HeldTrace TraceHeld(Graph& holder_graph, const Signature& signature,
                    const std::vector<ArgValue>& args, TraceFn trace) {
  GraphContext holder(holder_graph);
  const int64_t variables_before = variable_internal::VariablesCreated();
  FunctionTrace traced =
      TraceFunction(&holder, ArgSpecs(signature), [&](const std::vector<Tensor>& placeholders) {
        return trace(WithTensors(args, placeholders));
      });
  return {std::move(traced), variable_internal::VariablesCreated() != variables_before};
}

// Traces `trace` for `signature` into a function and the variable handles it captured.
struct Traced {
  std::shared_ptr<const Function> function;
  std::vector<Tensor> captured;
};

Traced TraceSignature(const std::string& name, const Signature& signature,
                      const std::vector<ArgValue>& args, TraceFn trace, bool first) {
  Graph holder_graph;
  auto [traced, made_variables] = TraceHeld(holder_graph, signature, args, trace);
  std::vector<NodeOutput> captures;
  Traced result;
  for (const GraphContext::Capture& capture : traced.captures) {
    captures.push_back(capture.outer);
    result.captured.push_back(*capture.outer.node->bound_value());
  }
  result.function = WithCaptures(std::move(traced), UniqueFunctionName(name), captures);
  if (!first && made_variables) {
    throw Error(absl::FailedPreconditionError(absl::StrCat(
        "duet::function '", name,
        "' created a Variable while retracing; variables may be made on the first trace only "
        "(make them outside the function, or once, guarded by a check that they exist)")));
  }
  absl::StatusOr<const Function::Compiled*> compiled = result.function->compiled();
  if (!compiled.ok()) throw Error(compiled.status());
  return result;
}

// Clears what differs between two traces of one signature without a host value changing: the
// names of the functions that nested calls trace afresh each time.
tensorflow::NodeDef WithoutFunctionNames(tensorflow::NodeDef node) {
  for (auto& [name, attr] : *node.mutable_attr()) {
    if (attr.has_func()) attr.mutable_func()->clear_name();
  }
  return node;
}

// The first way the graph traced `now` differs from the cached trace, or "" when none does.
std::string FirstDifference(const Graph& traced, const Graph& now) {
  absl::StatusOr<tensorflow::GraphDef> before_def = GraphToGraphDef(traced);
  absl::StatusOr<tensorflow::GraphDef> after_def = GraphToGraphDef(now);
  if (!before_def.ok() || !after_def.ok()) {
    return absl::StrCat("cannot check: ",
                        (before_def.ok() ? after_def.status() : before_def.status()).message());
  }
  const tensorflow::GraphDef& before = *before_def;
  const tensorflow::GraphDef& after = *after_def;
  if (before.node_size() != after.node_size()) {
    return absl::StrCat("the callable now builds ", after.node_size(), " nodes, ",
                        before.node_size(), " when traced");
  }
  for (int i = 0; i < after.node_size(); ++i) {
    const tensorflow::NodeDef a = WithoutFunctionNames(before.node(i));
    const tensorflow::NodeDef b = WithoutFunctionNames(after.node(i));
    if (google::protobuf::util::MessageDifferencer::Equals(a, b)) continue;
    std::string what = "its attrs changed";
    if (a.op() != b.op()) {
      what = absl::StrCat("the op was ", a.op(), " when traced");
    } else if (b.op() == "Const") {
      what = "its value changed";
    } else if (!std::equal(a.input().begin(), a.input().end(), b.input().begin(),
                           b.input().end())) {
      what = "its inputs changed";
    }
    const Node* node = now.FindNode(b.name());
    const std::string source = node != nullptr ? node->source() : "";
    return absl::StrCat("node '", b.name(), "' (", b.op(), source.empty() ? "" : ", at ", source,
                        "): ", what);
  }
  return "";
}

}  // namespace

// Note [Host value check]: a trace records what host code did once; a C++ value it read (a
// captured float, an eager tensor a variable now names differently, a branch on a flag) may
// change later without changing the signature, and the cached graph silently keeps the old one.
// With FunctionOptions::check_host_values each call traces again and compares node by node.
void Tracer::CheckHostValues(Entry& entry, const std::vector<ArgValue>& args, TraceFn trace) {
  std::lock_guard<std::mutex> lock(state_->mu);  // the callable traces one at a time, as in Lookup
  if (!entry.checked_once) {
    entry.checked_once = true;  // this call traced it
    return;
  }
  Graph holder_graph;
  const HeldTrace now = TraceHeld(holder_graph, entry.signature, args, trace);
  std::string difference =
      now.made_variables
          ? "cannot check: the callable created a Variable again (it must make its variables "
            "once)"
          : FirstDifference(entry.function->body(), *now.trace.body);
  if (difference.empty() || difference == entry.last_difference) return;
  entry.last_difference = difference;
  std::string line = difference;
  if (!absl::StartsWith(difference, "cannot check")) {
    absl::StrAppend(&line,
                    " (a host value the callable read changed after tracing; the call ran the "
                    "graph traced before: pass the value as an argument or hold it in a Variable)");
  }
  std::fprintf(stderr, "duet: warning: duet::function '%s': %s\n", options_.name.c_str(),
               line.c_str());
  state_->host_changes.push_back(std::move(line));
}

std::shared_ptr<Tracer::Entry> Tracer::Lookup(const std::vector<ArgValue>& args, TraceFn trace) {
  Signature signature = SignatureOf(args);
  const std::string key = KeyOf(signature);
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (auto it = s.by_key.find(key); it != s.by_key.end()) {
    s.entries.splice(s.entries.begin(), s.entries, it->second);
    return *it->second;
  }
  for (auto it = s.entries.begin(); it != s.entries.end(); ++it) {
    if (!AcceptsAll((*it)->signature, signature)) continue;  // a relaxed or declared signature
    (*it)->keys.push_back(key);
    s.by_key[key] = it;
    s.entries.splice(s.entries.begin(), s.entries, it);
    return s.entries.front();
  }
  // A miss: say why, relax or declare shapes, trace.
  std::string reason;
  if (options_.input_signature) {
    signature = Declared(options_.name, *options_.input_signature, std::move(signature));
  } else if (!s.traced.empty()) {
    const Signature* closest = &s.traced.back();
    size_t fewest = Changes(*closest, signature).size();
    for (const Signature& before : s.traced) {
      const size_t n = Changes(before, signature).size();
      if (n < fewest) closest = &before, fewest = n;
    }
    const std::vector<std::string> changes = Changes(*closest, signature);
    reason = changes.empty() ? "the same signature again: it was dropped from the cache "
                               "(FunctionOptions::cache_size)"
                             : absl::StrJoin(changes, "; ");
    if (options_.relax_shapes) {
      if (std::optional<Signature> relaxed = Relaxed(*closest, signature)) {
        signature = *std::move(relaxed);
        std::vector<std::string> shapes;
        for (const ArgSignature& a : signature.args) {
          for (const TensorSpec& t : a.tensors) shapes.push_back(t.shape.str());
        }
        absl::StrAppend(&reason, " (traced with relaxed shapes ", absl::StrJoin(shapes, ", "), ")");
      }
    }
  }
  auto entry = std::make_shared<Entry>();
  entry->signature = signature;
  Traced traced = TraceSignature(options_.name, signature, args, trace, s.traced.empty());
  entry->function = std::move(traced.function);
  entry->captured = std::move(traced.captured);
  entry->stateful = HasStatefulNodes(*entry->function);
  entry->keys.push_back(key);
  s.traced.push_back(std::move(signature));
  if (!reason.empty()) s.reasons.push_back(reason);
  const int count = static_cast<int>(s.traced.size());
  if (options_.warn_after_traces > 0 && count > 1 &&
      (count - 1) % options_.warn_after_traces == 0) {
    std::fprintf(stderr,
                 "duet: warning: duet::function '%s' has traced %d times; the last retrace: %s "
                 "(see retrace_reasons(); FunctionOptions::relax_shapes or input_signature "
                 "trace fewer)\n",
                 options_.name.c_str(), count, reason.c_str());
  }
  s.entries.push_front(entry);
  s.by_key[key] = s.entries.begin();
  while (static_cast<int>(s.entries.size()) > std::max(options_.cache_size, 1)) {
    for (const std::string& k : s.entries.back()->keys) s.by_key.erase(k);
    s.entries.pop_back();
  }
  return entry;
}

// A call node's site: the function's name, no source line (this file's would only mislead; the
// failing op inside names the user's line).
OpSite Tracer::CallSite() const { return OpSite(options_.name, std::source_location()); }

std::vector<Tensor> Tracer::Call(const std::vector<ArgValue>& args, TraceFn trace) {
  const std::shared_ptr<Entry> entry = Lookup(args, trace);
  if (options_.check_host_values) CheckHostValues(*entry, args, trace);
  std::vector<Tensor> inputs = TensorsOf(args);
  inputs.insert(inputs.end(), entry->captured.begin(), entry->captured.end());
  return call_function(entry->function, inputs, entry->stateful, CallSite());
}

std::vector<Tensor> Tracer::CallInGraph(const std::vector<ArgValue>& args, TraceFn trace) {
  GraphContext* outer = GraphContext::Current();
  FunctionTrace traced = TraceFunction(outer, ArgSpecs(SignatureOf(args)),
                                       [&](const std::vector<Tensor>& placeholders) {
                                         return trace(WithTensors(args, placeholders));
                                       });
  std::vector<NodeOutput> captures;
  for (const GraphContext::Capture& capture : traced.captures) captures.push_back(capture.outer);
  std::shared_ptr<const Function> function =
      WithCaptures(std::move(traced), UniqueFunctionName(options_.name), captures);
  std::vector<Tensor> inputs = TensorsOf(args);
  for (const NodeOutput& capture : captures) {
    inputs.push_back(capture.node->output(capture.index));
  }
  return call_function(function, inputs, HasStatefulNodes(*function), CallSite());
}

tensorflow::GraphDef Tracer::GraphDefOf(const std::vector<ArgValue>& args, TraceFn trace,
                                        bool freeze) {
  return ExportedGraph(args, trace, freeze).to_graph_def();
}

void Tracer::ExportGraph(const std::string& path, const std::vector<ArgValue>& args,
                         TraceFn trace) {
  write_graph(ExportedGraph(args, trace, /*freeze=*/true), path);
}

Graph Tracer::ExportedGraph(const std::vector<ArgValue>& args, TraceFn trace, bool freeze) {
  const std::shared_ptr<Entry> entry = Lookup(args, trace);
  // Traced again into a graph of its own, where variables are VarHandleOps bound to their state.
  Graph graph;
  {
    GraphScope scope(graph);
    std::vector<Tensor> placeholders;
    for (const ArgSpec& spec : ArgSpecs(entry->signature)) {
      DeviceScope on(spec.device);
      placeholders.push_back(
          placeholder(spec.dtype, spec.shape, absl::StrCat("arg", placeholders.size())));
    }
    const std::vector<Tensor> results = trace(WithTensors(args, placeholders));
    for (size_t k = 0; k < results.size(); ++k) {
      identity(results[k], absl::StrCat("output_", k));
    }
  }
  // _FusedElementwise and _ResourceApplyMatMulGradientDescent are duet's own ops, and duet's
  // _FusedConv2D has the inputs of TensorFlow's older version (num_args * T, where TensorFlow 2.21
  // takes TArgs and host_args): exported graphs keep the unfused ops, so TensorFlow runs them
  // (its own optimizer fuses them again, as duet does on import).
  optimize(graph, PassOptions{.disable = {"fuse_elementwise", "fuse_gradient_update",
                                          "fuse_bias_activation"}});
  if (freeze) graph = freeze_variables(graph);
  return graph;
}

RecursionGuard::RecursionGuard(const Tracer& tracer, const std::string& name) {
  for (const Tracer* t : running) {
    if (t == &tracer) {
      throw Error(absl::UnimplementedError(
          absl::StrCat("duet::function '", name,
                       "' calls itself (recursion); a traced function cannot call itself, "
                       "write the recursion as a loop (while_loop) or in plain C++")));
    }
  }
  running.push_back(&tracer);
}

RecursionGuard::~RecursionGuard() { running.pop_back(); }

bool CallsRunDirectly() { return functions_run_eagerly(); }

}  // namespace function_internal
}  // namespace duet
