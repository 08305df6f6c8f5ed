// ConcatV2, Split, SplitV: every dtype, negative axes, large copies, errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Concat joins along an axis", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor a = SequenceTensor<TestType>({2, 3, 4});
  Tensor b = SequenceTensor<TestType>({2, 2, 4}, 100);
  Tensor c = SequenceTensor<TestType>({2, 3, 1}, 200);
  // np.concatenate([a, b], axis=1)
  testing::ExpectTensor(concat({a, b}, 1), dt, {2, 5, 4},
                        SequenceExpected<TestType>(
                            {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11, 100, 101,
                             102, 103, 104, 105, 106, 107, 12,  13,  14,  15,  16,  17, 18,  19,
                             20,  21,  22,  23,  108, 109, 110, 111, 112, 113, 114, 115}));
  // np.concatenate([a, c, a], axis=-1)
  testing::ExpectTensor(
      concat({a, c, a}, -1), dt, {2, 3, 9},
      SequenceExpected<TestType>({0,  1,  2,  3,   200, 0,  1,  2,   3,   4,  5,  6,  7,   201,
                                  4,  5,  6,  7,   8,   9,  10, 11,  202, 8,  9,  10, 11,  12,
                                  13, 14, 15, 203, 12,  13, 14, 15,  16,  17, 18, 19, 204, 16,
                                  17, 18, 19, 20,  21,  22, 23, 205, 20,  21, 22, 23}));
  // np.concatenate([a, a], axis=0)
  testing::ExpectTensor(
      concat({a, a}, 0), dt, {4, 3, 4},
      SequenceExpected<TestType>({0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                  16, 17, 18, 19, 20, 21, 22, 23, 0,  1,  2,  3,  4,  5,  6,  7,
                                  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
  testing::ExpectTensor(
      concat({a}, 2), dt, {2, 3, 4},
      SequenceExpected<TestType>(
          {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
}

TEST_CASE("Concat of empty and large operands") {
  testing::ExpectTensor(concat({zeros({2, 0}), ones({2, 2})}, 1), kFloat32, {2, 2}, {1, 1, 1, 1});
  testing::ExpectTensor(concat({zeros({0, 2}), zeros({0, 2})}, 0), kFloat32, {0, 2}, {});
  // Many rows (row-by-row path) and few huge rows (per-operand parallel copies).
  for (const Shape& s : {Shape{4000, 50}, Shape{2, 100000}}) {
    Tensor x = SequenceTensor<int32_t>(s), y = SequenceTensor<int32_t>(s, 1000000);
    std::vector<int32_t> got = concat({x, y}, 1).to_vector<int32_t>();
    const int64_t rows = s.dim(0), cols = s.dim(1);
    int64_t mismatches = 0;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < 2 * cols; ++j) {
        const int64_t expected = j < cols ? r * cols + j : 1000000 + r * cols + (j - cols);
        mismatches += got[r * 2 * cols + j] != expected;
      }
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("Concat reports rank and dim mismatches") {
  testing::ExpectError(
      [] {
        concat({zeros({2, 2}), zeros({2})}, 0);
      },
      {"ConcatV2", "values[1] has rank 1 but values[0] has rank 2", "shapes (2,) and (2, 2)",
       "values[0]: float32 (2, 2)", "values[1]: float32 (2,)", "concat_split_ops_test.cc"});
  testing::ExpectError(
      [] {
        concat({zeros({2, 2}), zeros({3, 3})}, 1);
      },
      {"ConcatV2",
       "dimension 0 of values[1] (shape (3, 3)) is 3 but values[0] "
       "(shape (2, 2)) has 2; all dims except the concat axis 1 "
       "must match"});
  testing::ExpectError(
      [] {
        concat({zeros({2, 2}), zeros({2, 2})}, 2);
      },
      {"ConcatV2", "axis 2 is out of range for a tensor of rank 2"});
  testing::ExpectError(
      [] {
        concat({constant(1.f), constant(2.f)}, 0);
      },
      {"ConcatV2", "cannot concatenate scalars"});
  testing::ExpectError(
      [] {
        concat({zeros({2}), zeros({2}, kInt32)}, 0);
      },
      {"ConcatV2", "int32", "float32"});
  testing::ExpectError([] { concat({}, 0); }, {"ConcatV2", "attr 'N' is 0, must be at least 1"});
}

TEMPLATE_TEST_CASE("Split cuts into equal pieces", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  std::vector<Tensor> parts = split(x, 2, -1);
  REQUIRE(parts.size() == 2);
  // np.split(x, 2, axis=-1)
  testing::ExpectTensor(parts[0], dt, {2, 3, 2},
                        SequenceExpected<TestType>({0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21}));
  testing::ExpectTensor(parts[1], dt, {2, 3, 2},
                        SequenceExpected<TestType>({2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23}));
  parts = split(x, 3, 1);
  REQUIRE(parts.size() == 3);
  testing::ExpectTensor(parts[1], dt, {2, 1, 4},
                        SequenceExpected<TestType>({4, 5, 6, 7, 16, 17, 18, 19}));
  parts = split(x, 2);
  testing::ExpectTensor(
      parts[1], dt, {1, 3, 4},
      SequenceExpected<TestType>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
}

TEMPLATE_TEST_CASE("SplitV cuts into given sizes", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  std::vector<Tensor> parts = split(x, std::vector<int64_t>{1, -1, 0}, 2);
  REQUIRE(parts.size() == 3);
  // np.split(x, [1], axis=2)
  testing::ExpectTensor(parts[0], dt, {2, 3, 1}, SequenceExpected<TestType>({0, 4, 8, 12, 16, 20}));
  testing::ExpectTensor(parts[1], dt, {2, 3, 3},
                        SequenceExpected<TestType>(
                            {1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23}));
  testing::ExpectTensor(parts[2], dt, {2, 3, 0}, {});
  parts = split(x, {2, 1}, -2);
  testing::ExpectTensor(
      parts[0], dt, {2, 2, 4},
      SequenceExpected<TestType>({0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19}));
  testing::ExpectTensor(parts[1], dt, {2, 1, 4},
                        SequenceExpected<TestType>({8, 9, 10, 11, 20, 21, 22, 23}));
}

TEST_CASE("Split of a large tensor round-trips through concat") {
  Tensor x = SequenceTensor<int64_t>({3, 200000});
  std::vector<Tensor> parts = split(x, {50000, 150000}, 1);
  CHECK(concat(parts, 1).to_vector<int64_t>() == x.to_vector<int64_t>());
  parts = split(x, 3, 0);
  CHECK(concat(parts, 0).to_vector<int64_t>() == x.to_vector<int64_t>());
}

TEST_CASE("Split and SplitV report sizes that do not fit") {
  Tensor x = zeros({2, 5});
  testing::ExpectError([&] { split(x, 2, 1); },
                       {"Split",
                        "dimension 1 of shape (2, 5) has size 5, which num_split 2 does "
                        "not divide",
                        "value: float32 (2, 5)"});
  testing::ExpectError([&] { split(x, 2, 2); },
                       {"Split", "axis 2 is out of range for a tensor of rank 2"});
  testing::ExpectError([&] { split(x, 0, 1); }, {"Split", "num_split", "at least 1"});
  testing::ExpectError([&] { split(constant(1.f), 1, 0); }, {"Split", "cannot split a scalar"});
  testing::ExpectError(
      [&] {
        split(x, {1, 2}, 1);
      },
      {"SplitV",
       "size_splits [1, 2] sum to 3 but dimension 1 of shape (2, 5) "
       "has size 5"});
  testing::ExpectError(
      [&] {
        split(x, {4, -1, 3}, 1);
      },
      {"SplitV", "size_splits [4, -1, 3] sum to 7"});
  testing::ExpectError(
      [&] {
        split(x, {-1, -1}, 1);
      },
      {"SplitV", "size_splits [-1, -1] may hold one -1"});
}

}  // namespace
}  // namespace duet
