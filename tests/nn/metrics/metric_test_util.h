// Helpers of the metric tests: Keras' results (testdata/gen_expected.py) and the check that a
// metric gives them eagerly, inside duet::function and in GraphScope graphs run by Sessions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "duet.h"
#include "tests/test_util.h"

namespace duet::testing {

// The arguments of one update_state call (sample weight last, if any); empty = reset_state().
using Batch = std::vector<Tensor>;

// The values of line `key` of testdata/metrics_expected.txt.
std::vector<double> KerasResults(const std::string& key);

// A placeholder of `t`'s dtype and shape, with an unknown first (batch) dim.
Tensor PlaceholderLike(const Tensor& t);

// How a test makes a fresh metric and feeds it one batch.
template <typename M>
struct MetricCase {
  std::function<std::unique_ptr<M>()> make;
  std::function<void(M&, const Batch&)> update;
};

// A metric updated as update_state(values[, sample_weight]) (Mean, Sum).
template <typename M>
MetricCase<M> ValuesCase() {
  return {[] { return std::make_unique<M>(); },
          [](M& m, const Batch& b) { m.update_state(b[0], b.size() > 1 ? b[1] : Tensor()); }};
}

// A metric made by `make` (default-constructed when none) and updated as update_state(y_true,
// y_pred[, sample_weight]).
template <typename M>
MetricCase<M> LabeledCase(std::function<std::unique_ptr<M>()> make = [] {
  return std::make_unique<M>();
}) {
  return {std::move(make),
          [](M& m, const Batch& b) { m.update_state(b[0], b[1], b.size() > 2 ? b[2] : Tensor()); }};
}

// gen_expected.py's REDUCTION_BATCHES, Mean's and Sum's: values of every rank, sample weights of
// every form, a reset.
std::vector<Batch> ReductionBatches();

namespace metric_test_internal {

// result() after each batch, the updates run as `run_update` says (eagerly, traced, in graphs).
template <typename M>
std::vector<double> Results(const MetricCase<M>& c, const std::vector<Batch>& batches,
                            const std::function<Tensor(M&, const Batch&)>& update_then_result) {
  std::unique_ptr<M> metric = c.make();
  std::vector<double> out;
  for (const Batch& batch : batches) {
    if (batch.empty()) {
      metric->reset_state();
      out.push_back(metric->result().template item<float>());
    } else {
      out.push_back(update_then_result(*metric, batch).template item<float>());
    }
  }
  return out;
}

// One graph per batch: placeholders, update_state, then result(), fetched by a Session. Fetching
// the read runs the assignments before it (Note [Metric state]).
template <typename M>
Tensor InGraph(const MetricCase<M>& c, M& metric, const Batch& batch) {
  Graph g;
  Batch inputs;
  Tensor result;
  {
    GraphScope scope(g);
    for (const Tensor& t : batch) inputs.push_back(PlaceholderLike(t));
    c.update(metric, inputs);
    result = metric.result();
  }
  FeedList feeds;
  for (size_t i = 0; i < batch.size(); ++i) feeds.push_back({inputs[i], batch[i]});
  Session sess(g);
  return sess.run(feeds, {result})[0];
}

}  // namespace metric_test_internal

// Feeds `batches` to fresh metrics eagerly, through duet::function and in Session-run graphs, and
// checks result() after each against Keras' line `key` (float32 state: to 1e-6).
template <typename M>
void ExpectKerasResults(const std::string& key, const MetricCase<M>& c,
                        const std::vector<Batch>& batches) {
  INFO(key);
  const std::vector<double> expected = KerasResults(key);
  const auto eager = [&](M& m, const Batch& b) {
    c.update(m, b);
    return m.result();
  };
  CHECK_THAT(metric_test_internal::Results<M>(c, batches, eager),
             Catch::Matchers::Approx(expected).margin(1e-6));
  const auto traced = [&](M& m, const Batch& b) {
    auto step = duet::function([&](std::vector<Tensor> args) {
      c.update(m, args);
      return m.result();
    });
    return step(b);
  };
  CHECK_THAT(metric_test_internal::Results<M>(c, batches, traced),
             Catch::Matchers::Approx(expected).margin(1e-6));
  const auto graph = [&](M& m, const Batch& b) { return metric_test_internal::InGraph(c, m, b); };
  CHECK_THAT(metric_test_internal::Results<M>(c, batches, graph),
             Catch::Matchers::Approx(expected).margin(1e-6));
}

}  // namespace duet::testing
