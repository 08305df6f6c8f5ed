// A reversible block in the spirit of RevNet (Gomez et al. 2017): backprop without stored
// activations — reconstruct the inputs from the outputs and differentiate each half with its own
// tape and output_gradients — must equal ordinary backprop.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

struct Dense {
  Variable w, b;
  Tensor operator()(const Tensor& x) const { return tanh(matmul(x, w) + b); }
};

Dense MakeDense(int64_t seed) {
  return {Variable(random_normal({3, 3}, seed, kFloat64, 0, 0.5), "w"),
          Variable(random_normal({3}, seed + 1, kFloat64, 0, 0.5), "b")};
}

TEST_CASE("reversible backprop equals ordinary backprop") {
  const Dense f = MakeDense(1), g = MakeDense(3);
  const Tensor x1 = random_normal({4, 3}, 5, kFloat64), x2 = random_normal({4, 3}, 6, kFloat64);
  // Any loss of the outputs: its upstream gradients are what the next block would pass down.
  const Tensor a = random_normal({4, 3}, 7, kFloat64), c = random_normal({4, 3}, 8, kFloat64);
  auto loss = [&](const Tensor& y1, const Tensor& y2) {
    return reduce_sum(y1 * a) + reduce_sum(y2 * y2 * c);
  };

  // Ordinary backprop through the whole block.
  std::vector<Tensor> expected;
  Tensor y1, y2;
  {
    GradientTape tape;
    tape.watch(x1);
    tape.watch(x2);
    y1 = x1 + f(x2);
    y2 = x2 + g(y1);
    expected = tape.gradient(loss(y1, y2), {x1, x2, f.w, f.b, g.w, g.b});
  }

  // Reversible: only y1, y2 and the loss's gradients with respect to them are kept.
  std::vector<Tensor> dy;
  {
    GradientTape tape;
    tape.watch(y1);
    tape.watch(y2);
    dy = tape.gradient(loss(y1, y2), {y1, y2});
  }
  const Tensor x2_rebuilt = y2 - g(y1);
  const Tensor x1_rebuilt = y1 - f(x2_rebuilt);
  testing::ExpectTensorNear(x2_rebuilt, x2, 1e-12);
  testing::ExpectTensorNear(x1_rebuilt, x1, 1e-12);

  std::vector<Tensor> through_g;  // d/dy1 of y2's G branch, and G's weights
  {
    GradientTape tape;
    tape.watch(y1);
    Tensor z = g(y1);
    through_g = tape.gradient(z, {y1, g.w, g.b}, {dy[1]});
  }
  const Tensor dy1_total = dy[0] + through_g[0];
  std::vector<Tensor> through_f;
  {
    GradientTape tape;
    tape.watch(x2_rebuilt);
    Tensor z = f(x2_rebuilt);
    through_f = tape.gradient(z, {x2_rebuilt, f.w, f.b}, {dy1_total});
  }
  const std::vector<Tensor> reversible = {dy1_total,    dy[1] + through_f[0], through_f[1],
                                          through_f[2], through_g[1],         through_g[2]};
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("gradient " << i);
    testing::ExpectTensorNear(reversible[i], expected[i], 1e-6);
  }
}

}  // namespace
}  // namespace duet
