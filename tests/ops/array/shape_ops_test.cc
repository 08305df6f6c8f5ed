// Shape, Size, Rank, ZerosLike, OnesLike, Fill: values for every dtype and errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;
using testing::SequenceValue;

TEMPLATE_TEST_CASE("Shape, Size and Rank describe the input", "", DUET_ALL_TYPES) {
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  testing::ExpectTensor(shape_of(x), kInt32, {3}, {2, 3, 4});
  testing::ExpectTensor(shape_of(x, kInt64), kInt64, {3}, {2, 3, 4});
  testing::ExpectTensor(size(x), kInt32, {}, {24});
  testing::ExpectTensor(size(x, kInt64), kInt64, {}, {24});
  testing::ExpectTensor(rank(x), kInt32, {}, {3});
}

TEST_CASE("Shape of a scalar is empty; bad out_type is rejected") {
  testing::ExpectTensor(shape_of(constant(1.f)), kInt32, {0}, {});
  testing::ExpectTensor(size(constant(1.f)), kInt32, {}, {1});
  testing::ExpectTensor(rank(constant(1.f)), kInt32, {}, {0});
  testing::ExpectTensor(size(zeros({3, 0})), kInt32, {}, {0});
  testing::ExpectError([] { shape_of(zeros({2}), kFloat32); },
                       {"Shape", "dtype float32 is not supported", "out_type"});
}

TEMPLATE_TEST_CASE("ZerosLike and OnesLike keep dtype and shape", "", DUET_ALL_TYPES) {
  Tensor x = SequenceTensor<TestType>({2, 3}, 5);
  testing::ExpectTensor(zeros_like(x), DTypeOf<TestType>(), {2, 3}, {0, 0, 0, 0, 0, 0});
  testing::ExpectTensor(ones_like(x), DTypeOf<TestType>(), {2, 3}, {1, 1, 1, 1, 1, 1});
  testing::ExpectTensor(zeros_like(SequenceTensor<TestType>({0, 2})), DTypeOf<TestType>(), {0, 2},
                        {});
}

TEMPLATE_TEST_CASE("Fill repeats a scalar", "", DUET_ALL_TYPES) {
  Tensor value = from_vector(std::vector<TestType>{SequenceValue<TestType>(3)}, Shape{});
  testing::ExpectTensor(fill({2, 2}, value), DTypeOf<TestType>(), {2, 2},
                        SequenceExpected<TestType>({3, 3, 3, 3}));
  testing::ExpectTensor(fill(Shape{}, value), DTypeOf<TestType>(), {},
                        SequenceExpected<TestType>({3}));
  testing::ExpectTensor(fill(from_vector<int64_t>({3, 0}), value), DTypeOf<TestType>(), {3, 0}, {});
}

TEST_CASE("Fill of a large tensor fills every element") {
  std::vector<float> v = fill({700000}, constant(1.5f)).to_vector<float>();
  CHECK(std::count(v.begin(), v.end(), 1.5f) == 700000);
}

TEST_CASE("Fill reports bad dims and values") {
  testing::ExpectError(
      [] {
        fill({2}, constant({1.f, 2.f}));
      },
      {"Fill", "value must be a scalar, got shape (2,)"});
  testing::ExpectError(
      [] {
        fill(from_vector<int32_t>({2, -1}), constant(1.f));
      },
      {"Fill", "dims [2, -1] must be non-negative", "dims: int32 (2,)"});
  testing::ExpectError(
      [] {
        fill(zeros({2, 2}, kInt32), constant(1.f));
      },
      {"Fill", "dims must be a 1-D tensor, got shape (2, 2)"});
}

}  // namespace
}  // namespace duet
