// metrics::Mean (nn/metrics/mean.h) against Keras 3 (testdata/gen_expected.py), in every mode,
// and its state: variables, persistence across traced calls and Session runs, reset.
#include <memory>
#include <vector>

#include "duet.h"
#include "tests/nn/metrics/metric_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

TEST_CASE("Mean matches Keras eagerly, traced and in a Session, weighted or not") {
  ExpectKerasResults("mean", ValuesCase<metrics::Mean>(), ReductionBatches());
}

TEST_CASE("Mean: API.md's example") {
  metrics::Mean m;
  m(0.f);
  m(5.f);
  CHECK(m.result().item<float>() == 2.5f);
  CHECK(m(2.5).item<float>() == 2.5f);  // a double converts too
  m.reset_state();
  CHECK(m.result().item<float>() == 0.f);  // no data: 0, not NaN
}

TEST_CASE("Mean's state is two non-trainable float32 variables named under the metric") {
  metrics::Mean m("loss_mean");
  CHECK(m.name() == "loss_mean");
  const std::vector<Variable> vars = m.variables();
  REQUIRE(vars.size() == 2);
  CHECK(vars[0].name() == "loss_mean/total");
  CHECK(vars[1].name() == "loss_mean/count");
  CHECK(vars[0].dtype() == kFloat32);
  CHECK(m.trainable_variables().empty());
  m(constant({1.f, 2.f}));
  CHECK(vars[0].value().item<float>() == 3.f);
  CHECK(vars[1].value().item<float>() == 2.f);
  CHECK(metrics::Mean().name() == "mean");
}

TEST_CASE("Mean's state persists across calls of one traced function") {
  metrics::Mean m;
  auto step = duet::function([&m](Tensor x) { return m(x); });
  CHECK(step(constant({1.f, 3.f})).item<float>() == 2.f);
  CHECK(step(constant({5.f, 7.f})).item<float>() == 4.f);
  CHECK(step(constant({8.f, 2.f})).item<float>() == 13.f / 3);
  CHECK(step.trace_count() == 1);
  CHECK(m.result().item<float>() == 13.f / 3);  // the eager view of the same variables
}

TEST_CASE("a Session run of result-after-update accumulates across runs") {
  metrics::Mean m;
  Graph g;
  Tensor values, weights, result;
  {
    GraphScope scope(g);
    values = placeholder(kFloat32, Shape{-1});
    weights = placeholder(kFloat32, Shape{-1});
    result = m(values, weights);
  }
  Session sess(g);
  CHECK(sess.run({{values, constant({1.f, 3.f})}, {weights, constant({1.f, 1.f})}}, {result})[0]
            .item<float>() == 2.f);
  CHECK(sess.run({{values, constant({6.f})}, {weights, constant({2.f})}}, {result})[0]
            .item<float>() == 4.f);
  CHECK(m.result().item<float>() == 4.f);
  m.reset_state();  // eagerly, between runs
  CHECK(sess.run({{values, constant({5.f})}, {weights, constant({1.f})}}, {result})[0]
            .item<float>() == 5.f);
}

TEST_CASE("reset_state inside a graph is ordered before a later read") {
  metrics::Mean m;
  m(constant(4.f));
  Graph g;
  Tensor after_update, after_reset;
  {
    GraphScope scope(g);
    after_update = m(constant(8.f));
    m.reset_state();
    after_reset = m.result();
  }
  Session sess(g);
  const std::vector<Tensor> out = sess.run({}, {after_update, after_reset});
  CHECK(out[0].item<float>() == 6.f);
  CHECK(out[1].item<float>() == 0.f);
}

TEST_CASE("Mean's errors name the metric and the caller's line") {
  metrics::Mean m;
  ExpectError([&] { m.update_state(zeros({2, 3}), zeros({3})); }, {"BroadcastTo", "mean_test.cc"});
  Graph g;
  GraphScope scope(g);
  ExpectError([&] { m.update_state(placeholder(kFloat32, Shape::UnknownRank())); },
              {"Mean", "known rank", "mean_test.cc"});
}

}  // namespace
}  // namespace duet::testing
