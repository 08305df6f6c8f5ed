// metrics::Sum (nn/metrics/sum.h) against Keras 3 (testdata/gen_expected.py), in every mode.
#include <memory>
#include <vector>

#include "duet.h"
#include "tests/nn/metrics/metric_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

TEST_CASE("Sum matches Keras eagerly, traced and in a Session, weighted or not") {
  const Tensor values_2d = constant({{1.0, 2.0}, {3.0, 4.0}});
  const std::vector<Batch> batches = {
      {constant(0.f)},
      {constant(5.f)},
      {constant({1.0, 3.0, 5.0, 7.0}), constant({1.0, 1.0, 0.0, 0.0})},
      {values_2d, constant({{1.0}, {0.5}})},
      {values_2d, constant({2.0, 1.0})},
      {values_2d, values_2d / 4},
      {constant({2.0, 4.0}), constant(3.f)},
      {},
      {constant({2.0, 4.0})}};
  const MetricCase<metrics::Sum> c{[] { return std::make_unique<metrics::Sum>(); },
                                   [](metrics::Sum& m, const Batch& b) {
                                     m.update_state(b[0], b.size() > 1 ? b[1] : Tensor());
                                   }};
  ExpectKerasResults("sum", c, batches);
}

TEST_CASE("Sum: one variable 'total', operator() updates then returns the result") {
  metrics::Sum s("seen");
  REQUIRE(s.variables().size() == 1);
  CHECK(s.variables()[0].name() == "seen/total");
  s(constant({1, 2, 3}));  // int values are cast to float32
  CHECK(s(4).item<float>() == 10.f);
}

}  // namespace
}  // namespace duet::testing
