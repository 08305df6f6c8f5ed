// A GradientTape used while a graph is built (Note [Tapes in graphs], eager/gradient_tape.cc): it
// differentiates only the ops it recorded, so a traced function's gradients equal the eager ones
// where ops ran before the tape, after stop() or under StopRecording.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensorNear;

// d(w * h)/dw and d(w * h)/dh where h = w * x ran before the tape: h is a leaf, so d/dw is
// h = w x, without the w x that the path through h would add.
std::vector<Tensor> GradientsAfterEarlierOps(const Variable& w, const Tensor& x) {
  const Tensor h = w * x;
  GradientTape tape;
  tape.watch(h);
  return tape.gradient(w * h, {w, h});
}

TEST_CASE("ops made before the tape are leaves, traced as eagerly") {
  Variable w(constant(2.0), "w");
  const Tensor x = constant(3.0);
  const std::vector<Tensor> eager = GradientsAfterEarlierOps(w, x);
  CHECK(eager[0].item<double>() == Approx(6.0));  // h = w x
  CHECK(eager[1].item<double>() == Approx(2.0));  // w
  auto traced = duet::function([&](const Tensor& t) { return GradientsAfterEarlierOps(w, t); });
  const std::vector<Tensor> got = traced(x);
  REQUIRE(got.size() == 2);
  ExpectTensorNear(got[0], eager[0], 1e-12);
  ExpectTensorNear(got[1], eager[1], 1e-12);
}

// The gradient of u = z x where z = x^3 was made under StopRecording (a leaf): z = x^3, not
// d(x^4)/dx = 4 x^3. A gradient of what was made after stop() is undefined.
Tensor GradientAroundPauses(const Tensor& x) {
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  const Tensor y = x * x;
  Tensor z;
  {
    StopRecording pause;
    z = y * x;
  }
  const Tensor u = z * x;
  tape.stop();
  const Tensor v = u * x;
  CHECK_FALSE(tape.gradient(v, {x})[0].defined());
  return tape.gradient(u, {x})[0];
}

TEST_CASE("ops made while the tape is paused or after stop() are not differentiated") {
  const Tensor x = constant(2.0);
  const Tensor eager = GradientAroundPauses(x);
  CHECK(eager.item<double>() == Approx(8.0));
  auto traced = duet::function(GradientAroundPauses);
  ExpectTensorNear(traced(x), eager, 1e-12);
}

// A cond made while the tape records is one If node, differentiated through its branches.
Tensor GradientThroughCond(const Variable& w, const Tensor& x) {
  GradientTape tape;
  const Tensor y = cond(
      reduce_sum(x) > 0.0, [&] { return w * x * x; }, [&] { return w * x; });
  return tape.gradient(reduce_sum(y), {w})[0];
}

TEST_CASE("a cond inside the tape is differentiated, traced as eagerly") {
  Variable w(constant(1.5), "w");
  auto traced = duet::function([&](const Tensor& t) { return GradientThroughCond(w, t); });
  for (const Tensor& x : {constant({1.0, 2.0}), constant({-1.0, -3.0})}) {
    ExpectTensorNear(traced(x), GradientThroughCond(w, x), 1e-12);
  }
  CHECK(GradientThroughCond(w, constant({1.0, 2.0})).item<double>() == Approx(5.0));  // sum x^2
}

TEST_CASE("a tape made outside the graph cannot take gradients inside it") {
  GradientTape tape;
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {}, "x");
  ExpectError([&] { tape.gradient(x * x, {x}); },
              {"GradientTape::gradient", "a tape made in that graph"});
}

TEST_CASE("a non-persistent tape in a graph allows one gradient call") {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {}, "x");
  GradientTape tape;
  tape.watch(x);
  const Tensor y = x * x;
  CHECK(tape.gradient(y, {x})[0].defined());
  ExpectError([&] { tape.gradient(y, {x}); }, {"GradientTape::gradient", "only be called once"});
}

}  // namespace
}  // namespace duet
