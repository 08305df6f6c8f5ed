// metrics::Sum (nn/metrics/sum.h) against Keras 3 (testdata/gen_expected.py), in every mode.
#include <memory>
#include <vector>

#include "duet.h"
#include "tests/nn/metrics/metric_test_util.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

TEST_CASE("Sum matches Keras eagerly, traced and in a Session, weighted or not") {
  ExpectKerasResults("sum", ValuesCase<metrics::Sum>(), ReductionBatches());
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
