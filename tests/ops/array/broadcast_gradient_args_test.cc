// BroadcastGradientArgs: the axes each operand was broadcast along (TensorFlow's op).
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("broadcast_gradient_args gives each operand's broadcast axes") {
  // (2, 1, 3) with (4, 1) broadcasts to (2, 4, 3): s0 along axis 1, s1 along axes 0 and 2.
  auto [r0, r1] = broadcast_gradient_args(from_vector(std::vector<int32_t>{2, 1, 3}),
                                          from_vector(std::vector<int32_t>{4, 1}));
  testing::ExpectTensor(r0, kInt32, {1}, {1});
  testing::ExpectTensor(r1, kInt32, {2}, {0, 2});
  // Equal shapes: nothing to sum, even along their dims of size 1; int64 shapes give int64.
  auto [e0, e1] = broadcast_gradient_args(from_vector(std::vector<int64_t>{1, 5}),
                                          from_vector(std::vector<int64_t>{1, 5}));
  CHECK(e0.dtype() == kInt64);
  CHECK(e0.num_elements() == 0);
  CHECK(e1.num_elements() == 0);
}

// Issue 37: an axis where both shapes are 1 belongs to both lists unless the shapes are equal,
// as in TensorFlow (values from tf.raw_ops.BroadcastGradientArgs).
TEST_CASE("broadcast_gradient_args lists axes where both dims are 1, as TensorFlow") {
  auto [a0, a1] = broadcast_gradient_args(from_vector(std::vector<int32_t>{1, 1, 1}),
                                          from_vector(std::vector<int32_t>{}));
  testing::ExpectTensor(a0, kInt32, {3}, {0, 1, 2});
  testing::ExpectTensor(a1, kInt32, {3}, {0, 1, 2});
  auto [b0, b1] = broadcast_gradient_args(from_vector(std::vector<int64_t>{1, 2, 1, 3, 1}),
                                          from_vector(std::vector<int64_t>{1, 3, 1}));
  testing::ExpectTensor(b0, kInt64, {3}, {0, 2, 4});
  testing::ExpectTensor(b1, kInt64, {4}, {0, 1, 2, 4});
  auto [c0, c1] = broadcast_gradient_args(from_vector(std::vector<int32_t>{2, 1}),
                                          from_vector(std::vector<int32_t>{1}));
  testing::ExpectTensor(c0, kInt32, {1}, {1});
  testing::ExpectTensor(c1, kInt32, {2}, {0, 1});
}

TEST_CASE("shapes that do not broadcast are an error naming them") {
  testing::ExpectError(
      [] {
        broadcast_gradient_args(from_vector(std::vector<int32_t>{2, 3}),
                                from_vector(std::vector<int32_t>{4}));
      },
      {"BroadcastGradientArgs", "[2, 3]", "[4]", "do not broadcast"});
}

}  // namespace
}  // namespace duet
