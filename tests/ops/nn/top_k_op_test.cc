// TopKV2 against TensorFlow's values (testdata/gen_top_k_expected.py): ties lower index first,
// every dtype, both index types, empty k, and bad k.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

#define DUET_TOP_K_TYPES float, double, float16, bfloat16, int32_t, int64_t

const std::vector<double> kTies = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8,
                                   9, 7, 9, 3, 2, 2, 2, 2, 1, 1, 1, 1};

TEMPLATE_TEST_CASE("TopKV2 picks the largest values, ties lower index first", "",
                   DUET_TOP_K_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor x = testing::MakeTensor(dt, {3, 8}, kTies);
  TopKResult r = top_k(x, 3);
  testing::ExpectTensor(r.values, dt, {3, 3}, {9, 6, 5, 9, 9, 8, 2, 2, 2});
  testing::ExpectTensor(r.indices, kInt32, {3, 3}, {5, 7, 4, 4, 6, 3, 0, 1, 2});
  r = top_k(x, 8, /*sorted=*/true, kInt64);
  testing::ExpectTensor(r.values, dt, {3, 8},
                        {9, 6, 5, 4, 3, 2, 1, 1, 9, 9, 8, 7, 5, 5, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1});
  testing::ExpectTensor(r.indices, kInt64, {3, 8},
                        {5, 7, 4, 2, 0, 6, 1, 3, 4, 6, 3, 5, 0, 2, 1, 7, 0, 1, 2, 3, 4, 5, 6, 7});
  r = top_k(x, 0);
  testing::ExpectTensor(r.values, dt, {3, 0}, {});
  testing::ExpectTensor(r.indices, kInt32, {3, 0}, {});
  // (arange(24) * 7 % 11).reshape(2, 3, 4): rows of the last axis.
  std::vector<double> y;
  for (int i = 0; i < 24; ++i) y.push_back(i * 7 % 11);
  r = top_k(testing::MakeTensor(dt, {2, 3, 4}, y), 2, /*sorted=*/false);
  testing::ExpectTensor(r.values, dt, {2, 3, 2}, {10, 7, 9, 6, 8, 4, 10, 7, 9, 5, 8, 7});
  testing::ExpectTensor(r.indices, kInt32, {2, 3, 2}, {3, 1, 2, 0, 1, 2, 2, 0, 1, 2, 0, 3});
}

TEST_CASE("TopKV2 of long rows matches a full sort") {
  std::vector<float> v(5 * 1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 1009);
  const TopKResult r = top_k(from_vector(v, Shape{5, 1000}), 10);
  const std::vector<float> values = r.values.to_vector<float>();
  const std::vector<int32_t> indices = r.indices.to_vector<int32_t>();
  for (int row = 0; row < 5; ++row) {
    std::vector<float> sorted(v.begin() + row * 1000, v.begin() + (row + 1) * 1000);
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    for (int j = 0; j < 10; ++j) {
      CHECK(values[row * 10 + j] == sorted[j]);
      CHECK(v[row * 1000 + indices[row * 10 + j]] == sorted[j]);
    }
  }
}

TEST_CASE("TopKV2 reports bad k and inputs by name") {
  const Tensor x = zeros({2, 3});
  testing::ExpectError([&] { top_k(x, 4); },
                       {"TopKV2", "input must have at least k = 4 columns, got shape (2, 3)",
                        "input: float32 (2, 3)", "top_k_op_test.cc"});
  testing::ExpectError([&] { top_k(x, -1); }, {"TopKV2", "k must be non-negative, got -1"});
  testing::ExpectError([&] { top_k(constant(1.f), 1); }, {"TopKV2", "input must be at least 1-D"});
  testing::ExpectError(
      [&] {
        top_k(constant({true, false}), 1);
      },
      {"TopKV2", "dtype bool is not supported"});
}

}  // namespace
}  // namespace duet
