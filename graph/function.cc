#include "graph/function.h"

#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "eager/device_scope.h"
#include "graph/device_copies.h"
#include "graph/graph_ops.h"
#include "ops/array/array_attrs.h"
#include "ops/array/array_ops.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

// A Placeholder for an argument, added to a body after tracing (an unused capture).
const Node* AddArgument(Graph& body, DType dtype, const Shape& shape) {
  NodeSpec spec = NodeSpec::Placeholder(dtype, shape);
  spec.name = body.UniqueName("capture");
  absl::StatusOr<const Node*> node = body.AddNode(std::move(spec));
  if (!node.ok()) throw Error(node.status());
  return *node;
}

}  // namespace

Function::Function(std::string name, Graph body, std::vector<const Node*> args,
                   std::vector<NodeOutput> results)
    : name_(std::move(name)),
      body_(std::move(body)),
      args_(std::move(args)),
      results_(std::move(results)) {
  for (const Node* arg : args_) {
    arg_dtypes_.push_back(arg->output_dtype(0));
    arg_shapes_.push_back(arg->output_shape(0));
  }
  for (const NodeOutput& result : results_) {
    result_dtypes_.push_back(result.node->output_dtype(result.index));
    result_shapes_.push_back(result.node->output_shape(result.index));
  }
}

absl::StatusOr<std::shared_ptr<const Function>> Function::Create(std::string name, Graph body,
                                                                 std::vector<const Node*> args,
                                                                 std::vector<NodeOutput> results) {
  for (const Node* node : body.nodes()) {
    if (kVarHandleOp.is(node->op()) && node->bound_value() == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("function '", name, "': node '", node->name(),
                       "' makes a variable inside the function; pass variables as arguments"));
    }
  }
  for (const Node* arg : args) {
    if (!kPlaceholderOp.is(arg->op())) {
      return absl::InvalidArgumentError(
          absl::StrCat("function '", name, "': argument '", arg->name(), "' is not a Placeholder"));
    }
  }
  return std::shared_ptr<const Function>(
      new Function(std::move(name), std::move(body), std::move(args), std::move(results)));
}

absl::Status Function::CheckArgs(absl::Span<const Tensor> args) const {
  if (args.size() != args_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name_, "' takes ", args_.size(),
                                                   " arguments, got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != arg_dtypes_[i] || !args[i].shape().IsCompatibleWith(arg_shapes_[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("function '", name_, "': argument ", i, " ('", args_[i]->name(),
                       "') must be ", DTypeName(arg_dtypes_[i]), " ", arg_shapes_[i].str(),
                       ", got ", DTypeName(args[i].dtype()), " ", args[i].shape().str()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Function::Compiled>> Function::Compile() const {
  auto compiled = std::make_unique<Compiled>();
  std::vector<const Node*> copy_of;
  compiled->graph = body_.Copy(&copy_of);
  absl::flat_hash_set<const Node*> keep;
  for (const Node* arg : args_) {
    compiled->args.push_back(copy_of[arg->id()]);
    keep.insert(compiled->args.back());
  }
  for (const NodeOutput& result : results_) {
    compiled->results.push_back({copy_of[result.node->id()], result.index});
    keep.insert(compiled->results.back().node);
  }
  PassOptions options;
  // Note [Dumping function graphs]: DUET_DUMP_FUNCTIONS=dir dumps every function's passes (a traced
  // step, a loop's body, a gradient's loop) into dir/<function name>/, as PassOptions::dump_dir.
  if (const char* dir = std::getenv("DUET_DUMP_FUNCTIONS"); dir != nullptr && *dir != '\0') {
    options.dump_dir = absl::StrCat(dir, "/", name_);
  }
  DUET_ASSIGN_OR_RETURN(compiled->passes,
                        OptimizeKeeping(compiled->graph, options, std::move(keep)));
  DUET_RETURN_IF_ERROR(InsertDeviceCopies(compiled->graph).status());  // as a session does
  std::vector<NodeOutput> feeds;
  for (const Node* arg : compiled->args) feeds.push_back({arg, 0});
  std::vector<const Node*> stateful;  // Note [Functions]: side effects always run
  for (const Node* node : compiled->graph.nodes()) {
    if (node->op().stateful && !node->removed()) stateful.push_back(node);
  }
  DUET_ASSIGN_OR_RETURN(compiled->plan,
                        Plan::Compile(compiled->graph, feeds, compiled->results, stateful,
                                      [](const Node&) { return Tensor(); }));
  return compiled;
}

absl::StatusOr<const Function::Compiled*> Function::compiled() const {
  std::call_once(compile_once_, [&] {
    absl::StatusOr<std::unique_ptr<Compiled>> compiled = Compile();
    if (compiled.ok()) {
      compiled_ = *std::move(compiled);
    } else {
      compile_status_ =
          absl::Status(compiled.status().code(),
                       absl::StrCat("function '", name_, "': ", compiled.status().message()));
    }
  });
  DUET_RETURN_IF_ERROR(compile_status_);
  return compiled_.get();
}

absl::StatusOr<std::vector<Tensor>> Function::Call(absl::Span<const Tensor> args) const {
  return CallOwned(std::vector<Tensor>(args.begin(), args.end()));
}

absl::StatusOr<std::vector<Tensor>> Function::CallOwned(std::vector<Tensor> args) const {
  DUET_ASSIGN_OR_RETURN(const Compiled* compiled, compiled());
  DUET_RETURN_IF_ERROR(CheckArgs(args));
  return compiled->plan->Run(std::move(args));
}

std::shared_ptr<const void> Function::Derived(
    const std::string& key, absl::FunctionRef<std::shared_ptr<const void>()> make) const {
  std::lock_guard<std::mutex> lock(derived_mu_);
  std::shared_ptr<const void>& derived = derived_[key];
  if (derived == nullptr) derived = make();
  return derived;
}

namespace {

// Function names generated or imported in this process (imported graphs may come from another
// process, whose generated names would otherwise collide with ours in a later export).
struct FunctionNames {
  std::mutex mu;
  absl::flat_hash_set<std::string> taken;  // guarded by mu
  int64_t counter = 0;                     // guarded by mu
};

FunctionNames& Names() {
  static auto* names = new FunctionNames;
  return *names;
}

}  // namespace

std::string UniqueFunctionName(absl::string_view base) {
  FunctionNames& names = Names();
  std::lock_guard<std::mutex> lock(names.mu);
  for (;;) {
    std::string name = absl::StrCat(base, "_", names.counter++);
    if (names.taken.insert(name).second) return name;
  }
}

void ReserveFunctionName(absl::string_view name) {
  FunctionNames& names = Names();
  std::lock_guard<std::mutex> lock(names.mu);
  names.taken.emplace(name);
}

FunctionTrace TraceFunction(GraphContext* outer, const std::vector<ArgSpec>& args,
                            absl::FunctionRef<std::vector<Tensor>(const std::vector<Tensor>&)> fn) {
  FunctionTrace trace;
  trace.body = std::make_unique<Graph>();
  GraphScope scope(*trace.body, outer);
  std::vector<Tensor> arg_tensors;
  for (size_t i = 0; i < args.size(); ++i) {
    DeviceScope on(args[i].device);
    arg_tensors.push_back(placeholder(args[i].dtype, args[i].shape, absl::StrCat("arg", i)));
    trace.args.push_back(SymbolicOutput(arg_tensors.back())->node);
  }
  for (const Tensor& result : fn(arg_tensors)) {
    absl::StatusOr<NodeOutput> output = scope.context().Resolve(result);
    if (!output.ok()) throw Error(output.status());
    trace.results.push_back(*output);
  }
  trace.captures = scope.context().captures();
  return trace;
}

std::shared_ptr<const Function> WithCaptures(FunctionTrace trace, absl::string_view name,
                                             const std::vector<NodeOutput>& captures,
                                             bool pass_captures) {
  std::vector<const Node*> args = trace.args;
  for (const NodeOutput& outer : captures) {
    const Node* inner = nullptr;
    for (const GraphContext::Capture& capture : trace.captures) {
      if (capture.outer == outer) inner = capture.inner;
    }
    if (inner == nullptr) {
      inner = AddArgument(*trace.body, outer.node->output_dtype(outer.index),
                          outer.node->output_shape(outer.index));
    }
    args.push_back(inner);
    if (pass_captures) trace.results.push_back({inner, 0});
  }
  absl::StatusOr<std::shared_ptr<const Function>> function = Function::Create(
      std::string(name), std::move(*trace.body), std::move(args), std::move(trace.results));
  if (!function.ok()) throw Error(function.status());
  return *std::move(function);
}

std::vector<NodeOutput> UnionOfCaptures(const std::vector<const FunctionTrace*>& traces) {
  std::vector<NodeOutput> all;
  for (const FunctionTrace* trace : traces) {
    for (const GraphContext::Capture& capture : trace->captures) {
      if (std::find(all.begin(), all.end(), capture.outer) == all.end()) {
        all.push_back(capture.outer);
      }
    }
  }
  return all;
}

bool HasStatefulNodes(const Function& function) {
  for (const Node* node : function.body().nodes()) {
    if (node->op().stateful) return true;
  }
  return false;
}

bool Repeatable(const Node& node) {
  if (!node.op().stateful || kReadVariableOp.is(node.op())) return true;
  if (!kIfOp.is(node.op()) && !kWhileOp.is(node.op()) &&
      !kStatefulPartitionedCallOp.is(node.op())) {
    return false;
  }
  for (const AttrValue& value : node.attrs()) {
    const auto* func = std::get_if<FuncAttr>(&value);
    const auto* function = func ? dynamic_cast<const Function*>(func->body.get()) : nullptr;
    if (func == nullptr) continue;
    if (function == nullptr) return false;
    for (const Node* inner : function->body().nodes()) {
      if (!Repeatable(*inner)) return false;
    }
  }
  return true;
}

namespace {

// A resource argument the body both updates and reads: a repeated read would see the update.
const Node* VariableUpdatedAndRead(const Function& function) {
  std::vector<char> read(function.body().num_nodes(), 0), updated(read.size(), 0);
  for (const Node* node : function.body().nodes()) {
    for (const NodeOutput& in : node->inputs()) {
      if (in.node->output_dtype(in.index) != kResource) continue;
      (Repeatable(*node) ? read : updated)[in.node->id()] = 1;
    }
  }
  for (const Node* arg : function.args()) {
    if (read[arg->id()] && updated[arg->id()]) return arg;
  }
  return nullptr;
}

// The body nodes the results depend on (ids are a topological order).
std::vector<char> NeededNodes(const Function& function) {
  std::vector<char> needed(function.body().num_nodes(), 0);
  for (const NodeOutput& result : function.results()) needed[result.node->id()] = 1;
  for (int id = function.body().num_nodes(); id-- > 0;) {
    if (!needed[id]) continue;
    for (const NodeOutput& in : function.body().node(id)->inputs()) needed[in.node->id()] = 1;
  }
  return needed;
}

[[noreturn]] void NotRepeatable(const Function& function, const Node& node, absl::string_view why) {
  throw Error(absl::UnimplementedError(
      absl::StrCat("function '", function.name(),
                   "': its gradient repeats the ops its results depend on, but node '", node.name(),
                   "' (", node.op().name, ") ", why)));
}

}  // namespace

std::vector<Tensor> InlineFunction(const Function& function, const std::vector<Tensor>& args) {
  std::vector<OutputList> values;
  return InlineFunction(function, args, &values);
}

std::vector<Tensor> InlineFunction(const Function& function, const std::vector<Tensor>& args,
                                   std::vector<OutputList>* values_out) {
  if (const Node* arg = VariableUpdatedAndRead(function)) {
    NotRepeatable(function, *arg,
                  "is a variable the function both updates and reads; read it outside the cond "
                  "to differentiate");
  }
  const Graph& body = function.body();
  const std::vector<char> needed = NeededNodes(function);
  std::vector<OutputList> values(body.num_nodes());  // per body node, its outputs in the caller
  for (size_t i = 0; i < args.size() && i < function.args().size(); ++i) {
    values[function.args()[i]->id()] = {args[i]};
  }
  for (const Node* node : body.nodes()) {
    if (!needed[node->id()] || !values[node->id()].empty()) continue;  // unused, or an argument
    if (const Tensor* bound = node->bound_value()) {
      values[node->id()] = {*bound};
      continue;
    }
    if (kPlaceholderOp.is(node->op())) NotRepeatable(function, *node, "is not an argument");
    if (!Repeatable(*node)) NotRepeatable(function, *node, "is stateful");
    TensorList inputs;
    for (const NodeOutput& in : node->inputs()) inputs.push_back(values[in.node->id()][in.index]);
    OpCall call(&node->op(), std::move(inputs), OpSite(node->name(), node->location()));
    call.attrs = node->attrs();
    values[node->id()] = RunOp(call);
  }
  if (GraphContext* context = GraphContext::Current()) {  // Note [Inlined aliases]
    for (const Node* node : body.nodes()) {
      const OutputList& copies = values[node->id()];
      for (size_t i = 0; i < copies.size(); ++i) {
        context->AddAlias({node, static_cast<int>(i)}, copies[i]);
      }
    }
  }
  std::vector<Tensor> results;
  for (const NodeOutput& r : function.results()) results.push_back(values[r.node->id()][r.index]);
  *values_out = std::move(values);
  return results;
}

}  // namespace duet
