// sort, argsort, boolean_mask and where(b): values against std::stable_sort and hand-worked masks,
// other axes, ties, gradients through TopKV2 and GatherV2, errors.
#include "ops/composite/sort_ops.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "core/constant.h"
#include "eager/gradient_tape.h"
#include "ops/array/where_op.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

TEST_CASE("sort and argsort agree with std::stable_sort, ties in order") {
  const std::vector<double> v = {3, -1, 2, 3, 0.5, -1, 7, 2};
  std::vector<int> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v[a] < v[b]; });
  std::vector<double> ascending, indices;
  for (int i : order) ascending.push_back(v[i]), indices.push_back(i);
  const Tensor x = from_vector(v, {8});
  ExpectTensor(sort(x), kFloat64, {8}, ascending);
  ExpectTensor(argsort(x), kInt32, {8}, indices);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v[a] > v[b]; });
  std::vector<double> descending_indices(order.begin(), order.end());
  ExpectTensor(argsort(x, -1, /*descending=*/true), kInt32, {8}, descending_indices);
  ExpectTensor(sort(constant({5, -2, 9})), kInt32, {3}, {-2, 5, 9});
}

TEST_CASE("sort along the first axis of a matrix") {
  const Tensor x = constant({{3.f, 1.f}, {1.f, 2.f}, {2.f, 0.f}});
  ExpectTensor(sort(x, 0), kFloat32, {3, 2}, {1, 0, 2, 1, 3, 2});
  ExpectTensor(argsort(x, 0, true), kInt32, {3, 2}, {0, 1, 2, 0, 1, 2});
}

TEST_CASE("sort's gradient sends each upstream value back to where its element came from") {
  const Tensor x = constant({0.3, -1.0, 2.0});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = reduce_sum(sort(x) * constant({1.0, 10.0, 100.0}));
  ExpectTensor(tape.gradient(y, {x})[0], kFloat64, {3}, {10, 1, 100});
}

TEST_CASE("boolean_mask picks rows or elements in row-major order; where(b) their coordinates") {
  const Tensor x = constant({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  ExpectTensor(boolean_mask(x, constant({false, true})), kFloat32, {1, 3}, {4, 5, 6});
  const Tensor m = constant({{true, false, true}, {false, true, false}});
  ExpectTensor(boolean_mask(x, m), kFloat32, {3}, {1, 3, 5});
  ExpectTensor(boolean_mask(x, constant({true, false, true}), 1), kFloat32, {2, 2}, {1, 3, 4, 6});
  ExpectTensor(where(m), kInt64, {3, 2}, {0, 0, 0, 2, 1, 1});
  GradientTape tape;
  tape.watch(x);
  const Tensor y = reduce_sum(boolean_mask(x, m) * 2.f);
  ExpectTensor(tape.gradient(y, {x})[0], kFloat32, {2, 3}, {2, 0, 2, 0, 2, 0});
  ExpectError(
      [&] {
        boolean_mask(x, constant({true, false, true}));
      },
      {"boolean_mask", "does not match dims 0..0", "sort_ops_test.cc"});
  ExpectError([&] { boolean_mask(x, constant({1, 0})); }, {"boolean_mask", "must be bool"});
  ExpectError([&] { sort(x, 2); }, {"sort", "axis 2 is out of range"});
}

}  // namespace
}  // namespace duet
