// OneHot: every output dtype, both index dtypes, axes, errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;

TEMPLATE_TEST_CASE("OneHot encodes along a new axis", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor idx = constant({0, 2, -1, 1});  // -1 is out of range: all off
  testing::ExpectTensor(one_hot(idx, 3, 3, 0, -1, dt), dt, {4, 3},
                        SequenceExpected<TestType>({3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0}));
  testing::ExpectTensor(one_hot(idx, 3, 3, 0, 0, dt), dt, {3, 4},
                        SequenceExpected<TestType>({3, 0, 0, 0, 0, 0, 0, 3, 0, 3, 0, 0}));
  Tensor idx2 = constant<int64_t>({{0, 1}, {2, 3}});
  testing::ExpectTensor(one_hot(idx2, 3, 3, 0, 1, dt), dt, {2, 3, 2},
                        SequenceExpected<TestType>({3, 0, 0, 3, 0, 0, 0, 0, 0, 0, 3, 0}));
  testing::ExpectTensor(one_hot(idx2, 3, 3, 0, 2, dt), dt, {2, 2, 3},
                        SequenceExpected<TestType>({3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}));
}

TEST_CASE("OneHot defaults, custom values, scalars and empty depth") {
  testing::ExpectTensor(one_hot(constant({1, 0}), 2), kFloat32, {2, 2}, {0, 1, 1, 0});
  testing::ExpectTensor(one_hot(constant(int64_t{2}), 4, 0.5, -1, -1, kFloat64), kFloat64, {4},
                        {-1, -1, 0.5, -1});
  testing::ExpectTensor(one_hot(constant({1, 0}), 0), kFloat32, {2, 0}, {});
  std::vector<int32_t> many(5000);
  for (int i = 0; i < 5000; ++i) many[i] = i % 100;
  std::vector<float> big = one_hot(from_vector(many), 100).to_vector<float>();
  double total = 0;
  for (float v : big) total += v;
  CHECK(total == 5000);
  CHECK(big[99 * 100 + 99] == 1);
}

TEST_CASE("OneHot reports bad depth and axis") {
  Tensor idx = constant({0, 1, 2, 3});
  testing::ExpectError([&] { one_hot(idx, -1); }, {"OneHot", "depth must be non-negative, got -1",
                                                   "indices: int32 (4,)", "one_hot_op_test.cc"});
  testing::ExpectError([&] { one_hot(idx, 3, 1, 0, 3); },
                       {"OneHot",
                        "axis 3 is out of range for one_hot of indices with shape (4,) "
                        "(allowed -1..1)"});
  testing::ExpectError([&] { one_hot(constant({0.f}), 3); },
                       {"OneHot", "dtype float32 is not supported", "TI"});
}

}  // namespace
}  // namespace duet
