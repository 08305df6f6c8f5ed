// GatherNd, ScatterNd, TensorScatterUpdate, TensorScatterAdd: every dtype, both index dtypes,
// against TensorFlow's values (testdata/gen_scatter_nd_expected.py), shapes and bad input.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

#define DUET_ADDING_TYPES float, double, float16, bfloat16, int32_t, int64_t

TEMPLATE_TEST_CASE("GatherNd picks slices by rows of indices", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({2, 3, 4});
  testing::ExpectTensor(gather_nd(x, constant({{1, 2}, {0, 1}})), dt, {2, 4},
                        SequenceExpected<TestType>({20, 21, 22, 23, 4, 5, 6, 7}));
  testing::ExpectTensor(gather_nd(x, constant<int64_t>({{{1, 0, 3}}, {{0, 2, 1}}})), dt, {2, 1},
                        SequenceExpected<TestType>({15, 9}));
  testing::ExpectTensor(
      gather_nd(x, constant({{1}})), dt, {1, 3, 4},
      SequenceExpected<TestType>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
  // K = 0: every row picks the whole of params.
  std::vector<double> twice;
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 24; ++i) twice.push_back(i);
  }
  testing::ExpectTensor(gather_nd(x, zeros({2, 0}, kInt32)), dt, {2, 2, 3, 4},
                        SequenceExpected<TestType>(twice));
  testing::ExpectTensor(gather_nd(x, zeros({0, 2}, kInt64)), dt, {0, 4}, {});
}

TEMPLATE_TEST_CASE("ScatterNd adds updates into zeros", "", DUET_ADDING_TYPES) {
  const DType dt = DTypeOf<TestType>();
  testing::ExpectTensor(
      scatter_nd(constant({{1}, {3}, {1}}), SequenceTensor<TestType>({3}, 9), Shape{5}), dt, {5},
      {0, 20, 0, 10, 0});
  testing::ExpectTensor(
      scatter_nd(constant<int64_t>({{0, 1}, {2, 0}}), SequenceTensor<TestType>({2, 2}, 1),
                 constant<int64_t>({3, 2, 2})),
      dt, {3, 2, 2}, {0, 0, 1, 2, 0, 0, 0, 0, 3, 4, 0, 0});
  testing::ExpectTensor(scatter_nd(zeros({0, 1}, kInt32), zeros({0, 2}, dt), Shape{3, 2}), dt,
                        {3, 2}, {0, 0, 0, 0, 0, 0});
}

TEMPLATE_TEST_CASE("TensorScatterUpdate replaces slices, the last duplicate winning", "",
                   DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({2, 3, 4});
  testing::ExpectTensor(
      tensor_scatter_update(x, constant({{1, 2}, {0, 0}, {1, 2}}),
                            SequenceTensor<TestType>({3, 4}, 100)),
      dt, {2, 3, 4},
      SequenceExpected<TestType>({104, 105, 106, 107, 4,  5,  6,  7,  8,   9,   10,  11,
                                  12,  13,  14,  15,  16, 17, 18, 19, 108, 109, 110, 111}));
}

TEMPLATE_TEST_CASE("TensorScatterAdd adds updates to a tensor", "", DUET_ADDING_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({2, 3, 4});
  testing::ExpectTensor(tensor_scatter_add(x, constant<int64_t>({{1, 2, 3}, {0, 0, 0}, {1, 2, 3}}),
                                           testing::MakeTensor(dt, {3}, {10, 20, 30})),
                        dt, {2, 3, 4}, {20, 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                        12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 63});
}

TEST_CASE("Large GatherNd and ScatterNd agree with index math") {
  const Tensor table = SequenceTensor<float>({300, 40, 7});
  std::vector<int32_t> idx;
  for (int i = 0; i < 5000; ++i) {
    idx.push_back((i * 7919) % 300);
    idx.push_back((i * 31) % 40);
  }
  const Tensor indices = from_vector(idx, Shape{5000, 2});
  const std::vector<float> rows = gather_nd(table, indices).to_vector<float>();
  int64_t mismatches = 0;
  for (int i = 0; i < 5000; ++i) {
    for (int c = 0; c < 7; ++c)
      mismatches += rows[i * 7 + c] != (idx[2 * i] * 40 + idx[2 * i + 1]) * 7 + c;
  }
  CHECK(mismatches == 0);
  // Scattering ones counts how often each slice was picked.
  const std::vector<float> counts =
      scatter_nd(indices, ones({5000, 7}), Shape{300, 40, 7}).to_vector<float>();
  std::vector<float> expected(300 * 40 * 7, 0.f);
  for (int i = 0; i < 5000; ++i) {
    for (int c = 0; c < 7; ++c) expected[(idx[2 * i] * 40 + idx[2 * i + 1]) * 7 + c] += 1;
  }
  CHECK(counts == expected);
}

TEST_CASE("GatherNd and the scatters report bad indices and shapes by name") {
  const Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        gather_nd(x, constant({{0, 1}, {1, 3}}));
      },
      {"GatherNd", "indices[1] = [1, 3] does not index into params shape (2, 3)",
       "params: float32 (2, 3)", "indices: int32 (2, 2)", "scatter_nd_ops_test.cc"});
  testing::ExpectError([&] { gather_nd(x, constant<int64_t>({{{-1}}})); },
                       {"GatherNd", "indices[0, 0] = [-1] does not index into params shape"});
  testing::ExpectError(
      [&] {
        gather_nd(x, constant({{0, 1, 2}}));
      },
      {"GatherNd",
       "the last dim of indices (1, 3) must be at most the rank of "
       "params (2, 3)"});
  testing::ExpectError([&] { gather_nd(x, constant(1)); },
                       {"GatherNd", "indices must be at least 1-D"});
  testing::ExpectError([&] { gather_nd(x, constant({0.f})); },
                       {"GatherNd", "dtype float32 is not supported", "Tindices"});
  testing::ExpectError(
      [&] {
        scatter_nd(constant({{5}}), ones({1, 3}), Shape{4, 3});
      },
      {"ScatterNd", "indices[0] = [5] does not index into output shape (4, 3)"});
  testing::ExpectError(
      [&] {
        scatter_nd(constant({{1}}), ones({1, 2}), Shape{4, 3});
      },
      {"ScatterNd",
       "updates shape (1, 2) must be indices.shape[:-1] + "
       "shape.shape[1:] = (1, 3)"});
  testing::ExpectError(
      [&] {
        scatter_nd(constant({{1}}), ones({1, 3}), constant({{4, 3}}));
      },
      {"ScatterNd", "shape"});
  testing::ExpectError([&] { scatter_nd(constant({{1}}), constant({true}), Shape{4}); },
                       {"ScatterNd", "dtype bool is not supported"});
  testing::ExpectError(
      [&] {
        tensor_scatter_update(x, constant({{2}}), ones({1, 3}));
      },
      {"TensorScatterUpdate", "indices[0] = [2] does not index into tensor shape (2, 3)"});
  testing::ExpectError(
      [&] {
        tensor_scatter_add(x, constant({{1}}), ones({2, 3}));
      },
      {"TensorScatterAdd",
       "updates shape (2, 3) must be indices.shape[:-1] + "
       "tensor.shape[1:] = (1, 3)"});
  testing::ExpectError([&] { tensor_scatter_update(x, constant({1}), ones({3}, kFloat64)); },
                       {"TensorScatterUpdate"});
}

}  // namespace
}  // namespace duet
