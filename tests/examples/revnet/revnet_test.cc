// examples/revnet: the reversible backward pass (inputs rebuilt from outputs, one tape per
// residual unit) gives ordinary backprop's gradients for a whole RevNet with convolutions and
// batch norms in training mode, rebuilds the inputs, and updates the moving statistics as
// ordinary training does. Float64 within 1e-10 absolute, float32 within 1e-4 relative to the
// gradient's largest value (the rebuilt inputs differ from the originals by rounding, which the
// blocks below amplify). Each case prints its largest difference.
#include "examples/revnet/revnet.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using revnet::Halves;
using revnet::RevNet;
using revnet::StepResult;

double MaxAbs(const Tensor& t) {
  double m = 0;
  for (double v : testing::ToDoubles(t)) m = std::max(m, std::abs(v));
  return m;
}

double MaxAbsDiff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  const std::vector<double> x = testing::ToDoubles(a), y = testing::ToDoubles(b);
  double m = 0;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

// Images [4, 8, 8, 1] (the stem halves them to 4x4) and labels for 10 classes.
Tensor Images(DType dtype) { return random_normal({4, 8, 8, 1}, /*seed=*/11, dtype); }
Tensor Labels() { return cast(floor(random_uniform({4}, /*seed=*/12, kFloat32, 0, 10)), kInt64); }

// Compares every gradient; `relative` divides each difference by the tensor's largest value.
void ExpectSameGradients(const StepResult& reversible, const StepResult& regular,
                         const std::vector<Variable>& variables, double tol, bool relative,
                         const std::string& what) {
  REQUIRE(reversible.grads.size() == variables.size());
  REQUIRE(regular.grads.size() == variables.size());
  double worst = 0, worst_relative = 0;
  for (size_t i = 0; i < variables.size(); ++i) {
    INFO("gradient of " << variables[i].name());
    REQUIRE(reversible.grads[i].defined());
    const double diff = MaxAbsDiff(reversible.grads[i], regular.grads[i]);
    const double scale = std::max(MaxAbs(regular.grads[i]), 1e-30);
    CHECK((relative ? diff / scale : diff) <= tol);
    worst = std::max(worst, diff);
    worst_relative = std::max(worst_relative, diff / scale);
  }
  std::cout << what << ": max abs difference " << worst << " (relative " << worst_relative
            << ") over " << variables.size() << " gradients\n";
}

void ExpectRebuilt(const Halves& rebuilt, const Halves& original, double tol,
                   const std::string& what) {
  const double diff =
      std::max(MaxAbsDiff(rebuilt.h1, original.h1), MaxAbsDiff(rebuilt.h2, original.h2));
  std::cout << what << ": rebuilt inputs differ by at most " << diff << "\n";
  CHECK(diff <= tol);
}

void CheckReversibleEqualsRegular(DType dtype, double tol, bool relative) {
  RevNet model({.depth = 3, .channels = 8});
  const Tensor images = Images(dtype), labels = Labels();
  const StepResult regular = model.regular_gradients(images, labels);
  const StepResult reversible = model.reversible_gradients(images, labels);
  const std::string what(DTypeName(dtype));
  CHECK(MaxAbsDiff(reversible.loss, regular.loss) <= tol);
  ExpectSameGradients(reversible, regular, model.trainable_variables(), tol, relative, what);
  const Halves stem = model.stem(images);
  ExpectRebuilt(reversible.rebuilt_input, stem, relative ? tol * MaxAbs(stem.h1) : tol, what);
}

TEST_CASE("reversible gradients equal ordinary backprop's: float64") {
  CheckReversibleEqualsRegular(kFloat64, 1e-10, /*relative=*/false);
}

TEST_CASE("reversible gradients equal ordinary backprop's: float32") {
  CheckReversibleEqualsRegular(kFloat32, 1e-4, /*relative=*/true);
}

TEST_CASE("a block's backward pass rebuilds its inputs from its outputs") {
  nn::Module root;
  revnet::RevBlock block(&root, "block", 3, /*bn_momentum=*/0.9);
  const Halves x{random_normal({2, 5, 5, 3}, 1, kFloat64),
                 random_normal({2, 5, 5, 3}, 2, kFloat64)};
  const Halves y = block(x, revnet::Phase::kTraining);
  const Halves dy{random_normal({2, 5, 5, 3}, 3, kFloat64),
                  random_normal({2, 5, 5, 3}, 4, kFloat64)};
  const revnet::BlockGradients b = block.backward_grads(y, dy);
  ExpectRebuilt(b.x, x, 1e-12, "one block");
  CHECK(b.grads.size() == block.trainable_variables().size());
}

// Note [Batch norm in reversible blocks]: the recompute must not update the moving statistics.
TEST_CASE("reversible training updates the moving statistics once, as ordinary training") {
  RevNet model({.depth = 2, .channels = 4});
  const Tensor images = Images(kFloat64), labels = Labels();
  model(images);  // builds the layers
  const std::vector<Variable> moving = model.non_trainable_variables();
  REQUIRE(moving.size() == 2 * (2 * 2 * 2 + 1));  // 2 per BN: 2 per unit, 2 units per block, head
  std::vector<Tensor> before;
  for (const Variable& v : moving) before.push_back(v.value());
  model.regular_gradients(images, labels);
  std::vector<Tensor> after_regular;
  for (size_t i = 0; i < moving.size(); ++i) {
    after_regular.push_back(moving[i].value());
    moving[i].assign(before[i]);
  }
  model.reversible_gradients(images, labels);
  for (size_t i = 0; i < moving.size(); ++i) {
    INFO(moving[i].name());
    testing::ExpectTensorNear(moving[i].value(), after_regular[i], 1e-12);
  }
}

TEST_CASE("the traced reversible gradients equal the eager ones") {
  RevNet model({.depth = 2, .channels = 4});
  const Tensor images = Images(kFloat64), labels = Labels();
  auto traced = duet::function(
      [&](const Tensor& x, const Tensor& y) { return model.reversible_gradients(x, y).grads; });
  const std::vector<Tensor> eager = model.reversible_gradients(images, labels).grads;
  const std::vector<Tensor> graph = traced(images, labels);
  REQUIRE(graph.size() == eager.size());
  double worst = 0;
  for (size_t i = 0; i < eager.size(); ++i) worst = std::max(worst, MaxAbsDiff(graph[i], eager[i]));
  std::cout << "traced vs eager: max abs difference " << worst << "\n";
  CHECK(worst <= 1e-10);
}

}  // namespace
}  // namespace duet
