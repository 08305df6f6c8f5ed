// Precision and Recall (nn/metrics/precision_recall.h) against Keras 3
// (testdata/gen_expected.py), in every mode, and their state and errors.
#include <memory>
#include <string>
#include <vector>

#include "duet.h"
#include "tests/nn/metrics/metric_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// gen_expected.py's CONFUSION_BATCHES.
std::vector<Batch> ConfusionBatches() {
  const Tensor y_true = constant({0.0, 1.0, 1.0, 0.0, 1.0, 0.0});
  const Tensor y_pred = constant({0.1, 0.6, 0.4, 0.7, 0.5, 0.9});
  return {{y_true, y_pred},
          {constant({{1.0}, {1.0}, {0.0}}), constant({{0.8}, {0.2}, {0.55}}),
           constant({2.0, 0.5, 1.0})},
          {},
          {slice(y_true, {0}, {3}), slice(y_pred, {0}, {3})}};
}

template <typename M>
MetricCase<M> Case(double threshold) {
  return LabeledCase<M>([threshold] { return std::make_unique<M>(threshold); });
}

TEST_CASE("Precision matches Keras eagerly, traced and in a Session") {
  ExpectKerasResults("precision", Case<metrics::Precision>(0.5), ConfusionBatches());
  ExpectKerasResults("precision threshold 0.3", Case<metrics::Precision>(0.3), ConfusionBatches());
}

TEST_CASE("Recall matches Keras eagerly, traced and in a Session") {
  ExpectKerasResults("recall", Case<metrics::Recall>(0.5), ConfusionBatches());
  ExpectKerasResults("recall threshold 0.3", Case<metrics::Recall>(0.3), ConfusionBatches());
}

TEST_CASE("Precision and Recall keep Keras' variables and return scalars") {
  metrics::Precision precision;
  REQUIRE(precision.variables().size() == 2);
  CHECK(precision.variables()[0].name() == "precision/true_positives");
  CHECK(precision.variables()[1].name() == "precision/false_positives");
  CHECK(precision.variables()[0].shape() == Shape{1});
  CHECK(precision.result().shape() == Shape{});
  metrics::Recall recall(0.5, "val_recall");
  CHECK(recall.variables()[1].name() == "val_recall/false_negatives");
  CHECK(recall(constant({1, 1}), constant({0.9f, 0.1f})).item<float>() == 0.5f);
}

TEST_CASE("Precision and Recall errors name the metric, the shapes and the caller's line") {
  metrics::Precision precision;
  ExpectError([&] { precision.update_state(zeros({3}), zeros({4})); },
              {"Precision", "same shape", "(3,)", "(4,)", "precision_recall_test.cc"});
}

}  // namespace
}  // namespace duet::testing
