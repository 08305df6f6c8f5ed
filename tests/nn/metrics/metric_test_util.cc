#include "tests/nn/metrics/metric_test_util.h"

namespace duet::testing {

std::vector<double> KerasResults(const std::string& key) {
  return FixtureValues(Testdata("nn/metrics", "metrics_expected.txt"), key);
}

Tensor PlaceholderLike(const Tensor& t) {
  Shape shape = t.shape();
  if (shape.rank() > 0) shape.set_dim(0, -1);  // the batch dim, known only when run
  return placeholder(t.dtype(), shape);
}

}  // namespace duet::testing
