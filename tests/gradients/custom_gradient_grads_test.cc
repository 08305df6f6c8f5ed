// DuetCustomGradient (custom_gradient in a graph) through the checker: a backward that is the true
// derivative must agree with finite differences eagerly (the tape's custom entry) and in graphs
// (the node's gradient calling the backward), including one that reads a forward value.
#include "eager/gradients_function.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

DUET_GRADIENT_TEST("DuetCustomGradient", "the user's backward, eagerly and in graphs") {
  // log(1 + exp(x)) with the backward written as 1 - 1 / (1 + e), reading the forward's e.
  auto log1pexp = custom_gradient([](Tensor x) {
    Tensor e = exp(x);
    return std::make_pair(
        log(1.0 + e), [e](Tensor dy) { return std::vector<Tensor>{dy * (1.0 - 1.0 / (1.0 + e))}; });
  });
  CheckGradients("DuetCustomGradient",
                 [&](const std::vector<Tensor>& x) { return std::vector<Tensor>{log1pexp(x[0])}; },
                 {RandomInput({2, 3}, 1)});
  // Two inputs, one gradient each.
  auto product = custom_gradient([](Tensor a, Tensor b) {
    return std::make_pair(a * b, [a, b](Tensor dy) { return std::vector<Tensor>{dy * b, dy * a}; });
  });
  CheckGradients(
      "DuetCustomGradient",
      [&](const std::vector<Tensor>& x) { return std::vector<Tensor>{product(x[0], x[1])}; },
      {RandomInput({3}, 2), RandomInput({3}, 3)});
}

}  // namespace
}  // namespace duet::testing
