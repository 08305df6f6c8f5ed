// Gradients of If/StatelessIf and While/StatelessWhile through the checker (tape vs finite
// differences, graph vs eager, gradients() vs tape), calling the ops directly so the tape records
// them; while_loop's gradients in graphs, traced functions and eager loops.
#include "graph/control_flow.h"
#include "graph/function.h"
#include "ops/list/list_ops.h"
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

using LoopCond = std::function<Tensor(const std::vector<Tensor>&)>;

// A While over `vars` (StatelessWhile when cond and body are pure) whose functions are traced from
// `cond` and `body`, eagerly or in the current graph: the op itself, so the tape records it.
std::vector<Tensor> RunWhile(const LoopCond& cond, const Branch& body,
                             const std::vector<Tensor>& vars) {
  std::vector<ArgSpec> specs;
  for (const Tensor& v : vars) specs.emplace_back(v.dtype(), v.shape(), v.device());
  FunctionTrace cond_trace =
      TraceFunction(GraphContext::Current(), specs,
                    [&](const std::vector<Tensor>& v) { return std::vector<Tensor>{cond(v)}; });
  FunctionTrace body_trace = TraceFunction(GraphContext::Current(), specs, body);
  return graph_internal::CallWhile(std::move(cond_trace), std::move(body_trace), vars, {});
}

// Four iterations of x -> tanh(x * w) + x, w passed on unchanged (a loop invariant).
std::vector<Tensor> FixedTripCount(const std::vector<Tensor>& in) {
  const std::vector<Tensor> out =
      RunWhile([](const std::vector<Tensor>& v) { return v[0] < 4; },
               [](const std::vector<Tensor>& v) {
                 return std::vector<Tensor>{v[0] + 1, duet::tanh(v[1] * v[2]) + v[1], v[2]};
               },
               {constant(0), in[0], in[1]});
  return {out[1], out[2] * 2.0};
}

// y -> 1.5 y + w until sum(y^2) >= 20: the trip count depends on the inputs (4 for these).
std::vector<Tensor> DataDependentTripCount(const std::vector<Tensor>& in) {
  const std::vector<Tensor> out =
      RunWhile([](const std::vector<Tensor>& v) { return reduce_sum(v[0] * v[0]) < 20.0; },
               [](const std::vector<Tensor>& v) {
                 return std::vector<Tensor>{v[0] * 1.5 + v[1], v[1]};
               },
               {in[0], in[1]});
  return {out[0]};
}

DUET_GRADIENT_TEST("StatelessWhile", "fixed and data-dependent trip counts, loop invariants") {
  const std::vector<Tensor> in = {RandomInput({2, 3}, 5), RandomInput({2, 3}, 6)};
  CheckGradients("StatelessWhile", FixedTripCount, in);
  const std::vector<Tensor> start = {RandomInput({4}, 7, 0.5, 1), RandomInput({4}, 8, 0.2, 0.4)};
  CheckGradients("StatelessWhile", DataDependentTripCount, start);
  // No iteration: the outputs are the inputs.
  CheckGradients("StatelessWhile",
                 [](const std::vector<Tensor>& x) {
                   return RunWhile(
                       [](const std::vector<Tensor>& v) { return reduce_sum(v[0]) > 100.0; },
                       [](const std::vector<Tensor>& v) { return std::vector<Tensor>{v[0] * 2.0}; },
                       x);
                 },
                 {RandomInput({3}, 9)});
}

DUET_GRADIENT_TEST("StatelessWhile", "nested loops and a cond in the body") {
  const std::vector<Tensor> in = {RandomInput({3}, 10), RandomInput({3}, 11)};
  CheckGradients(
      "StatelessWhile",
      [](const std::vector<Tensor>& x) {
        const std::vector<Tensor> out = RunWhile(
            [](const std::vector<Tensor>& v) { return v[0] < 3; },
            [](const std::vector<Tensor>& v) {
              const std::vector<Tensor> inner = RunWhile(
                  [](const std::vector<Tensor>& u) { return u[0] < 2; },
                  [](const std::vector<Tensor>& u) {
                    return std::vector<Tensor>{u[0] + 1, duet::sin(u[1]) * u[2] + u[1], u[2]};
                  },
                  {constant(0), v[1], v[2]});
              const Tensor stepped = cond(
                  reduce_sum(inner[1]) > 0.0, [&] { return inner[1] * v[2]; },
                  [&] { return inner[1] - v[2]; });
              return std::vector<Tensor>{v[0] + 1, stepped, v[2]};
            },
            {constant(0), x[0], x[1]});
        return std::vector<Tensor>{out[1]};
      },
      in);
}

DUET_GRADIENT_TEST("While", "of a body that reads a variable") {
  Variable v(RandomInput({3}, 12), "v");
  CheckGradients("While",
                 [&](const std::vector<Tensor>& x) {
                   const std::vector<Tensor> out = RunWhile(
                       [](const std::vector<Tensor>& s) { return s[0] < 3; },
                       [&](const std::vector<Tensor>& s) {
                         return std::vector<Tensor>{s[0] + 1, s[1] * v.value() + duet::sin(s[1])};
                       },
                       {constant(0), x[0]});
                   return std::vector<Tensor>{out[1]};
                 },
                 {RandomInput({3}, 13)});
}

// A Keras RNN's loop: h_t = tanh(x_t * w + h_{t-1}), x_t read from a list of the input's rows
// (an invariant), h_t written to a list (a changing loop variable) stacked after the loop.
std::vector<Tensor> ListLoop(const std::vector<Tensor>& in) {
  const Tensor rows = constant(std::vector<int32_t>{3}, Shape({1}));
  const Tensor inputs = tensor_list_from_tensor(in[0], rows);
  const Tensor steps = constant(static_cast<int32_t>(in[0].shape().dim(0)));
  const std::vector<Tensor> out = RunWhile(
      [&](const std::vector<Tensor>& v) { return v[0] < v[4]; },
      [&](const std::vector<Tensor>& v) {
        const Tensor x = tensor_list_get_item(v[3], v[0], rows, kFloat64);
        const Tensor h = duet::tanh(x * v[5] + v[1]);
        return std::vector<Tensor>{v[0] + 1, h,    tensor_list_set_item(v[2], v[0], h),
                                   v[3],     v[4], v[5]};
      },
      {constant(0), in[2], tensor_list_reserve(rows, steps, kFloat64), inputs, steps, in[1]});
  return {tensor_list_stack(out[2], rows, kFloat64) * 0.5, out[1] * 2.0};
}

DUET_GRADIENT_TEST("StatelessWhile", "of a loop reading and writing TensorLists") {
  CheckGradients("StatelessWhile", ListLoop,
                 {RandomInput({5, 3}, 14), RandomInput({3}, 15), RandomInput({3}, 16)});
}

// A recurrent loop h -> tanh(h w + h) for `trips` iterations, w (5, 5) an invariant: with a batch
// of 2, w's size (25) exceeds h's and the upstream's together (20), so the backward loop stacks
// them and w's gradient is one matmul after it (Note [Loop-invariant matmul gradients]).
std::vector<Tensor> MatMulLoop(const std::vector<Tensor>& in, int trips) {
  const std::vector<Tensor> out =
      RunWhile([trips](const std::vector<Tensor>& v) { return v[0] < trips; },
               [](const std::vector<Tensor>& v) {
                 return std::vector<Tensor>{v[0] + 1, duet::tanh(matmul(v[1], v[2])) + v[1], v[2]};
               },
               {constant(0), in[0], in[1]});
  return {out[1]};
}

DUET_GRADIENT_TEST("StatelessWhile",
                   "an invariant matrix's gradient as one matmul after the loop") {
  const std::vector<Tensor> in = {RandomInput({2, 5}, 17, -0.5, 0.5), RandomInput({5, 5}, 18)};
  for (int trips : {0, 1, 4}) {
    INFO("trips " << trips);
    CheckGradients(
        "StatelessWhile", [trips](const std::vector<Tensor>& x) { return MatMulLoop(x, trips); },
        in);
  }
  // In a graph: w's gradient is a MatMul of the stacked lists outside the loops.
  Graph g;
  GraphScope scope(g);
  const Tensor h = placeholder(kFloat64, Shape({2, 5}));
  const Tensor w = placeholder(kFloat64, Shape({5, 5}));
  const Tensor dw = gradients({reduce_sum(MatMulLoop({h, w}, 3)[0])}, {w})[0];
  CHECK(dw.shape() == Shape({5, 5}));
  const Node* node = SymbolicOutput(dw)->node;
  CHECK(node->op().name == "MatMul");
  CHECK(node->inputs()[0].node->op().name == "Reshape");
}

// The backward loop reads the forward's values from its accumulators: a second-order gradient is
// refused rather than computed without the path through them.
TEST_CASE("Second-order gradients of While are refused with a clear error") {
  const Tensor x = constant({1.0, 2.0});
  GradientTape outer;
  outer.watch(x);
  Tensor dx;
  {
    GradientTape inner;
    inner.watch(x);
    dx = inner.gradient(reduce_sum(FixedTripCount({x, x})[0]), {x})[0];
  }
  ExpectError([&] { outer.gradient(reduce_sum(dx), {x}); },
              {"While", "second-order gradients of while loops"});
}

}  // namespace
}  // namespace duet::testing
