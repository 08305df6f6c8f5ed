// Gradients of PartitionedCall/StatefulPartitionedCall (duet::function's calls) through the
// checker: tape vs finite differences, graph vs eager, gradients() vs tape, second order.
#include "graph/function.h"
#include "ops/control_flow/control_flow_ops.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// Calls a function traced from a two-output body on `args`, eagerly or in the current graph.
std::vector<Tensor> CallTraced(bool stateful, const std::vector<Tensor>& args) {
  std::vector<ArgSpec> specs;
  for (const Tensor& a : args) specs.emplace_back(a.dtype(), a.shape(), a.device());
  FunctionTrace trace =
      TraceFunction(GraphContext::Current(), specs, [](const std::vector<Tensor>& a) {
        return std::vector<Tensor>{duet::tanh(a[0]) * a[1], duet::exp(a[0] * 0.5) + a[0] * a[0]};
      });
  REQUIRE(trace.captures.empty());
  auto f = WithCaptures(std::move(trace), UniqueFunctionName("f"), {});
  return call_function(f, args, stateful);
}

DUET_GRADIENT_TEST("PartitionedCall", "through the called function, and of second order") {
  const std::vector<Tensor> in = {RandomInput({2, 3}, 1), RandomInput({2, 3}, 2)};
  auto f = [](const std::vector<Tensor>& x) { return CallTraced(false, x); };
  CheckGradients("PartitionedCall", f, in);
  CheckSecondOrderGradients("PartitionedCall", f, in);
}

DUET_GRADIENT_TEST("StatefulPartitionedCall", "through the called function") {
  const std::vector<Tensor> in = {RandomInput({3}, 3), RandomInput({3}, 4)};
  CheckGradients(
      "StatefulPartitionedCall", [](const std::vector<Tensor>& x) { return CallTraced(true, x); },
      in);
}

}  // namespace
}  // namespace duet::testing
