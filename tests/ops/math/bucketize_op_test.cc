// Bucketize: bucket indices against TensorFlow's values for every input dtype (the boundaries
// are float32, compared after the usual arithmetic conversions), empty boundaries, errors.
#include <catch2/catch.hpp>
#include <limits>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

TEST_CASE("Bucketize counts the boundaries <= each value, as TensorFlow does") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // tf.raw_ops.Bucketize(input=[-5., 0., .5, 1., 10., nan, inf], boundaries=[0., 1., 5.])
  ExpectTensor(bucketize(constant({-5.f, 0.f, .5f, 1.f, 10.f, nan, inf}), {0.f, 1.f, 5.f}), kInt32,
               {7}, {0, 1, 1, 2, 3, 3, 3});
  ExpectTensor(bucketize(constant<int64_t>({{-3, 0, 2}, {5, 6, 100}}), {0.f, 1.5f, 5.f}), kInt32,
               {2, 3}, {0, 1, 2, 3, 3, 3});
  // int32 is compared in float: 16777217 rounds to 16777216, which is not below the boundary.
  ExpectTensor(bucketize(constant({16777217}), {16777216.f}), kInt32, {1}, {1});
  // float64 is compared in double: 0.1 is below float(0.1) = 0.10000000149.
  ExpectTensor(bucketize(constant({0.1, 0.3}), {0.1f, 0.3f}), kInt32, {2}, {0, 1});
  ExpectTensor(bucketize(constant({1.f, 2.f}), {}), kInt32, {2}, {0, 0});
}

TEST_CASE("Bucketize over many elements matches a host loop") {
  std::vector<float> values(10000);
  std::vector<int32_t> expected(values.size());
  const std::vector<float> boundaries = {-2.f, -1.f, 0.f, 0.5f, 3.f};
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(static_cast<int>(i % 23) - 11) * 0.25f;
    int32_t bucket = 0;
    for (float b : boundaries) bucket += values[i] >= b ? 1 : 0;
    expected[i] = bucket;
  }
  ExpectTensor(bucketize(from_vector(values, {100, 100}), boundaries), kInt32, {100, 100},
               std::vector<double>(expected.begin(), expected.end()), 0);
}

TEST_CASE("Bucketize reports unsorted boundaries and unsupported dtypes") {
  ExpectError(
      [] {
        bucketize(constant({1.f}), {2.f, 1.f});
      },
      {"Bucketize", "boundaries must be sorted", "[2, 1]"});
  ExpectError([] { bucketize(constant({true}), {1.f}); }, {"Bucketize", "T"});
}

}  // namespace
}  // namespace duet
