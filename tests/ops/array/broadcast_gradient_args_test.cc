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
  // Equal shapes: nothing to sum; size-1 result dims are left out; int64 shapes give int64.
  auto [e0, e1] = broadcast_gradient_args(from_vector(std::vector<int64_t>{1, 5}),
                                          from_vector(std::vector<int64_t>{1, 5}));
  CHECK(e0.dtype() == kInt64);
  CHECK(e0.num_elements() == 0);
  CHECK(e1.num_elements() == 0);
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
