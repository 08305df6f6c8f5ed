// Gradients of the reductions against finite differences, and against explicit values where
// finite differences cannot judge them (ties of Max/Min) or where exactness matters (Prod with
// zeros).
#include "tests/gradients/gradient_checker.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using Tensors = std::vector<Tensor>;

// The tape's gradient of sum(f(x) * upstream) with respect to x.
Tensor GradientOf(const std::function<Tensor(const Tensor&)>& f, const Tensor& x,
                  const Tensor& upstream) {
  GradientTape tape;
  tape.watch(x);
  const Tensor y = f(x);
  return tape.gradient(y, {x}, {upstream})[0];
}

DUET_GRADIENT_TEST("Sum", "all axes, one axis, negative axes, keep_dims") {
  const Tensor x = RandomInput({2, 3, 4}, 1);
  CheckGradients("Sum", [](const Tensors& x) { return Tensors{reduce_sum(x[0])}; }, {x});
  CheckGradients("Sum", [](const Tensors& x) { return Tensors{reduce_sum(x[0], 1)}; }, {x});
  CheckGradients("Sum",
                 [](const Tensors& x) {
                   return Tensors{reduce_sum(x[0], {0, -1}, true)};
                 },
                 {x});
  CheckGradients("Sum", [](const Tensors& x) { return Tensors{reduce_sum(x[0], {2, 0})}; }, {x});
  CheckGradients("Sum", [](const Tensors& x) { return Tensors{reduce_sum(x[0], {}, true)}; }, {x});
}

DUET_GRADIENT_TEST("Sum", "no axes, a scalar, size-1 dims") {
  CheckGradients("Sum",
                 [](const Tensors& x) { return Tensors{reduce_sum(x[0], std::vector<int64_t>{})}; },
                 {RandomInput({2, 3}, 1)});
  CheckGradients("Sum", [](const Tensors& x) { return Tensors{reduce_sum(x[0])}; },
                 {RandomInput({}, 2)});
  CheckGradients("Sum", [](const Tensors& x) { return Tensors{reduce_sum(x[0], 0)}; },
                 {RandomInput({1, 1, 3}, 3)});
}

DUET_GRADIENT_TEST("Mean", "all axes, one axis, negative axes, keep_dims") {
  const Tensor x = RandomInput({2, 3, 4}, 1);
  CheckGradients("Mean", [](const Tensors& x) { return Tensors{reduce_mean(x[0])}; }, {x});
  CheckGradients("Mean", [](const Tensors& x) { return Tensors{reduce_mean(x[0], -2)}; }, {x});
  CheckGradients("Mean",
                 [](const Tensors& x) {
                   return Tensors{reduce_mean(x[0], {0, 2}, true)};
                 },
                 {x});
  CheckGradients(
      "Mean", [](const Tensors& x) { return Tensors{reduce_mean(x[0], std::vector<int64_t>{})}; },
      {x});
}

DUET_GRADIENT_TEST("Mean", "float32 matches the float64 gradient") {
  const Tensor x = RandomInput({3, 4}, 1);
  const Tensor w = RandomInput({3}, 2);
  const auto mean = [](const Tensor& t) { return reduce_mean(t, 1); };
  ExpectTensorNear(cast(GradientOf(mean, cast(x, kFloat32), cast(w, kFloat32)), kFloat64),
                   GradientOf(mean, x, w), 1e-6);
}

DUET_GRADIENT_TEST("Max", "distinct values: all axes, one axis, keep_dims") {
  const Tensor x = RandomInput({2, 3, 4}, 1);
  CheckGradients("Max", [](const Tensors& x) { return Tensors{reduce_max(x[0])}; }, {x});
  CheckGradients("Max", [](const Tensors& x) { return Tensors{reduce_max(x[0], 1)}; }, {x});
  CheckGradients("Max",
                 [](const Tensors& x) {
                   return Tensors{reduce_max(x[0], {-1, 0}, true)};
                 },
                 {x});
}

TEST_CASE("Max gradient: ties share the gradient equally") {
  const auto max1 = [](const Tensor& t) { return reduce_max(t, 1); };
  ExpectTensor(GradientOf(max1, constant({{1.0, 3.0, 3.0}, {2.0, 2.0, 0.0}}), constant({1.0, 2.0})),
               kFloat64, {2, 3}, {0, 0.5, 0.5, 1, 1, 0});
  const auto max_all = [](const Tensor& t) { return reduce_max(t); };
  ExpectTensor(GradientOf(max_all, constant({{5.0, 1.0}, {5.0, 5.0}}), constant(6.0)), kFloat64,
               {2, 2}, {2, 0, 2, 2});
  const auto max0_kept = [](const Tensor& t) { return reduce_max(t, 0, true); };
  ExpectTensor(GradientOf(max0_kept, constant<float>({{4, 1}, {4, 2}}), constant<float>({{2, 3}})),
               kFloat32, {2, 2}, {1, 0, 1, 3});
}

DUET_GRADIENT_TEST("Max", "second order") {
  CheckSecondOrderGradients(
      "Max", [](const Tensors& x) { return Tensors{reduce_prod(reduce_max(x[0], 1))}; },
      {RandomInput({3, 4}, 1)});
}

DUET_GRADIENT_TEST("Min", "distinct values: all axes, one axis, keep_dims") {
  const Tensor x = RandomInput({2, 3, 4}, 1);
  CheckGradients("Min", [](const Tensors& x) { return Tensors{reduce_min(x[0])}; }, {x});
  CheckGradients("Min", [](const Tensors& x) { return Tensors{reduce_min(x[0], -1)}; }, {x});
  CheckGradients("Min",
                 [](const Tensors& x) {
                   return Tensors{reduce_min(x[0], {0, 1}, true)};
                 },
                 {x});
}

TEST_CASE("Min gradient: ties share the gradient equally") {
  const auto min1 = [](const Tensor& t) { return reduce_min(t, 1); };
  ExpectTensor(GradientOf(min1, constant({{1.0, 0.0, 0.0}, {4.0, 4.0, 4.0}}), constant({3.0, 6.0})),
               kFloat64, {2, 3}, {0, 1.5, 1.5, 2, 2, 2});
}

DUET_GRADIENT_TEST("Prod", "all axes, one axis, several axes, keep_dims") {
  const Tensor x = RandomInput({2, 3, 4}, 1, 0.5, 1.5);
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0])}; }, {x});
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], 1)}; }, {x});
  CheckGradients("Prod",
                 [](const Tensors& x) {
                   return Tensors{reduce_prod(x[0], {0, -1}, true)};
                 },
                 {x});
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], {1, 0})}; }, {x});
  CheckGradients(
      "Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], std::vector<int64_t>{})}; },
      {x});
}

DUET_GRADIENT_TEST("Prod", "long rows, a scalar, a size-1 axis") {
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], 1)}; },
                 {RandomInput({2, 13}, 1, -1.5, 1.5)});
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0])}; },
                 {RandomInput({}, 2)});
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], 1)}; },
                 {RandomInput({3, 1}, 3)});
}

DUET_GRADIENT_TEST("Prod", "zeros in the input") {
  CheckGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], 1)}; },
                 {constant({{0.5, 0.0, -2.0, 1.5}, {0.0, 3.0, 0.0, 2.0}, {1.0, 2.0, 3.0, 4.0}})});
}

TEST_CASE("Prod gradient: the product of the other elements, exact with zeros") {
  const auto prod = [](const Tensor& t) { return reduce_prod(t); };
  ExpectTensor(GradientOf(prod, constant({2.0, 0.0, 3.0}), constant(1.0)), kFloat64, {3},
               {0, 6, 0});
  ExpectTensor(GradientOf(prod, constant({0.0, 2.0, 0.0, 3.0}), constant(1.0)), kFloat64, {4},
               {0, 0, 0, 0});
  const auto prod1 = [](const Tensor& t) { return reduce_prod(t, 1); };
  ExpectTensor(
      GradientOf(prod1, constant({{0.0, 2.0, 0.0}, {1.0, 2.0, 3.0}}), constant({1.0, 2.0})),
      kFloat64, {2, 3}, {0, 0, 0, 12, 6, 4});
  const auto prod0 = [](const Tensor& t) { return reduce_prod(t, 0); };
  ExpectTensor(GradientOf(prod0, constant<float>({{0, 5}, {4, 0}}), constant<float>({1, 2})),
               kFloat32, {2, 2}, {4, 0, 0, 10});
  // Axes {0, 2} of a (2, 2, 2) tensor: each j reduces x[:, j, :].
  const auto prod02 = [](const Tensor& t) { return reduce_prod(t, {0, 2}); };
  ExpectTensor(GradientOf(prod02, constant({{{1.0, 2.0}, {0.0, 1.0}}, {{3.0, 4.0}, {2.0, 5.0}}}),
                          constant({1.0, 1.0})),
               kFloat64, {2, 2, 2}, {24, 12, 10, 0, 8, 6, 0, 0});
}

DUET_GRADIENT_TEST("Prod", "second order, with and without zeros") {
  CheckSecondOrderGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0], 1)}; },
                            {RandomInput({2, 5}, 1, 0.5, 1.5)});
  CheckSecondOrderGradients("Prod",
                            [](const Tensors& x) {
                              return Tensors{reduce_prod(x[0], {0, 2})};
                            },
                            {RandomInput({2, 2, 3}, 2)});
  CheckSecondOrderGradients("Prod", [](const Tensors& x) { return Tensors{reduce_prod(x[0])}; },
                            {constant({1.5, 0.0, -2.0, 0.0})});
}

TEST_CASE("ArgMax and ArgMin are not recorded") {
  const Tensor x = RandomInput({2, 3}, 1);
  GradientTape tape;
  tape.watch(x);
  argmax(x, 1);
  argmin(x, 0);
  CHECK(tape_internal::RecordedOpNames(tape).empty());
}

TEST_CASE("All and Any are not recorded") {
  const Tensor x = RandomInput({2, 3}, 1);
  GradientTape tape;
  tape.watch(x);
  reduce_all(greater(x, constant(0.0)), 1);
  reduce_any(less(x, constant(0.0)));
  for (const std::string& name : tape_internal::RecordedOpNames(tape)) {
    CHECK(name != "All");
    CHECK(name != "Any");
  }
}

DUET_GRADIENT_TEST("L2Loss", "any rank") {
  CheckGradients("L2Loss", [](const Tensors& x) { return Tensors{l2_loss(x[0])}; },
                 {RandomInput({2, 3, 4}, 1)});
  CheckGradients("L2Loss", [](const Tensors& x) { return Tensors{l2_loss(x[0])}; },
                 {RandomInput({}, 2)});
}

DUET_GRADIENT_TEST("L2Loss", "second order") {
  CheckSecondOrderGradients("L2Loss", [](const Tensors& x) { return Tensors{l2_loss(x[0])}; },
                            {RandomInput({3, 2}, 3)});
}

DUET_GRADIENT_TEST("Cumsum", "every axis, exclusive and reverse") {
  const Tensor x = RandomInput({2, 3, 4}, 1);
  for (int64_t axis : {0, 1, -1}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        INFO("axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
        CheckGradients(
            "Cumsum",
            [=](const Tensors& x) { return Tensors{cumsum(x[0], axis, exclusive, reverse)}; }, {x});
      }
    }
  }
}

DUET_GRADIENT_TEST("Cumsum", "second order") {
  CheckSecondOrderGradients("Cumsum",
                            [](const Tensors& x) { return Tensors{cumsum(x[0], 1, false, true)}; },
                            {RandomInput({3, 4}, 2)});
}

DUET_GRADIENT_TEST("Cumprod", "every axis, exclusive and reverse (nonzero inputs)") {
  const Tensor x = RandomInput({2, 3, 4}, 1, 0.5, 1.5);
  for (int64_t axis : {0, 1, -1}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        INFO("axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
        CheckGradients(
            "Cumprod",
            [=](const Tensors& x) { return Tensors{cumprod(x[0], axis, exclusive, reverse)}; },
            {x});
      }
    }
  }
  CheckGradients("Cumprod", [](const Tensors& x) { return Tensors{cumprod(x[0], 0)}; },
                 {constant({-1.5, 0.7, -2.0, 1.25})});
}

TEST_CASE("Cumprod gradient is 0 where x is 0, as TensorFlow's div_no_nan") {
  // out = [2, 0, 0]; cumsum(out * dy, reverse) / x = [2, 0, 0] / [2, 0, 3], with 0 for 0 / 0:
  // what tf.GradientTape gives for tf.math.cumprod (the true d/dx[1] would be 2 + 6 = 8).
  const Tensor x = constant({2.0, 0.0, 3.0});
  const Tensor g = GradientOf([](const Tensor& t) { return cumprod(t); }, x, ones_like(x));
  ExpectTensor(g, kFloat64, {3}, {1, 0, 0});
}

}  // namespace
}  // namespace duet::testing
