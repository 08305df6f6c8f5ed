// Slice and Pad: every dtype, 3-D cases, large copies, errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Slice cuts out a block", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  // x[1:2, 0:3, 1:3]
  testing::ExpectTensor(slice(x, {1, 0, 1}, {1, 3, 2}), dt, {1, 3, 2},
                        SequenceExpected<TestType>({13, 14, 17, 18, 21, 22}));
  // x[:, 1:, 2:]
  testing::ExpectTensor(slice(x, {0, 1, 2}, {-1, -1, -1}), dt, {2, 2, 2},
                        SequenceExpected<TestType>({6, 7, 10, 11, 18, 19, 22, 23}));
  // x[:, 2:3, :]
  testing::ExpectTensor(slice(x, {0, 2, 0}, {2, 1, 4}), dt, {2, 1, 4},
                        SequenceExpected<TestType>({8, 9, 10, 11, 20, 21, 22, 23}));
  testing::ExpectTensor(slice(x, {2, 0, 0}, {0, -1, -1}), dt, {0, 3, 4}, {});
}

TEST_CASE("Slice of a large tensor matches index math") {
  Tensor x = SequenceTensor<float>({700, 600});
  std::vector<float> got = slice(x, {10, 20}, {600, 500}).to_vector<float>();
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 600; ++r) {
    for (int64_t c = 0; c < 500; ++c) mismatches += got[r * 500 + c] != (r + 10) * 600 + c + 20;
  }
  CHECK(mismatches == 0);
  testing::ExpectTensor(slice(constant(3.f), {}, {}), kFloat32, {}, {3});
}

TEST_CASE("Slice reports out-of-bounds blocks") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        slice(x, {1, 0}, {3, -1});
      },
      {"Slice",
       "begin [1, 0] and size [3, -1] are out of bounds for shape (2, 3) "
       "at dimension 0",
       "input: float32 (2, 3)", "slice_pad_ops_test.cc"});
  testing::ExpectError(
      [&] {
        slice(x, {0, 4}, {1, -1});
      },
      {"Slice", "out of bounds for shape (2, 3) at dimension 1"});
  testing::ExpectError(
      [&] {
        slice(x, {-1, 0}, {1, 1});
      },
      {"Slice", "begin [-1, 0] and size [1, 1] are out of bounds"});
  testing::ExpectError([&] { slice(x, {0, 0}, {1, -2}); }, {"Slice", "out of bounds"});
  testing::ExpectError(
      [&] {
        slice(x, {0}, {1, 1});
      },
      {"Slice",
       "begin [0] and size [1, 1] must both have one entry per dim of "
       "shape (2, 3)"});
}

TEMPLATE_TEST_CASE("Pad surrounds with zeros", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor m = SequenceTensor<TestType>({2, 3}, 1);
  // np.pad(m, ((1, 0), (0, 2)))
  testing::ExpectTensor(pad(m, {{1, 0}, {0, 2}}), dt, {3, 5},
                        SequenceExpected<TestType>({0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0}));
  Tensor x = SequenceTensor<TestType>({2, 3, 4}, 1);
  // np.pad(x, ((0, 1), (1, 1), (0, 0)))
  testing::ExpectTensor(
      pad(x, {{0, 1}, {1, 1}, {0, 0}}), dt, {3, 5, 4},
      SequenceExpected<TestType>({0,  0,  0,  0,  1,  2,  3, 4, 5, 6,  7,  8,  9,  10, 11,
                                  12, 0,  0,  0,  0,  0,  0, 0, 0, 13, 14, 15, 16, 17, 18,
                                  19, 20, 21, 22, 23, 24, 0, 0, 0, 0,  0,  0,  0,  0,  0,
                                  0,  0,  0,  0,  0,  0,  0, 0, 0, 0,  0,  0,  0,  0,  0}));
  testing::ExpectTensor(pad(m, from_vector<int64_t>({0, 0, 2, 0}, {2, 2})), dt, {2, 5},
                        SequenceExpected<TestType>({0, 0, 1, 2, 3, 0, 0, 4, 5, 6}));
  testing::ExpectTensor(pad(SequenceTensor<TestType>({0, 2}), {{1, 0}, {0, 0}}), dt, {1, 2},
                        {0, 0});
}

TEST_CASE("Pad of a large tensor keeps the interior") {
  Tensor x = SequenceTensor<double>({400, 300});
  std::vector<double> got = pad(x, {{2, 3}, {1, 0}}).to_vector<double>();
  REQUIRE(got.size() == 405 * 301);
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 405; ++r) {
    for (int64_t c = 0; c < 301; ++c) {
      const bool inside = r >= 2 && r < 402 && c >= 1;
      mismatches += got[r * 301 + c] != (inside ? (r - 2) * 300 + (c - 1) : 0);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Pad reports bad paddings") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        pad(x, {{1, 1}});
      },
      {"Pad",
       "paddings must have shape (2, 2) for an input of shape (2, 3), got "
       "(1, 2)"});
  testing::ExpectError(
      [&] {
        pad(x, {{1, -1}, {0, 0}});
      },
      {"Pad", "paddings [1, -1, 0, 0] must be non-negative"});
}

}  // namespace
}  // namespace duet
