#include "graph/function.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "ops/array/array_ops.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

// A Placeholder for an argument, added to a body after tracing (an unused capture).
const Node* AddArgument(Graph& body, DType dtype, const Shape& shape) {
  NodeSpec spec;
  spec.op = OpRegistry::Global().Find("Placeholder");
  spec.attrs = spec.op->default_attrs;
  spec.attrs[spec.op->attr_index("dtype")] = dtype;
  spec.attrs[spec.op->attr_index("shape")] = shape;
  spec.output_dtypes = {dtype};
  spec.output_shapes = {shape};
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
    if (node->op().name == "VarHandleOp" && node->bound_value() == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("function '", name, "': node '", node->name(),
                       "' makes a variable inside the function; pass variables as arguments"));
    }
  }
  for (const Node* arg : args) {
    if (arg->op().name != "Placeholder") {
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

absl::StatusOr<std::vector<Tensor>> Function::Call(absl::Span<const Tensor> args) const {
  std::call_once(compiled_, [&] {
    std::vector<NodeOutput> feeds;
    for (const Node* arg : args_) feeds.push_back({arg, 0});
    std::vector<const Node*> stateful;  // Note [Functions]: side effects always run
    for (const Node* node : body_.nodes()) {
      if (node->op().stateful) stateful.push_back(node);
    }
    absl::StatusOr<std::unique_ptr<Plan>> plan =
        Plan::Compile(body_, feeds, results_, stateful, [](const Node&) { return Tensor(); });
    if (plan.ok()) {
      plan_ = *std::move(plan);
    } else {
      compile_status_ = absl::Status(
          plan.status().code(), absl::StrCat("function '", name_, "': ", plan.status().message()));
    }
  });
  DUET_RETURN_IF_ERROR(compile_status_);
  DUET_RETURN_IF_ERROR(CheckArgs(args));
  return plan_->Run(std::vector<Tensor>(args.begin(), args.end()));
}

std::string UniqueFunctionName(absl::string_view base) {
  static std::atomic<int64_t> counter{0};
  return absl::StrCat(base, "_", counter.fetch_add(1, std::memory_order_relaxed));
}

FunctionTrace TraceFunction(GraphContext* outer, const std::vector<ArgSpec>& args,
                            absl::FunctionRef<std::vector<Tensor>(const std::vector<Tensor>&)> fn) {
  FunctionTrace trace;
  trace.body = std::make_unique<Graph>();
  GraphScope scope(*trace.body, outer);
  std::vector<Tensor> arg_tensors;
  for (size_t i = 0; i < args.size(); ++i) {
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

std::vector<Tensor> InlineFunction(const Function& function, const std::vector<Tensor>& args) {
  const Graph& body = function.body();
  // Per body node, its outputs in the caller; undefined for the outputs of skipped nodes.
  std::vector<OutputList> values(body.num_nodes());
  std::vector<const Node*> skipped(body.num_nodes(), nullptr);
  for (size_t i = 0; i < args.size() && i < function.args().size(); ++i) {
    values[function.args()[i]->id()] = {args[i]};
  }
  auto value_of = [&](const NodeOutput& out) -> const Tensor& {
    if (const Node* node = skipped[out.node->id()]) {
      throw Error(absl::UnimplementedError(absl::StrCat(
          "function '", function.name(), "': differentiating it repeats its ops, but node '",
          node->name(), "' (", node->op().name,
          ") is stateful and its result is needed; compute it outside the cond")));
    }
    return values[out.node->id()][out.index];
  };
  for (const Node* node : body.nodes()) {
    if (!values[node->id()].empty()) continue;  // an argument
    if (const Tensor* bound = node->bound_value()) {
      values[node->id()] = {*bound};
      continue;
    }
    if (node->op().name == "Placeholder" ||
        (node->op().stateful && node->op().name != "ReadVariableOp")) {
      skipped[node->id()] = node;
      continue;
    }
    TensorList inputs;
    for (const NodeOutput& in : node->inputs()) inputs.push_back(value_of(in));
    OpCall call(&node->op(), std::move(inputs), OpSite(node->name(), node->location()));
    call.attrs = node->attrs();
    values[node->id()] = RunOp(call);
  }
  std::vector<Tensor> results;
  for (const NodeOutput& result : function.results()) results.push_back(value_of(result));
  return results;
}

}  // namespace duet
