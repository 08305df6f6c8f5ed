// Gradients of If/StatelessIf through the checker (tape vs finite differences, graph vs eager,
// gradients() vs tape), calling the ops directly so the tape records them, and the While
// gradient's refusal.
#include "graph/function.h"
#include "ops/op_registry.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Branch = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Calls `op` (If or StatelessIf) on `args` with branches traced from `then_fn` and `else_fn`,
// eagerly or in the current graph, as cond does but with explicit arguments.
std::vector<Tensor> CallIf(const std::string& op_name, const Tensor& pred, const Branch& then_fn,
                           const Branch& else_fn, const std::vector<Tensor>& args) {
  std::vector<ArgSpec> specs;
  for (const Tensor& a : args) specs.emplace_back(a.dtype(), a.shape(), a.device());
  FunctionTrace then_trace = TraceFunction(GraphContext::Current(), specs, then_fn);
  FunctionTrace else_trace = TraceFunction(GraphContext::Current(), specs, else_fn);
  const std::vector<NodeOutput> captures = UnionOfCaptures({&then_trace, &else_trace});
  REQUIRE(captures.empty());
  const OpDef* op = OpRegistry::Global().Find(op_name);
  OpCall call(op, TensorList(), {});
  call.inputs.push_back(pred);
  for (const Tensor& a : args) call.inputs.push_back(a);
  auto then_body = WithCaptures(std::move(then_trace), UniqueFunctionName("then"), captures);
  call.attrs[op->attr_index("Tout")] = then_body->result_dtypes();
  call.attrs[op->attr_index("then_branch")] = FuncAttr{then_body->name(), then_body};
  auto else_body = WithCaptures(std::move(else_trace), UniqueFunctionName("else"), captures);
  call.attrs[op->attr_index("else_branch")] = FuncAttr{else_body->name(), else_body};
  const OutputList out = RunOp(call);
  return std::vector<Tensor>(out.begin(), out.end());
}

// Two outputs per branch; the else branch ignores its second argument.
std::vector<Tensor> Branches(const std::string& op, bool take_then, const std::vector<Tensor>& in) {
  return CallIf(
      op, constant(take_then),
      [](const std::vector<Tensor>& a) {
        return std::vector<Tensor>{duet::tanh(a[0]) * a[1], a[0] * a[0]};
      },
      [](const std::vector<Tensor>& a) {
        return std::vector<Tensor>{duet::exp(a[0]), a[0] * 3.0};
      },
      in);
}

DUET_GRADIENT_TEST("StatelessIf", "through either branch") {
  const std::vector<Tensor> in = {RandomInput({2, 3}, 1), RandomInput({2, 3}, 2)};
  for (bool take_then : {true, false}) {
    INFO("then branch: " << take_then);
    CheckGradients(
        "StatelessIf",
        [&](const std::vector<Tensor>& x) { return Branches("StatelessIf", take_then, x); }, in);
  }
}

DUET_GRADIENT_TEST("If", "through either branch, and of second order") {
  const std::vector<Tensor> in = {RandomInput({3}, 3), RandomInput({3}, 4)};
  for (bool take_then : {true, false}) {
    INFO("then branch: " << take_then);
    CheckGradients(
        "If", [&](const std::vector<Tensor>& x) { return Branches("If", take_then, x); }, in);
    CheckSecondOrderGradients(
        "If", [&](const std::vector<Tensor>& x) { return Branches("If", take_then, x); }, in);
  }
}

// While has no gradient yet: the tape and gradients() say so instead of returning zeros.
void CheckWhileRefuses(const std::string& op) {
  const Tensor x = constant(1.5);
  GradientTape tape;
  tape.watch(x);
  std::vector<ArgSpec> specs = {{kInt32, Shape(), Device::cpu()},
                                {kFloat64, Shape(), Device::cpu()}};
  auto cond = TraceFunction(
      nullptr, specs, [](const std::vector<Tensor>& v) { return std::vector<Tensor>{v[0] < 3}; });
  auto body = TraceFunction(nullptr, specs, [](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{v[0] + 1, v[1] * v[1]};
  });
  const OpDef* def = OpRegistry::Global().Find(op);
  OpCall call(def, {constant(0), x}, {});
  auto cond_fn = WithCaptures(std::move(cond), UniqueFunctionName("cond"), {});
  auto body_fn = WithCaptures(std::move(body), UniqueFunctionName("body"), {});
  call.attrs[def->attr_index("cond")] = FuncAttr{cond_fn->name(), cond_fn};
  call.attrs[def->attr_index("body")] = FuncAttr{body_fn->name(), body_fn};
  const OutputList out = RunOp(call);
  CHECK(out[1].item<double>() == Approx(std::pow(1.5, 8)));
  ExpectError([&] { tape.gradient(out[1], {x}); },
              {op, "gradients of while_loop are not supported"});
}

DUET_GRADIENT_TEST("While", "is refused with a clear error") { CheckWhileRefuses("While"); }
DUET_GRADIENT_TEST("StatelessWhile", "is refused with a clear error") {
  CheckWhileRefuses("StatelessWhile");
}

}  // namespace
}  // namespace duet::testing
