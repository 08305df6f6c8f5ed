// Range: TensorFlow's length rule and errors, NumPy's values (np.arange, as in the comments).
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("Range counts from start towards limit in steps of delta") {
  // np.arange(2, 11, 3), np.arange(5, 0, -2)
  testing::ExpectTensor(range(constant(2), 11, 3), kInt32, {3}, {2, 5, 8});
  testing::ExpectTensor(range(constant(5), 0, -2), kInt32, {3}, {5, 3, 1});
  testing::ExpectTensor(range(constant(int64_t{-3}), 3, 2), kInt64, {3}, {-3, -1, 1});
  // np.arange(0, 1, 0.25), np.arange(1.5, -1, -0.5)
  testing::ExpectTensor(range(constant(0.f), 1, 0.25), kFloat32, {4}, {0, 0.25, 0.5, 0.75});
  testing::ExpectTensor(range(constant(1.5), -1, -0.5), kFloat64, {5}, {1.5, 1, 0.5, 0, -0.5});
  // np.arange(0, 1, 0.1, dtype=np.float32): ten values, each start + i * delta
  testing::ExpectTensor(range(constant(0.f), 1, 0.1), kFloat32, {10},
                        {0, .1, .2, .3, .4, .5, .6, .7, .8, .9}, 1e-7);
  testing::ExpectTensor(range(constant(3), 3, 1), kInt32, {0}, {});
  testing::ExpectTensor(range(Tensor(0), 5, 1, kInt64), kInt64, {5}, {0, 1, 2, 3, 4});
  testing::ExpectTensor(range(Tensor(0), Tensor(3), Tensor(1), kFloat64), kFloat64, {3}, {0, 1, 2});
  // Extreme int64 bounds: the length and the values need no intermediate overflow.
  const int64_t big = int64_t{1} << 62;
  testing::ExpectTensor(range(constant(-big), big, big), kInt64, {2},
                        {static_cast<double>(-big), 0});
}

// Issue 37: the length is computed in the operands' dtype, as TensorFlow does. In float32,
// (0.3f - 0) / 0.1f rounds to exactly 3 (tf.range(0., .3, .1) has 3 elements); the same float32
// values divided in double give 3.0000000745, whose ceiling made 4.
TEST_CASE("Range in float32 counts in float32") {
  testing::ExpectTensor(range(constant(0.f), constant(0.3f), constant(0.1f)), kFloat32, {3},
                        {0, 0.1, 0.2}, 1e-7);
  testing::ExpectTensor(range(constant(0.0), constant(0.3), constant(0.1)), kFloat64, {3},
                        {0, 0.1, 0.2}, 1e-15);
}

TEST_CASE("Range of a large length fills every element") {
  const std::vector<int32_t> v = range(constant(0), 300000, 1).to_vector<int32_t>();
  REQUIRE(v.size() == 300000);
  int64_t mismatches = 0;
  for (int32_t i = 0; i < 300000; ++i) mismatches += v[i] != i;
  CHECK(mismatches == 0);
}

TEST_CASE("Range rejects a zero delta, a wrong direction and bad operands") {
  testing::ExpectError([] { range(constant(0), 5, 0); },
                       {"Range", "delta must not be 0", "range_op_test.cc"});
  testing::ExpectError(
      [] { range(constant(5), 1, 1); },
      {"Range", "requires start <= limit when delta is positive", "start is 5", "limit 1"});
  testing::ExpectError([] { range(constant(1.f), 5, -0.5); },
                       {"Range", "requires start >= limit when delta is negative"});
  testing::ExpectError([] { range(constant(0.f), 1e20, 1e-10); }, {"Range", "too many elements"});
  testing::ExpectError(
      [] {
        range(constant(0), constant({1, 2}));
      },
      {"Range", "limit must be a scalar"});
  testing::ExpectError([] { range(constant(true), 2); }, {"Range", "bool"});
  testing::ExpectError([] { range(constant(0), constant(2.f)); }, {"Range", "float32", "int32"});
  testing::ExpectError([] { range(constant(0), 5, 1, kInt64); }, {"Range", "int32", "int64"});
}

}  // namespace
}  // namespace duet
