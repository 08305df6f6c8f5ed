// metrics::Metric (nn/metrics/metric.h): state variables, the generic reset, divide_no_nan.
#include "duet.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

// The smallest metric: counts update calls.
class CallCount : public metrics::Metric {
 public:
  CallCount() : Metric("calls"), calls_(add_state("calls")), unused_(add_state("per_class", {3})) {}
  void update_state() { calls_.assign_add(constant(1.f)); }
  Tensor result() const override { return calls_.value(); }

 private:
  Variable calls_, unused_;
};

TEST_CASE("a metric's state is zero, non-trainable float32, and reset_state zeroes all of it") {
  CallCount count;
  const std::vector<Variable> vars = count.variables();
  REQUIRE(vars.size() == 2);
  CHECK(vars[0].name() == "calls/calls");
  CHECK(vars[1].shape() == Shape{3});
  CHECK(!vars[0].trainable());
  CHECK(count.non_trainable_variables().size() == 2);
  ExpectTensor(vars[1].value(), kFloat32, {3}, {0, 0, 0});
  count.update_state();
  count.update_state();
  vars[1].assign(constant({1.f, 2.f, 3.f}));
  CHECK(count.result().item<float>() == 2.f);
  count.reset_state();
  CHECK(count.result().item<float>() == 0.f);
  ExpectTensor(vars[1].value(), kFloat32, {3}, {0, 0, 0});
}

TEST_CASE("divide_no_nan gives 0 where the denominator is 0") {
  ExpectTensor(metrics::divide_no_nan(constant({1.f, 0.f, 3.f}), constant({2.f, 0.f, 0.f})),
               kFloat32, {3}, {0.5, 0, 0});
}

}  // namespace
}  // namespace duet::testing
