// set_random_seed and seedless random_normal / random_uniform: reproducible sequences, the same
// eagerly, in a traced function and in a session (Note [Global random state]).
#include "eager/global_random.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensorNear;

TEST_CASE("set_random_seed makes the seedless sequence reproducible") {
  set_random_seed(42);
  const Tensor a = random_normal({4});
  const Tensor b = random_normal({4});
  CHECK(a.to_vector<float>() != b.to_vector<float>());
  set_random_seed(42);
  ExpectTensorNear(random_normal({4}), a, 0);
  ExpectTensorNear(random_normal({4}), b, 0);
  set_random_seed(43);
  CHECK(random_normal({4}).to_vector<float>() != a.to_vector<float>());
  // The state is a Philox (counter, key): a draw of n numbers advances the counter by n.
  set_random_seed(7);
  random_uniform({2});
  Variable state(from_vector(std::vector<int64_t>{2, 0, 7}), "state", /*trainable=*/false);
  ExpectTensorNear(random_uniform({3}, kFloat64), stateful_uniform(state.handle(), {3}, kFloat64),
                   0);
  ExpectTensorNear(state.value(), from_vector(std::vector<int64_t>{5, 0, 7}), 0);
}

TEST_CASE("a traced function draws new numbers per call, in the eager sequence") {
  auto draw = duet::function([] { return random_normal({3}, kFloat64, 2.0, 0.5); });
  set_random_seed(5);
  const Tensor first = draw(), second = draw();
  CHECK(first.to_vector<double>() != second.to_vector<double>());
  set_random_seed(5);
  ExpectTensorNear(random_normal({3}, kFloat64, 2.0, 0.5), first, 0);
  ExpectTensorNear(draw(), second, 0);
  CHECK(draw.trace_count() == 1);
}

TEST_CASE("a session draws per run; the samples have the asked moments") {
  Graph g;
  Tensor x;
  {
    GraphScope scope(g);
    x = random_uniform({20000}, kFloat64, 1.0, 3.0);
  }
  Session sess(g);
  set_random_seed(11);
  const std::vector<double> v = sess.run({}, {x})[0].to_vector<double>();
  CHECK(sess.run({}, {x})[0].to_vector<double>() != v);
  double sum = 0;
  for (double e : v) {
    REQUIRE((e >= 1.0 && e < 3.0));
    sum += e;
  }
  CHECK(std::abs(sum / v.size() - 2.0) < 0.02);
  set_random_seed(11);
  ExpectTensorNear(sess.run({}, {x})[0], from_vector(v, {20000}), 0);
}

}  // namespace
}  // namespace duet
