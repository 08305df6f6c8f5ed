#include "graph/control_flow.h"

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "graph/function.h"
#include "graph/graph_ops.h"
#include "ops/attr_value.h"
#include "ops/control_flow/control_flow_attrs.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/op_registry.h"

namespace duet {
namespace {

[[noreturn]] void Fail(absl::string_view what, absl::string_view message) {
  throw Error(absl::InvalidArgumentError(absl::StrCat(what, ": ", message)));
}

std::string DTypesString(const std::vector<DType>& dtypes) { return AttrValueString(dtypes); }

std::string DTypesString(const std::vector<Tensor>& tensors) {
  std::vector<DType> dtypes;
  for (const Tensor& t : tensors) dtypes.push_back(t.dtype());
  return DTypesString(dtypes);
}

void CheckPredicate(absl::string_view what, const Tensor& pred) {
  if (!pred.defined() || pred.dtype() != kBool || !pred.shape().IsCompatibleWith(Shape())) {
    Fail(what, absl::StrCat("the predicate must be a bool scalar, got ",
                            pred.defined()
                                ? absl::StrCat(DTypeName(pred.dtype()), " ", pred.shape().str())
                                : "an undefined tensor"));
  }
}

bool HasStatefulNodes(const FunctionTrace& trace) {
  for (const Node* node : trace.body->nodes()) {
    if (node->op().stateful) return true;
  }
  return false;
}

std::vector<DType> ResultDTypes(const FunctionTrace& trace) {
  std::vector<DType> dtypes;
  for (const NodeOutput& r : trace.results) dtypes.push_back(r.node->output_dtype(r.index));
  return dtypes;
}

// Calls `op` with `inputs` followed by the captured outer values, its attrs set by `set_attrs`.
OutputList CallFunctional(const OpRef& op, std::vector<Tensor> inputs,
                          const std::vector<NodeOutput>& captures,
                          absl::FunctionRef<void(OpCall&)> set_attrs, OpSite site) {
  TensorList all(inputs.begin(), inputs.end());
  for (const NodeOutput& capture : captures) all.push_back(capture.node->output(capture.index));
  OpCall call(&op.def(), std::move(all), site);
  set_attrs(call);
  return RunOp(call);
}

std::vector<Tensor> GraphCond(GraphContext& outer, const Tensor& pred,
                              const std::function<std::vector<Tensor>()>& then_fn,
                              const std::function<std::vector<Tensor>()>& else_fn, OpSite site) {
  auto no_args = [](const std::function<std::vector<Tensor>()>& fn) {
    return [&fn](const std::vector<Tensor>&) { return fn(); };
  };
  FunctionTrace then_trace = TraceFunction(&outer, {}, no_args(then_fn));
  FunctionTrace else_trace = TraceFunction(&outer, {}, no_args(else_fn));
  const std::vector<DType> tout = ResultDTypes(then_trace);
  if (tout != ResultDTypes(else_trace)) {
    Fail("cond", absl::StrCat("then_fn returns ", DTypesString(tout), " but else_fn returns ",
                              DTypesString(ResultDTypes(else_trace)),
                              "; both branches must return the same number of tensors and dtypes"));
  }
  const bool stateful = HasStatefulNodes(then_trace) || HasStatefulNodes(else_trace);
  const std::vector<NodeOutput> captures = UnionOfCaptures({&then_trace, &else_trace});
  FuncAttr then_branch{UniqueFunctionName("cond_then"), nullptr};
  FuncAttr else_branch{UniqueFunctionName("cond_else"), nullptr};
  then_branch.body = WithCaptures(std::move(then_trace), then_branch.name, captures);
  else_branch.body = WithCaptures(std::move(else_trace), else_branch.name, captures);
  OutputList outputs = CallFunctional(
      stateful ? kIfOp : kStatelessIfOp, {pred}, captures,
      [&](OpCall& call) {
        call.set(IfAttrs::kTout, tout);
        call.set(IfAttrs::kThenBranch, std::move(then_branch));
        call.set(IfAttrs::kElseBranch, std::move(else_branch));
      },
      site);
  return std::vector<Tensor>(outputs.begin(), outputs.end());
}

// Traces the loop body until the loop variables' shapes are invariant: each retrace relaxes the
// dims the body changed, so it ends after at most one retrace per dim.
FunctionTrace TraceBody(
    GraphContext& outer, std::vector<ArgSpec>& vars,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn) {
  for (;;) {
    FunctionTrace trace = TraceFunction(&outer, vars, body_fn);
    if (trace.results.size() != vars.size()) {
      Fail("while_loop", absl::StrCat("body_fn returns ", trace.results.size(), " tensors for ",
                                      vars.size(), " loop variables"));
    }
    bool invariant = true;
    for (size_t k = 0; k < vars.size(); ++k) {
      const NodeOutput& r = trace.results[k];
      if (r.node->output_dtype(r.index) != vars[k].dtype) {
        Fail("while_loop",
             absl::StrCat("body_fn returns ", DTypeName(r.node->output_dtype(r.index)),
                          " for loop variable ", k, ", which is ", DTypeName(vars[k].dtype)));
      }
      const Shape relaxed = vars[k].shape.MostSpecificCompatible(r.node->output_shape(r.index));
      if (relaxed != vars[k].shape) invariant = false;
      vars[k].shape = relaxed;
    }
    if (invariant) return trace;
  }
}

std::vector<Tensor> GraphWhileLoop(
    GraphContext& outer, const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    const std::vector<Tensor>& loop_vars, OpSite site) {
  std::vector<ArgSpec> vars;
  for (const Tensor& v : loop_vars) vars.emplace_back(v.dtype(), v.shape(), v.device());
  FunctionTrace body = TraceBody(outer, vars, body_fn);
  FunctionTrace cond = TraceFunction(&outer, vars, [&](const std::vector<Tensor>& args) {
    Tensor keep_going = cond_fn(args);
    CheckPredicate("while_loop: cond_fn", keep_going);
    return std::vector<Tensor>{keep_going};
  });
  return graph_internal::CallWhile(std::move(cond), std::move(body), loop_vars, site);
}

}  // namespace

namespace graph_internal {

std::vector<Tensor> CallWhile(FunctionTrace cond, FunctionTrace body,
                              const std::vector<Tensor>& loop_vars, OpSite site,
                              const std::string& name) {
  const bool stateful = HasStatefulNodes(cond) || HasStatefulNodes(body);
  const std::vector<NodeOutput> captures = UnionOfCaptures({&cond, &body});
  FuncAttr cond_attr{UniqueFunctionName(name + "_cond"), nullptr};
  FuncAttr body_attr{UniqueFunctionName(name + "_body"), nullptr};
  cond_attr.body = WithCaptures(std::move(cond), cond_attr.name, captures);
  body_attr.body = WithCaptures(std::move(body), body_attr.name, captures, /*pass_captures=*/true);
  OutputList outputs = CallFunctional(
      stateful ? kWhileOp : kStatelessWhileOp, loop_vars, captures,
      [&](OpCall& call) {
        call.set(WhileAttrs::kCond, std::move(cond_attr));
        call.set(WhileAttrs::kBody, std::move(body_attr));
      },
      site);
  return std::vector<Tensor>(outputs.begin(), outputs.begin() + loop_vars.size());
}

}  // namespace graph_internal

std::vector<Tensor> cond(const Tensor& pred, const std::function<std::vector<Tensor>()>& then_fn,
                         const std::function<std::vector<Tensor>()>& else_fn, OpSite site) {
  CheckPredicate("cond", pred);
  if (GraphContext* outer = GraphContext::Current()) {
    return GraphCond(*outer, pred, then_fn, else_fn, site);
  }
  return pred.item<bool>() ? then_fn() : else_fn();
}

std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    std::vector<Tensor> loop_vars, OpSite site) {
  return while_loop(cond_fn, body_fn, std::move(loop_vars), WhileOptions(), site);
}

std::vector<Tensor> while_loop(
    const std::function<Tensor(const std::vector<Tensor>&)>& cond_fn,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body_fn,
    std::vector<Tensor> loop_vars, const WhileOptions& options, OpSite site) {
  for (const Tensor& v : loop_vars) {
    if (!v.defined()) Fail("while_loop", "a loop variable is undefined");
  }
  const int64_t max = options.maximum_iterations;
  if (GraphContext* outer = GraphContext::Current()) {
    if (max < 0) return GraphWhileLoop(*outer, cond_fn, body_fn, loop_vars, site);
    // The counter comes first, as in TensorFlow's graphs.
    auto rest = [](const std::vector<Tensor>& vars) {
      return std::vector<Tensor>(vars.begin() + 1, vars.end());
    };
    loop_vars.insert(loop_vars.begin(), constant(0));
    const Tensor limit = constant(static_cast<int32_t>(max));
    std::vector<Tensor> out = GraphWhileLoop(
        *outer,
        [&](const std::vector<Tensor>& vars) {
          const Tensor keep_going = cond_fn(rest(vars));
          CheckPredicate("while_loop: cond_fn", keep_going);
          return logical_and(vars[0] < limit, keep_going);
        },
        [&](const std::vector<Tensor>& vars) {
          std::vector<Tensor> next = body_fn(rest(vars));
          next.insert(next.begin(), vars[0] + 1);
          return next;
        },
        loop_vars, site);
    return rest(out);
  }
  for (int64_t iteration = 0; max < 0 || iteration < max; ++iteration) {
    const Tensor keep_going = cond_fn(loop_vars);
    CheckPredicate("while_loop: cond_fn", keep_going);
    if (!keep_going.item<bool>()) return loop_vars;
    std::vector<Tensor> next = body_fn(loop_vars);
    if (next.size() != loop_vars.size()) {
      Fail("while_loop", absl::StrCat("body_fn returns ", next.size(), " tensors for ",
                                      loop_vars.size(), " loop variables"));
    }
    for (size_t k = 0; k < next.size(); ++k) {
      if (!next[k].defined() || next[k].dtype() != loop_vars[k].dtype()) {
        Fail("while_loop", absl::StrCat("body_fn returns ", DTypesString(next),
                                        " for loop variables ", DTypesString(loop_vars)));
      }
    }
    loop_vars = std::move(next);
  }
  return loop_vars;
}

}  // namespace duet
