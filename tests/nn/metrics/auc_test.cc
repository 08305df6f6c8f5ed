// metrics::AUC (nn/metrics/auc.h) against Keras 3 (testdata/gen_expected.py), in every mode, and
// its state and errors.
#include <memory>
#include <vector>

#include "duet.h"
#include "tests/nn/metrics/metric_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// gen_expected.py's AUC_BATCHES. The predictions hold 0, 0.5 and 1: values on bucket boundaries.
std::vector<Batch> AucBatches() {
  std::vector<double> labels;
  for (double v : ModPattern(20, 7, 5, 0, 1)) labels.push_back(v > 1 ? 1 : 0);
  const Tensor y_true = constant({0.0, 1.0, 1.0, 0.0, 1.0, 0.0});
  const Tensor y_pred = constant({0.1, 0.6, 0.4, 0.7, 0.5, 0.9});
  return {{MakeTensor(kFloat64, {20}, labels),
           MakeTensor(kFloat64, {20}, ModPattern(20, 13, 23, 0, 22))},
          {y_true, y_pred, constant({1.0, 2.0, 0.5, 1.0, 3.0, 1.0})},
          {constant({{1.0}, {1.0}, {0.0}}), constant({{0.8}, {0.2}, {0.55}})},
          {},
          {y_true, y_pred}};
}

MetricCase<metrics::AUC> Case(int64_t num_thresholds) {
  return LabeledCase<metrics::AUC>(
      [num_thresholds] { return std::make_unique<metrics::AUC>(num_thresholds); });
}

TEST_CASE("AUC matches Keras eagerly, traced and in a Session") {
  ExpectKerasResults("auc", Case(200), AucBatches());
  ExpectKerasResults("auc 5 thresholds", Case(5), AucBatches());
}

TEST_CASE("AUC of a perfect and of an inverted ranking") {
  metrics::AUC perfect;
  CHECK(perfect(constant({0, 0, 1, 1}), constant({0.1f, 0.3f, 0.6f, 0.8f})).item<float>() ==
        Approx(1.0));
  metrics::AUC inverted;
  CHECK(inverted(constant({1, 1, 0, 0}), constant({0.1f, 0.3f, 0.6f, 0.8f})).item<float>() ==
        Approx(0.0).margin(1e-6));
}

TEST_CASE("AUC keeps four [num_thresholds] variables and checks num_thresholds") {
  metrics::AUC auc(50);
  CHECK(auc.name() == "auc");
  CHECK(auc.num_thresholds() == 50);
  const std::vector<Variable> vars = auc.variables();
  REQUIRE(vars.size() == 4);
  CHECK(vars[0].name() == "auc/true_positives");
  CHECK(vars[3].name() == "auc/false_negatives");
  CHECK(vars[0].shape() == Shape{50});
  ExpectError([] { metrics::AUC bad(1); }, {"AUC", "num_thresholds must be > 1", "1"});
}

}  // namespace
}  // namespace duet::testing
