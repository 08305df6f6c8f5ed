#include "eager/gradients_function.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensor;

Tensor square(Tensor x) { return x * x; }

TEST_CASE("gradients_function composes to higher orders (eager guide)") {
  auto grad = gradients_function(square);
  auto gradgrad = gradients_function([&](Tensor x) { return grad(x)[0]; });
  auto gradgradgrad = gradients_function([&](Tensor x) { return gradgrad(x)[0]; });
  ExpectTensor(grad(3.f)[0], kFloat32, {}, {6});
  ExpectTensor(gradgrad(3.f)[0], kFloat32, {}, {2});
  CHECK(!gradgradgrad(3.f)[0].defined());
}

TEST_CASE("value_and_gradients_function returns both") {
  auto f = value_and_gradients_function([](Tensor x, Tensor y) { return x * y + y; });
  auto [value, grads] = f(constant(2.0), 5.0);
  ExpectTensor(value, kFloat64, {}, {15});
  ExpectTensor(grads[0], kFloat64, {}, {5});
  ExpectTensor(grads[1], kFloat64, {}, {3});
}

TEST_CASE("host control flow: abs written with an if has gradient +-1 (eager guide)") {
  auto abs_grad = gradients_function([](Tensor x) { return x.item<float>() > 0 ? x : -x; });
  ExpectTensor(abs_grad(3.f)[0], kFloat32, {}, {1});
  ExpectTensor(abs_grad(-3.f)[0], kFloat32, {}, {-1});
}

Tensor log1pexp(Tensor x) { return log(1 + exp(x)); }

auto stable_log1pexp = custom_gradient([](Tensor x) {
  Tensor e = exp(x);
  return std::make_pair(log(1 + e),
                        [e](Tensor dy) { return std::vector<Tensor>{dy * (1 - 1 / (1 + e))}; });
});

TEST_CASE("custom_gradient fixes log(1 + exp(x)) at large x (eager guide)") {
  auto naive = gradients_function(log1pexp);
  ExpectTensor(naive(0.f)[0], kFloat32, {}, {0.5});
  CHECK(std::isnan(naive(100.f)[0].item<float>()));
  auto custom = gradients_function(stable_log1pexp);
  ExpectTensor(custom(0.f)[0], kFloat32, {}, {0.5});
  ExpectTensor(custom(100.f)[0], kFloat32, {}, {1.0});
  ExpectTensor(stable_log1pexp(constant(0.f)), kFloat32, {}, {std::log(2.f)});
}

TEST_CASE("custom_gradient works under nested tapes") {
  // f(x) = x^3 with the gradient written by hand as 3 x^2 (from ops, so it is differentiable).
  auto cube = custom_gradient([](Tensor x) {
    return std::make_pair(x * x * x,
                          [x](Tensor dy) { return std::vector<Tensor>{dy * 3 * x * x}; });
  });
  Tensor x = constant(2.0);
  GradientTape outer;
  outer.watch(x);
  Tensor first;
  {
    GradientTape inner;
    inner.watch(x);
    Tensor y = cube(x);
    first = inner.gradient(y, {x})[0];
  }
  ExpectTensor(first, kFloat64, {}, {12});
  ExpectTensor(outer.gradient(first, {x})[0], kFloat64, {}, {12});  // 6 x
}

TEST_CASE("linear regression by plain gradient descent (eager guide)") {
  const Tensor inputs = random_normal({1000}, 1);
  const Tensor noise = random_normal({1000}, 2);
  const Tensor outputs = inputs * 3 + 2 + noise;
  Variable W(constant(5.f), "W"), B(constant(10.f), "B");
  auto loss = [&] {
    Tensor error = inputs * W + B - outputs;
    return reduce_mean(error * error);
  };
  const float initial_loss = loss().item<float>();
  CHECK(initial_loss == Approx(69).margin(6));
  for (int step = 0; step < 200; ++step) {
    GradientTape tape;
    std::vector<Tensor> g = tape.gradient(loss(), {W, B});
    W.assign_sub(g[0] * 0.01f);
    B.assign_sub(g[1] * 0.01f);
  }
  CHECK(loss().item<float>() == Approx(1).margin(0.2));
  CHECK(W.value().item<float>() == Approx(3).margin(0.2));
  CHECK(B.value().item<float>() == Approx(2).margin(0.3));
}

}  // namespace
}  // namespace duet
