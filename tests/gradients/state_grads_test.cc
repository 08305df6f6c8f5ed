// The gradient of ReadVariableOp: d(f(v))/dv for a variable v, against finite differences taken
// by assigning perturbed values.
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

DUET_GRADIENT_TEST("ReadVariableOp", "reaches the variable") {
  const Tensor initial = RandomInput({2, 3}, 7);
  Variable v(initial, "v");
  const Tensor w = RandomInput({2, 3}, 8);
  const auto loss = [&] { return reduce_sum(v.value() * v.value() * w); };

  GradientTape tape;
  const Tensor y = loss();
  const std::vector<std::string> recorded = tape_internal::RecordedOpNames(tape);
  REQUIRE(std::count(recorded.begin(), recorded.end(), "ReadVariableOp") == 2);
  const std::vector<double> analytic = ToDoubles(tape.gradient(y, {v})[0]);

  std::vector<double> x = initial.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i) {
    const double h = 1e-6;
    std::vector<double> up = x, down = x;
    up[i] += h;
    down[i] -= h;
    v.assign(from_vector(up, {2, 3}));
    const double f_up = loss().item<double>();
    v.assign(from_vector(down, {2, 3}));
    const double f_down = loss().item<double>();
    CHECK(analytic[i] == Approx((f_up - f_down) / (2 * h)).epsilon(1e-6));
  }
}

}  // namespace
}  // namespace duet::testing
