// L2Loss: against TensorFlow, every dtype, empty inputs, float32 accuracy on a long input (the
// pairwise, pieced sum), and unsupported dtypes.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/constant.h"
#include "ops/reduction/reduction_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("L2Loss matches TensorFlow") {
  // Made by ../math/testdata/gen_erfinv_l2_clip_expected.py with tf.nn.l2_loss.
  const std::vector<double> t = {-3.0, -0.5, 0.0, 0.25, 2.0, 7.5};
  for (DType dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    INFO(DTypeName(dtype));
    testing::ExpectTensor(l2_loss(testing::MakeTensor(dtype, {2, 3}, t)), dtype, {}, {34.78125},
                          dtype == kBFloat16 ? 4e-3 : 1e-6);
    testing::ExpectTensor(l2_loss(testing::MakeTensor(dtype, {0, 3}, {})), dtype, {}, {0});
  }
  testing::ExpectTensor(l2_loss(constant(3.0)), kFloat64, {}, {4.5});
}

TEST_CASE("L2Loss of a million float32 elements stays accurate") {
  const int64_t n = 1000003;
  std::vector<float> v(n);
  double expected = 0;
  for (int64_t i = 0; i < n; ++i) {
    v[i] = 0.001f * static_cast<float>((i * 7919) % 1000);
    expected += static_cast<double>(v[i]) * v[i];
  }
  expected /= 2;
  const double got = l2_loss(from_vector(v, {n})).item<float>();
  CHECK(std::abs(got - expected) / expected < 1e-6);
}

TEST_CASE("L2Loss rejects integer inputs") {
  testing::ExpectError(
      [] {
        l2_loss(constant({1, 2}));
      },
      {"L2Loss", "dtype int32 is not supported", "t: int32 (2,)", "l2_loss_op_test.cc"});
}

}  // namespace
}  // namespace duet
