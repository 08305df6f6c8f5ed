// Tensor::index and x(...): NumPy basic indexing (values worked out by hand from NumPy's rules),
// tensor indices and bounds, gradients, and errors naming the caller's line. Graph mode:
// tests/api/api_snippets_test.cc and tests/graph/traced_function_test.cc.
#include <catch2/catch.hpp>
#include <numeric>

#include "core/constant.h"
#include "eager/gradient_tape.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/reduction/reduction_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

// x[i, j, k] = 100 i + 10 j + k, of shape (2, 3, 4).
Tensor Cube() {
  std::vector<double> v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) v.push_back(100 * i + 10 * j + k);
  return from_vector(v, {2, 3, 4});
}

TEST_CASE("index: integers, slices, NewAxis and Ellipsis as NumPy") {
  const Tensor x = Cube();
  ExpectTensor(x.index({Slice(), 1}), kFloat64, {2, 4},
               {10, 11, 12, 13, 110, 111, 112, 113});  // x[:, 1]
  ExpectTensor(x.index({1, Slice(1, None, 2)}), kFloat64, {1, 4},
               {110, 111, 112, 113});  // x[1, 1::2]
  ExpectTensor(x.index({Ellipsis, -1}), kFloat64, {2, 3},
               {3, 13, 23, 103, 113, 123});  // x[..., -1]
  ExpectTensor(x.index({0, Slice(None, None, -1), Slice(2)}), kFloat64, {3, 2},
               {22, 23, 12, 13, 2, 3});  // x[0, ::-1, 2:]
  CHECK(x.index({NewAxis, Slice(), Ellipsis, NewAxis}).shape() == Shape({1, 2, 3, 4, 1}));
  CHECK(x.index({Slice(), 2, Slice(1, None, 2), NewAxis, Ellipsis}).shape() == Shape({2, 2, 1}));
  ExpectTensor(x(1, 2, 3), kFloat64, {}, {123});
  ExpectTensor(x(Slice(), -1, Slice(-2, None)), kFloat64, {2, 2}, {22, 23, 122, 123});
  CHECK(x(Slice(1, 1)).shape() == Shape({0, 3, 4}));  // an empty range, as NumPy
}

TEST_CASE("index: tensor indices and bounds give what integers give") {
  const Tensor x = Cube();
  ExpectTensor(x(Slice(), constant(2)), kFloat64, {2, 4}, x(Slice(), 2).to_vector<double>());
  ExpectTensor(x(constant(int64_t{-1}), 0), kFloat64, {4}, {100, 101, 102, 103});
  ExpectTensor(x.index({1, Slice(constant(1), None), Slice(None, constant(-1), 2)}), kFloat64,
               {2, 2}, x.index({1, Slice(1, None), Slice(None, -1, 2)}).to_vector<double>());
}

TEST_CASE("index is differentiable: StridedSlice's gradient scatters back") {
  const Tensor x = Cube();
  GradientTape tape;
  tape.watch(x);
  const Tensor y = reduce_sum(x(Slice(), 1, Slice(None, None, 3)) * 2.0);
  std::vector<double> want(24, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int k : {0, 3}) want[i * 12 + 4 + k] = 2.0;
  ExpectTensor(tape.gradient(y, {x})[0], kFloat64, {2, 3, 4}, want);
}

TEST_CASE("index errors name the caller's line") {
  const Tensor x = Cube();
  ExpectError([&] { x.index({0, 0, 0, 0}); }, {"StridedSlice", "indexing_test.cc"});
  ExpectError([&] { x(5); }, {"StridedSlice", "out of"});
  ExpectError([&] { x.index({Slice(None, None, 0)}); }, {"StridedSlice", "stride"});
  ExpectError([&] { x(constant(1.5)); },
              {"an index must be an int32 or int64 scalar, not float64"});
  ExpectError([&] { x(Slice(constant({1, 2}))); }, {"a slice start", "int32 (2,)"});
}

}  // namespace
}  // namespace duet
