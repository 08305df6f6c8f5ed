// Symbolic gradients: the backward graph equals what the tape computes, from the same gradient
// functions; fan-out sums, stop_gradient blocks, grad_ys chain, and gradients of gradients.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("an MLP's symbolic gradients equal the tape's, for variables and inputs") {
  Variable w1(random_normal({6, 5}, 1, kFloat64), "w1"), b1(random_normal({5}, 2, kFloat64), "b1");
  Variable w2(random_normal({5, 3}, 3, kFloat64), "w2");
  const Tensor labels = from_vector(std::vector<int64_t>{0, 2, 1, 2});
  auto loss_of = [&](const Tensor& x) {
    const Tensor logits = matmul(relu(bias_add(matmul(x, w1), b1)), w2);
    return reduce_mean(sparse_softmax_cross_entropy_with_logits(labels, logits));
  };
  const Tensor batch = random_normal({4, 6}, 4, kFloat64);

  GradientTape tape;
  tape.watch(batch);
  const std::vector<Tensor> expected = tape.gradient(loss_of(batch), {w1, b1, w2, batch});

  Graph g;
  Tensor x;
  std::vector<Tensor> grads;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {-1, 6}, "x");
    grads = gradients({loss_of(x)}, {w1, b1, w2, x});
  }
  REQUIRE(grads.size() == 4);
  CHECK(grads[0].shape() == Shape({6, 5}));
  CHECK(grads[3].shape() == Shape({-1, 6}));
  CHECK(SymbolicOutput(grads[0])->node->name().rfind("gradients/", 0) == 0);
  Session sess(g);
  const std::vector<Tensor> got = sess.run({{x, batch}}, {grads.begin(), grads.end()});
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("gradient " << i);
    testing::ExpectTensorNear(got[i], expected[i], 1e-12);
  }
}

TEST_CASE("fan-out sums, unconnected sources are undefined, stop_gradient blocks") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {2}, "x");
  const Tensor z = placeholder(kFloat64, {2}, "z");
  const Tensor y = reduce_sum(x * x + x * 3.0 + stop_gradient(x) * 100.0);
  const std::vector<Tensor> grads = gradients({y}, {x, z});
  CHECK_FALSE(grads[1].defined());
  Session sess(g);
  // d/dx (x^2 + 3x) = 2x + 3
  testing::ExpectTensor(sess.run({{x, constant({1.0, -2.0})}}, {grads[0]})[0], kFloat64, {2},
                        {5, -1});
}

TEST_CASE("several ys sum; grad_ys apply the chain rule") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {3}, "x");
  const Tensor a = x * 2.0, b = square(x);
  const Tensor both = gradients({a, b}, {x})[0];                                  // 2 + 2x
  const Tensor chained = gradients({b}, {x}, {constant({1.0, 10.0, 100.0})})[0];  // 2x * g
  Session sess(g);
  const std::vector<Tensor> out = sess.run({{x, constant({1.0, 2.0, 3.0})}}, {both, chained});
  testing::ExpectTensor(out[0], kFloat64, {3}, {4, 6, 8});
  testing::ExpectTensor(out[1], kFloat64, {3}, {2, 40, 600});
}

TEST_CASE("gradients of gradients: second and third derivatives of x^3") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {}, "x");
  const Tensor y = x * x * x;
  const Tensor dy = gradients({y}, {x})[0];
  const Tensor d2y = gradients({dy}, {x})[0];
  const Tensor d3y = gradients({d2y}, {x})[0];
  Session sess(g);
  const std::vector<Tensor> out = sess.run({{x, constant(2.0)}}, {dy, d2y, d3y});
  CHECK(out[0].item<double>() == 12.0);  // 3x^2
  CHECK(out[1].item<double>() == 12.0);  // 6x
  CHECK(out[2].item<double>() == 6.0);
}

TEST_CASE("broadcasting gradients of unknown shapes are summed at run time") {
  const Tensor a = random_normal({3, 1}, 1, kFloat64), b = random_normal({1, 4}, 2, kFloat64);
  GradientTape tape;
  tape.watch(a);
  tape.watch(b);
  const std::vector<Tensor> expected = tape.gradient(reduce_sum(a * b + a), {a, b});
  Graph g;
  Tensor x, y;
  std::vector<Tensor> grads;
  {
    GraphScope scope(g);
    x = placeholder(kFloat64, {-1, 1}, "x");
    y = placeholder(kFloat64, {1, -1}, "y");
    grads = gradients({reduce_sum(x * y + x)}, {x, y});
  }
  const std::vector<Tensor> got = Session(g).run({{x, a}, {y, b}}, {grads[0], grads[1]});
  testing::ExpectTensorNear(got[0], expected[0], 1e-12);
  testing::ExpectTensorNear(got[1], expected[1], 1e-12);
}

TEST_CASE("gradients outside a graph, or of another graph's tensors, are clear errors") {
  testing::ExpectError([] { gradients({constant(1.0)}, {constant(1.0)}); },
                       {"gradients", "GraphScope", "GradientTape"});
  Graph g1, g2;
  Tensor x;
  {
    GraphScope scope(g1);
    x = placeholder(kFloat64, {}, "x");
  }
  GraphScope scope(g2);
  const Tensor y = placeholder(kFloat64, {}, "y");
  testing::ExpectError([&] { gradients({y}, {x}); }, {"gradients", "another graph"});
  testing::ExpectError(
      [&] {
        gradients({y}, {y}, {constant({1.0, 2.0})});
      },
      {"grad_ys[0]", "(2,)", "()"});
}

}  // namespace
}  // namespace duet
