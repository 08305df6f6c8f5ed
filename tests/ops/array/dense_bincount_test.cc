// DenseBincount: counts and weighted sums per row against TensorFlow's values, binary output,
// dropped large values, empty rows, many rows in parallel, errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/segment_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

const Tensor kNoWeights = from_vector<float>({});

TEST_CASE("DenseBincount counts values and sums weights as TensorFlow does") {
  // tf.raw_ops.DenseBincount(input=[1, 2, 2, 5, 0], size=4, weights=[], binary_output=False)
  ExpectTensor(dense_bincount(constant({1, 2, 2, 5, 0}), 4, kNoWeights), kFloat32, {4},
               {1, 1, 2, 0});
  const Tensor rows = constant({{1, 2, 2}, {3, 3, 0}});
  const Tensor weights = constant({{1.f, 2.f, 3.f}, {.5f, .5f, 7.f}});
  ExpectTensor(dense_bincount(rows, 4, weights), kFloat32, {2, 4}, {0, 1, 5, 0, 7, 0, 0, 1});
  ExpectTensor(dense_bincount(rows, 4, weights, /*binary_output=*/true), kFloat32, {2, 4},
               {0, 1, 1, 0, 1, 0, 0, 1});
  ExpectTensor(dense_bincount(constant<int64_t>({1, 2}), 3, constant<int64_t>({2, 3})), kInt64, {3},
               {0, 2, 3});
  ExpectTensor(dense_bincount(rows, 3, constant({{1.0, 2.0, 3.0}, {.5, .5, 7.0}})), kFloat64,
               {2, 3}, {0, 1, 5, 7, 0, 0});
  ExpectTensor(dense_bincount(rows, 3, from_vector<int32_t>({}), true), kInt32, {2, 3},
               {0, 1, 1, 1, 0, 0});
}

TEST_CASE("DenseBincount of empty rows and of size 0") {
  ExpectTensor(dense_bincount(zeros({2, 0}, kInt32), 3, kNoWeights), kFloat32, {2, 3},
               {0, 0, 0, 0, 0, 0});
  ExpectTensor(dense_bincount(constant({0, 1}), 0, kNoWeights), kFloat32, {0}, {});
}

TEST_CASE("DenseBincount over many rows matches a host loop") {
  const int64_t rows = 500, per_row = 40, size = 17;
  std::vector<int32_t> values(rows * per_row);
  std::vector<double> expected(rows * size, 0.0);
  for (int64_t i = 0; i < rows * per_row; ++i) {
    values[i] = static_cast<int32_t>((i * 7) % (size + 3));  // some past the last bin
    if (values[i] < size) expected[(i / per_row) * size + values[i]] += i % 5;
  }
  std::vector<double> w(rows * per_row);
  for (int64_t i = 0; i < rows * per_row; ++i) w[i] = static_cast<double>(i % 5);
  ExpectTensor(
      dense_bincount(from_vector(values, {rows, per_row}), size, from_vector(w, {rows, per_row})),
      kFloat64, {rows, size}, expected, 0);
}

TEST_CASE("DenseBincount reports negative values, bad shapes and sizes") {
  ExpectError(
      [] {
        dense_bincount(constant({1, -2}), 4, kNoWeights);
      },
      {"DenseBincount", "input[1] = -2 is negative"});
  ExpectError(
      [] {
        dense_bincount(constant({1, 2}), -1, kNoWeights);
      },
      {"DenseBincount", "size (-1) is negative"});
  ExpectError(
      [] {
        dense_bincount(constant({1, 2}), 3, constant({1.f, 2.f, 3.f}));
      },
      {"DenseBincount", "weights must be empty or of the input's shape (2,)", "got shape (3,)"});
  ExpectError(
      [] {
        dense_bincount(zeros({1, 1, 2}, kInt32), 3, kNoWeights);
      },
      {"DenseBincount", "1-D or 2-D", "(1, 1, 2)"});
  ExpectError([] { dense_bincount(constant({1.f}), 3, kNoWeights); }, {"DenseBincount", "Tidx"});
}

}  // namespace
}  // namespace duet
