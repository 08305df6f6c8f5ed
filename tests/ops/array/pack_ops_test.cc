// Pack and Unpack (stack, unstack): every dtype, negative axes, large copies, errors. Expected
// values are NumPy's, computed by the expressions in the comments.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Pack stacks along a new axis", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor a = SequenceTensor<TestType>({2, 3});
  Tensor b = SequenceTensor<TestType>({2, 3}, 100);
  // a = np.arange(6).reshape(2, 3); b = a + 100; np.stack([a, b], axis)
  testing::ExpectTensor(
      stack({a, b}), dt, {2, 2, 3},
      SequenceExpected<TestType>({0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105}));
  testing::ExpectTensor(
      stack({a, b}, 1), dt, {2, 2, 3},
      SequenceExpected<TestType>({0, 1, 2, 100, 101, 102, 3, 4, 5, 103, 104, 105}));
  testing::ExpectTensor(
      stack({a, b}, -1), dt, {2, 3, 2},
      SequenceExpected<TestType>({0, 100, 1, 101, 2, 102, 3, 103, 4, 104, 5, 105}));
  testing::ExpectTensor(stack({a}, 2), dt, {2, 3, 1},
                        SequenceExpected<TestType>({0, 1, 2, 3, 4, 5}));
}

TEMPLATE_TEST_CASE("Unpack cuts into the slices along an axis", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  // x = np.arange(24).reshape(2, 3, 4); list(np.moveaxis(x, axis, 0))
  std::vector<Tensor> parts = unstack(x, 1);
  REQUIRE(parts.size() == 3);
  testing::ExpectTensor(parts[0], dt, {2, 4},
                        SequenceExpected<TestType>({0, 1, 2, 3, 12, 13, 14, 15}));
  testing::ExpectTensor(parts[2], dt, {2, 4},
                        SequenceExpected<TestType>({8, 9, 10, 11, 20, 21, 22, 23}));
  parts = unstack(x, -1);
  REQUIRE(parts.size() == 4);
  testing::ExpectTensor(parts[1], dt, {2, 3}, SequenceExpected<TestType>({1, 5, 9, 13, 17, 21}));
  parts = unstack(x);
  REQUIRE(parts.size() == 2);
  testing::ExpectTensor(
      parts[1], dt, {3, 4},
      SequenceExpected<TestType>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
}

TEST_CASE("Pack and Unpack of scalars, empty and large tensors") {
  testing::ExpectTensor(stack({constant(1.f), constant(2.f), constant(3.f)}), kFloat32, {3},
                        {1, 2, 3});
  std::vector<Tensor> scalars = unstack(constant({4, 5}));
  REQUIRE(scalars.size() == 2);
  testing::ExpectTensor(scalars[1], kInt32, {}, {5});
  testing::ExpectTensor(stack({zeros({0, 2}), zeros({0, 2})}, 1), kFloat32, {0, 2, 2}, {});
  CHECK(unstack(zeros({0, 3})).empty());
  std::vector<Tensor> empty_slices = unstack(zeros({2, 0}));
  REQUIRE(empty_slices.size() == 2);
  testing::ExpectTensor(empty_slices[0], kFloat32, {0}, {});
  // Many rows (the row-by-row path) and few large rows (one parallel copy per operand).
  for (const Shape& s : {Shape{4000, 50}, Shape{2, 100000}}) {
    Tensor x = SequenceTensor<int32_t>(s), y = SequenceTensor<int32_t>(s, 1000000);
    for (int64_t axis : {0, 1, 2}) {
      const std::vector<Tensor> back = unstack(stack({x, y}, axis), axis);
      REQUIRE(back.size() == 2);
      CHECK(back[0].to_vector<int32_t>() == x.to_vector<int32_t>());
      CHECK(back[1].to_vector<int32_t>() == y.to_vector<int32_t>());
    }
  }
}

TEST_CASE("Pack and Unpack report shape and axis errors") {
  testing::ExpectError(
      [] {
        stack({zeros({2, 3}), zeros({3, 2})});
      },
      {"Pack", "values[1] has shape (3, 2) but values[0] has shape (2, 3)", "pack_ops_test.cc"});
  testing::ExpectError(
      [] {
        stack({zeros({2}), zeros({2, 1})});
      },
      {"Pack", "values[1] has shape (2, 1) but values[0] has shape (2,)"});
  testing::ExpectError(
      [] {
        stack({zeros({2, 3})}, 3);
      },
      {"Pack", "axis 3 is out of range", "rank 3", "[-3, 3)"});
  testing::ExpectError(
      [] {
        stack({zeros({2}), zeros({2}, kInt32)});
      },
      {"Pack", "int32", "float32"});
  testing::ExpectError([] { stack({}); }, {"Pack", "attr 'N' is 0, must be at least 1"});
  testing::ExpectError(
      [] {
        unstack(zeros({2, 3}), 2);
      },
      {"Unpack", "axis 2 is out of range", "rank 2"});
  testing::ExpectError([] { unstack(constant(1.f)); },
                       {"Unpack", "cannot unstack a scalar", "pack_ops_test.cc"});
}

}  // namespace
}  // namespace duet
