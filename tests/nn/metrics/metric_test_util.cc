#include "tests/nn/metrics/metric_test_util.h"

namespace duet::testing {

std::vector<double> KerasResults(const std::string& key) {
  return FixtureValues(Testdata("nn/metrics", "metrics_expected.txt"), key);
}

std::vector<Batch> ReductionBatches() {
  const Tensor values_2d = constant({{1.0, 2.0}, {3.0, 4.0}});
  return {{constant(0.f)},
          {constant(5.f)},
          {constant({1.0, 3.0, 5.0, 7.0}), constant({1.0, 1.0, 0.0, 0.0})},
          {values_2d, constant({{1.0}, {0.5}})},
          {values_2d, constant({2.0, 1.0})},
          {values_2d, values_2d / 4},
          {constant({2.0, 4.0}), constant(3.f)},
          {},
          {constant({2.0, 4.0})}};
}

Tensor PlaceholderLike(const Tensor& t) {
  Shape shape = t.shape();
  if (shape.rank() > 0) shape.set_dim(0, -1);  // the batch dim, known only when run
  return placeholder(t.dtype(), shape);
}

}  // namespace duet::testing
