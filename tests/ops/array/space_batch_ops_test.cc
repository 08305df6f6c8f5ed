// SpaceToBatchND and BatchToSpaceND: every dtype against TensorFlow's values
// (testdata/gen_space_batch_expected.py), round trips, tensor operands and bad operands.
#include "ops/array/space_batch_ops.h"

#include <catch2/catch.hpp>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("SpaceToBatchND and BatchToSpaceND match TensorFlow", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({2, 3, 4, 2});
  const Tensor y = space_to_batch_nd(x, {2, 2}, {{1, 0}, {0, 2}});
  testing::ExpectTensor(
      y, dt, {8, 2, 3, 2},
      SequenceExpected<TestType>(
          {0, 0, 0, 0, 0, 0, 8,  9,  12, 13, 0, 0, 0,  0,  0,  0,  0, 0, 32, 33, 36, 37, 0, 0,
           0, 0, 0, 0, 0, 0, 10, 11, 14, 15, 0, 0, 0,  0,  0,  0,  0, 0, 34, 35, 38, 39, 0, 0,
           0, 1, 4, 5, 0, 0, 16, 17, 20, 21, 0, 0, 24, 25, 28, 29, 0, 0, 40, 41, 44, 45, 0, 0,
           2, 3, 6, 7, 0, 0, 18, 19, 22, 23, 0, 0, 26, 27, 30, 31, 0, 0, 42, 43, 46, 47, 0, 0}));
  // Cropping the padding off again gives x back.
  testing::ExpectTensorNear(batch_to_space_nd(y, {2, 2}, {{1, 0}, {0, 2}}), x, 0);
  testing::ExpectTensor(batch_to_space_nd(SequenceTensor<TestType>({8, 1, 2, 1}),
                                          constant<int64_t>({2, 2}), constant({{0, 1}, {1, 0}})),
                        dt, {2, 1, 3, 1}, SequenceExpected<TestType>({4, 1, 5, 6, 3, 7}));
  testing::ExpectTensor(
      space_to_batch_nd(SequenceTensor<TestType>({2, 5, 1}), {3}, {{2, 2}}), dt, {6, 3, 1},
      SequenceExpected<TestType>({0, 1, 4, 0, 6, 9, 0, 2, 0, 0, 7, 0, 0, 3, 0, 5, 8, 0}));
  // Empty batch; no spatial dims (M = 0) is a copy.
  testing::ExpectTensor(space_to_batch_nd(zeros({0, 4, 1}, dt), {2}, {{0, 0}}), dt, {0, 2, 1}, {});
  testing::ExpectTensorNear(
      space_to_batch_nd(x, from_vector(std::vector<int32_t>{}), zeros({0, 2}, kInt32)), x, 0);
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND round-trip large dilated inputs") {
  const Tensor x = SequenceTensor<float>({3, 17, 13, 5});
  const Tensor y = space_to_batch_nd(x, {4, 3}, {{3, 0}, {1, 1}});
  CHECK(y.shape() == Shape({36, 5, 5, 5}));
  testing::ExpectTensorNear(batch_to_space_nd(y, {4, 3}, {{3, 0}, {1, 1}}), x, 0);
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND report bad operands by name") {
  const Tensor x = zeros({1, 4, 4, 1});
  testing::ExpectError(
      [&] {
        space_to_batch_nd(x, {3, 2}, {{0, 0}, {0, 0}});
      },
      {"SpaceToBatchND", "spatial dim 0 of input (1, 4, 4, 1) padded by 0 + 0 to 4",
       "must divide by block_shape[0] = 3", "input: float32 (1, 4, 4, 1)",
       "space_batch_ops_test.cc"});
  testing::ExpectError(
      [&] {
        space_to_batch_nd(x, {0, 2}, {{0, 0}, {0, 0}});
      },
      {"SpaceToBatchND", "block_shape [0, 2] must be positive"});
  testing::ExpectError(
      [&] {
        space_to_batch_nd(x, {2, 2}, {{0, -2}, {0, 0}});
      },
      {"SpaceToBatchND", "paddings [0, -2, 0, 0] must be non-negative"});
  testing::ExpectError(
      [&] {
        space_to_batch_nd(x, {2, 2}, {{0, 0}});
      },
      {"SpaceToBatchND", "paddings must have shape [M, 2]"});
  testing::ExpectError(
      [&] {
        space_to_batch_nd(zeros({4}), {2}, {{0, 0}});
      },
      {"SpaceToBatchND", "must have a batch dim and 1 spatial dims"});
  testing::ExpectError(
      [&] {
        batch_to_space_nd(x, {2, 2}, {{0, 0}, {0, 0}});
      },
      {"BatchToSpaceND",
       "the batch dim of input (1, 4, 4, 1) must divide by the "
       "product 4 of block_shape [2, 2]"});
  testing::ExpectError(
      [&] {
        batch_to_space_nd(zeros({4, 1, 1, 1}), {2, 2}, {{1, 2}, {0, 0}});
      },
      {"BatchToSpaceND", "crops 1 + 2 of spatial dim 0 exceed its size 2"});
}

}  // namespace
}  // namespace duet
