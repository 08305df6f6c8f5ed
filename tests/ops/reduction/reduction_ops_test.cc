// Sum, Mean, Max, Min, Prod, All, Any: every dtype against NumPy, axes forms, keep_dims, empty
// inputs, NaN, float32 accuracy on long sums, multi-pass plans, and error messages.
#include "ops/reduction/reduction_ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// One axis set: the output shape without and with keep_dims, and the values (the same for both).
struct ReductionCase {
  Axes axes;
  Shape shape, kept_shape;
  std::vector<double> sum, max, min, mean_float, mean_int, prod;
};

// Made by testdata/make_reduction_cases.py.
// x = ((np.arange(24) * 7) % 11 - 5).reshape(2, 3, 4)
const std::vector<int> kX = {-5, 2,  -2, 5, 1,  -3, 4, 0,  -4, 3,  -1, -5,
                             2,  -2, 5,  1, -3, 4,  0, -4, 3,  -1, -5, 2};
// p = np.where(q == 0, -1, q).reshape(2, 3, 4) with q = (np.arange(24) * 5) % 3 (small products)
const std::vector<int> kP = {-1, 2, 1, -1, 2, 1, -1, 2, 1, -1, 2, 1,
                             -1, 2, 1, -1, 2, 1, -1, 2, 1, -1, 2, 1};
// {axes, shape, keep_dims shape, sum, max, min, float mean, int mean, prod of p}
const ReductionCase kCases[] = {
    {{}, {}, {1, 1, 1}, {-3}, {5}, {-5}, {-0.125}, {0}, {256}},
    {0,
     {3, 4},
     {1, 3, 4},
     {-3, 0, 3, 6, -2, 1, 4, -4, -1, 2, -6, -3},
     {2, 2, 5, 5, 1, 4, 4, 0, 3, 3, -1, 2},
     {-5, -2, -2, 1, -3, -3, 0, -4, -4, -1, -5, -5},
     {-1.5, 0, 1.5, 3, -1, 0.5, 2, -2, -0.5, 1, -3, -1.5},
     {-1, 0, 1, 3, -1, 0, 2, -2, 0, 1, -3, -1},
     {1, 4, 1, 1, 4, 1, 1, 4, 1, 1, 4, 1}},
    {1,
     {2, 4},
     {2, 1, 4},
     {-8, 2, 1, 0, 2, 1, 0, -1},
     {1, 3, 4, 5, 3, 4, 5, 2},
     {-5, -3, -2, -5, -3, -2, -5, -4},
     {-2.6666666666666665, 0.6666666666666666, 0.3333333333333333, 0, 0.6666666666666666,
      0.3333333333333333, 0, -0.3333333333333333},
     {-2, 0, 0, 0, 0, 0, 0, 0},
     {-2, -2, -2, -2, -2, -2, -2, -2}},
    {2,
     {2, 3},
     {2, 3, 1},
     {0, 2, -7, 6, -3, -1},
     {5, 4, 3, 5, 4, 3},
     {-5, -3, -5, -2, -4, -5},
     {0, 0.5, -1.75, 1.5, -0.75, -0.25},
     {0, 0, -1, 1, 0, 0},
     {2, -4, -2, 2, -4, -2}},
    {-1,
     {2, 3},
     {2, 3, 1},
     {0, 2, -7, 6, -3, -1},
     {5, 4, 3, 5, 4, 3},
     {-5, -3, -5, -2, -4, -5},
     {0, 0.5, -1.75, 1.5, -0.75, -0.25},
     {0, 0, -1, 1, 0, 0},
     {2, -4, -2, 2, -4, -2}},
    {{0, 2},
     {3},
     {1, 3, 1},
     {6, -1, -8},
     {5, 4, 3},
     {-5, -4, -5},
     {0.75, -0.125, -1},
     {0, 0, -1},
     {4, 16, 4}},
    {{0, 1},
     {4},
     {1, 1, 4},
     {-6, 3, 1, -1},
     {3, 4, 5, 5},
     {-5, -3, -5, -5},
     {-1, 0.5, 0.16666666666666666, -0.16666666666666666},
     {-1, 0, 0, 0},
     {4, 4, 4, 4}},
    {{1, 2},
     {2},
     {2, 1, 1},
     {-5, 2},
     {5, 5},
     {-5, -5},
     {-0.4166666666666667, 0.16666666666666666},
     {0, 0},
     {16, 16}},
    {{-3, -1},
     {3},
     {1, 3, 1},
     {6, -1, -8},
     {5, 4, 3},
     {-5, -4, -5},
     {0.75, -0.125, -1},
     {0, 0, -1},
     {4, 16, 4}},
};

template <typename T>
Tensor Make(const std::vector<int>& values) {
  return from_vector(std::vector<T>(values.begin(), values.end()), Shape{2, 3, 4});
}

TEMPLATE_TEST_CASE("Reductions match NumPy over every axis set", "", float, double, int32_t,
                   int64_t) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = Make<TestType>(kX);
  Tensor p = Make<TestType>(kP);
  for (const ReductionCase& c : kCases) {
    for (bool keep_dims : {false, true}) {
      const Shape& shape = keep_dims ? c.kept_shape : c.shape;
      INFO("case shape " << shape.str() << " keep_dims " << keep_dims);
      testing::ExpectTensor(reduce_sum(x, c.axes, keep_dims), dt, shape, c.sum);
      testing::ExpectTensor(reduce_max(x, c.axes, keep_dims), dt, shape, c.max);
      testing::ExpectTensor(reduce_min(x, c.axes, keep_dims), dt, shape, c.min);
      testing::ExpectTensor(reduce_mean(x, c.axes, keep_dims), dt, shape,
                            std::is_integral_v<TestType> ? c.mean_int : c.mean_float);
      testing::ExpectTensor(reduce_prod(p, c.axes, keep_dims), dt, shape, c.prod);
    }
  }
}

// All and Any: one axis set, its output shape, and the values.
struct BoolCase {
  Axes axes;
  Shape shape;
  std::vector<double> all, any;
};

// Made by testdata/make_reduction_cases.py (its second table).
// b = x % 4 != 0 (Python modulo)
const std::vector<int> kB = {1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1,
                             1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1};
// {axes, shape, all, any}
const BoolCase kBoolCases[] = {
    {{}, {}, {0}, {1}},
    {0, {3, 4}, {1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1}},
    {1, {2, 4}, {0, 1, 0, 0, 1, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1}},
    {2, {2, 3}, {1, 0, 0, 1, 0, 1}, {1, 1, 1, 1, 1, 1}},
    {-1, {2, 3}, {1, 0, 0, 1, 0, 1}, {1, 1, 1, 1, 1, 1}},
    {{0, 2}, {3}, {1, 0, 0}, {1, 1, 1}},
    {{0, 1}, {4}, {0, 0, 0, 0}, {1, 1, 1, 1}},
    {{1, 2}, {2}, {0, 0}, {1, 1}},
    {{-3, -1}, {3}, {1, 0, 0}, {1, 1, 1}},
};

TEST_CASE("All and Any match NumPy over every axis set") {
  Tensor b = from_vector(std::vector<bool>(kB.begin(), kB.end()), Shape{2, 3, 4});
  for (const BoolCase& c : kBoolCases) {
    INFO("case shape " << c.shape.str());
    testing::ExpectTensor(reduce_all(b, c.axes), kBool, c.shape, c.all);
    testing::ExpectTensor(reduce_any(b, c.axes), kBool, c.shape, c.any);
    const Tensor kept = reduce_any(b, c.axes, /*keep_dims=*/true);
    CHECK(kept.rank() == 3);
    CHECK(testing::ToDoubles(kept) == c.any);
  }
  // int64 axes, and long rows and columns (the vectorized and pairwise paths).
  testing::ExpectTensor(reduce_any(b, constant(int64_t{1})), kBool, {2, 4},
                        {1, 1, 1, 1, 1, 1, 1, 1});
  std::vector<bool> big(3 * 5000, true);
  big[2 * 5000 + 4321] = false;
  Tensor t = from_vector(big, {3, 5000});
  testing::ExpectTensor(reduce_all(t, 1), kBool, {3}, {1, 1, 0});
  std::vector<bool> few(3 * 5000, false);
  few[2 * 5000 + 4321] = true;
  testing::ExpectTensor(reduce_any(from_vector(few, {3, 5000}), 1), kBool, {3}, {0, 0, 1});
  std::vector<double> cols(5000, 1);
  cols[4321] = 0;
  testing::ExpectTensor(reduce_all(t, 0), kBool, {5000}, cols);
}

TEST_CASE("All and Any over empty axes give true and false") {
  Tensor e = zeros({0, 3}, kBool);
  testing::ExpectTensor(reduce_all(e, 0), kBool, {3}, {1, 1, 1});
  testing::ExpectTensor(reduce_any(e, 0), kBool, {3}, {0, 0, 0});
  testing::ExpectTensor(reduce_all(e), kBool, {}, {1});
  testing::ExpectTensor(reduce_any(e, 1), kBool, {0}, {});
  testing::ExpectTensor(reduce_all(constant(false)), kBool, {}, {0});
}

TEST_CASE("All and Any report bad inputs") {
  Tensor b = zeros({2, 3}, kBool);
  testing::ExpectError(
      [&] {
        reduce_all(zeros({2, 3}), 1);
      },
      {"All", "input: float32 (2, 3)", "reduction_ops_test.cc"});
  testing::ExpectError(
      [&] { reduce_any(b, 2); },
      {"Any", "axis 2 is out of range for a tensor of rank 2", "input: bool (2, 3)"});
  testing::ExpectError([&] { reduce_all(b, {0, 0}); }, {"All", "name dimension 0 more than once"});
}

TEST_CASE("Axes accepts an int, lists, vectors and tensors") {
  Tensor x = constant({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  testing::ExpectTensor(reduce_sum(x), kFloat32, {}, {21});
  testing::ExpectTensor(reduce_sum(x, {}), kFloat32, {}, {21});
  testing::ExpectTensor(reduce_sum(x, 1), kFloat32, {2}, {6, 15});
  testing::ExpectTensor(reduce_sum(x, -2), kFloat32, {3}, {5, 7, 9});
  testing::ExpectTensor(reduce_sum(x, {1}), kFloat32, {2}, {6, 15});
  testing::ExpectTensor(reduce_sum(x, {0, 1}, /*keep_dims=*/true), kFloat32, {1, 1}, {21});
  testing::ExpectTensor(reduce_sum(x, 1, true), kFloat32, {2, 1}, {6, 15});
  testing::ExpectTensor(reduce_sum(x, std::vector<int64_t>{}), kFloat32, {2, 3},
                        {1, 2, 3, 4, 5, 6});
  testing::ExpectTensor(reduce_sum(x, constant({1, 0})), kFloat32, {}, {21});
  testing::ExpectTensor(reduce_sum(x, constant(int64_t{0})), kFloat32, {3}, {5, 7, 9});
  testing::ExpectTensor(reduce_mean(x, 0), kFloat32, {3}, {2.5, 3.5, 4.5});
  testing::ExpectTensor(reduce_sum(constant(3.0)), kFloat64, {}, {3});
  testing::ExpectTensor(reduce_max(constant(int64_t{-7}), {}, true), kInt64, {}, {-7});
  // Size-1 dims only: nothing to reduce, the values are copied.
  testing::ExpectTensor(reduce_sum(constant({{1, 2}}), 0), kInt32, {2}, {1, 2});
}

TEST_CASE("Reductions over empty axes give the identity") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor e = zeros({0, 3});
  testing::ExpectTensor(reduce_sum(e, 0), kFloat32, {3}, {0, 0, 0});
  testing::ExpectTensor(reduce_prod(e, 0), kFloat32, {3}, {1, 1, 1});
  testing::ExpectTensor(reduce_max(e, 0), kFloat32, {3}, {-inf, -inf, -inf});
  testing::ExpectTensor(reduce_min(e, 0), kFloat32, {3}, {inf, inf, inf});
  testing::ExpectTensor(reduce_mean(e, 0), kFloat32, {3}, {nan, nan, nan});
  testing::ExpectTensor(reduce_sum(e, 1), kFloat32, {0}, {});
  testing::ExpectTensor(reduce_sum(e), kFloat32, {}, {0});
  Tensor ei = zeros({0}, kInt32);
  testing::ExpectTensor(reduce_mean(ei), kInt32, {}, {0});
  testing::ExpectTensor(reduce_max(ei), kInt32, {}, {std::numeric_limits<int32_t>::lowest()});
  testing::ExpectTensor(reduce_min(zeros({0}, kInt64)), kInt64, {},
                        {static_cast<double>(std::numeric_limits<int64_t>::max())});
}

TEST_CASE("Max and Min propagate NaN along rows and columns") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = constant({{1.f, nan, 3.f}, {4.f, 5.f, 6.f}});
  testing::ExpectTensor(reduce_max(x, 1), kFloat32, {2}, {NAN, 6});
  testing::ExpectTensor(reduce_min(x, 1), kFloat32, {2}, {NAN, 4});
  testing::ExpectTensor(reduce_max(x, 0), kFloat32, {3}, {4, NAN, 6});
  testing::ExpectTensor(reduce_min(x, 0), kFloat32, {3}, {1, NAN, 3});
  testing::ExpectTensor(reduce_sum(x, 0), kFloat32, {3}, {5, NAN, 9});
}

TEST_CASE("Integer sums and products wrap like TensorFlow") {
  Tensor x = constant({std::numeric_limits<int32_t>::max(), 1});
  testing::ExpectTensor(reduce_sum(x), kInt32, {}, {std::numeric_limits<int32_t>::min()});
  testing::ExpectTensor(reduce_prod(constant({65536, 65536})), kInt32, {}, {0});
}

// Found by the differential test (tests/interop/op_diff.py): TensorFlow's int32 Mean does not wrap
// (its sum is wider), its int64 Mean does. Values from tf.raw_ops.Mean in TensorFlow 2.21.
TEST_CASE("int32 means do not wrap, int64 means do, as TensorFlow's") {
  testing::ExpectTensor(reduce_mean(constant({2147483646, 2147483646, -5, 1})), kInt32, {},
                        {1073741822});
  testing::ExpectTensor(reduce_mean(constant<int32_t>({{2147483646, 2147483646}, {-5, 1}}), 1),
                        kInt32, {2}, {2147483646, -2});
  const int64_t big = std::numeric_limits<int64_t>::max() - 1;
  CHECK(reduce_mean(constant<int64_t>({big, big, -5, 1})).item<int64_t>() == -2);
}

TEST_CASE("Float32 sums of a million elements stay accurate") {
  // Summed naively in float32, 0.1f a million times drifts by about 1%; pairwise stays at ~1e-7.
  const double expected = 1e6 * static_cast<double>(0.1f);
  Tensor row = fill({1000000}, 0.1, kFloat32);
  CHECK(std::abs(reduce_sum(row).item<float>() - expected) / expected < 1e-5);
  CHECK(std::abs(reduce_mean(row).item<float>() - 0.1) < 1e-6);
  // Down columns (axis 0 of (250000, 4)) and across rows of a tall matrix.
  std::vector<float> cols = reduce_sum(fill({250000, 4}, 0.1, kFloat32), 0).to_vector<float>();
  for (float c : cols) CHECK(std::abs(c - expected / 4) / (expected / 4) < 1e-5);
  std::vector<float> rows = reduce_sum(fill({4, 250000}, 0.1, kFloat32), 1).to_vector<float>();
  for (float r : rows) CHECK(std::abs(r - expected / 4) / (expected / 4) < 1e-5);
}

// Issue 37: products gain nothing from pairwise order, and float32 ones accumulate in double
// (Note [float32 products in double] in kernels/cpu/reduction/reducers.h). 300k factors near 1,
// along a row and down columns: off by one rounding of the double product, where float32
// accumulation (TensorFlow's) is off by about 1e-5.
TEST_CASE("Float32 products of 300k factors near 1 round once") {
  const int64_t n = 300000;
  std::vector<float> values(n);
  double expected = 1;
  for (int64_t i = 0; i < n; ++i) {
    values[i] = 1.0f + static_cast<float>((i * 7919) % 2001 - 1000) * 1e-6f;
    expected *= values[i];
  }
  CHECK(std::abs(reduce_prod(from_vector(values)).item<float>() - expected) / expected < 2e-7);
  const std::vector<float> cols =
      reduce_prod(from_vector(values, {n / 4, 4}), 0).to_vector<float>();
  double product = 1;
  for (float c : cols) product *= c;
  CHECK(std::abs(product - expected) / expected < 5e-7);
}

// Reference: reduce x (dims d0 x d1 x d2, values from `value`) over `axes` in double.
std::vector<double> ReferenceSum(int64_t d0, int64_t d1, int64_t d2, std::vector<bool> reduced,
                                 float (*value)(int64_t)) {
  const int64_t o0 = reduced[0] ? 1 : d0, o1 = reduced[1] ? 1 : d1, o2 = reduced[2] ? 1 : d2;
  std::vector<double> out(o0 * o1 * o2, 0.0);
  for (int64_t i = 0; i < d0; ++i) {
    for (int64_t j = 0; j < d1; ++j) {
      for (int64_t k = 0; k < d2; ++k) {
        const int64_t at =
            ((reduced[0] ? 0 : i) * o1 + (reduced[1] ? 0 : j)) * o2 + (reduced[2] ? 0 : k);
        out[at] += value((i * d1 + j) * d2 + k);
      }
    }
  }
  return out;
}

float Wiggle(int64_t i) { return static_cast<float>((i * 37) % 101) * 0.01f - 0.5f; }

TEST_CASE("Large reductions over middle, outer and split axes match a double reference") {
  std::vector<float> values(60 * 70 * 80);
  for (size_t i = 0; i < values.size(); ++i) values[i] = Wiggle(i);
  Tensor x = from_vector(values, {60, 70, 80});
  const std::vector<std::pair<std::vector<int64_t>, std::vector<bool>>> cases = {
      {{1}, {false, true, false}},    {{0, 2}, {true, false, true}}, {{0}, {true, false, false}},
      {{2}, {false, false, true}},    {{0, 1}, {true, true, false}}, {{1, 2}, {false, true, true}},
      {{0, 1, 2}, {true, true, true}}};
  for (const auto& [axes, reduced] : cases) {
    const std::vector<double> expected = ReferenceSum(60, 70, 80, reduced, Wiggle);
    const std::vector<double> got = testing::ToDoubles(reduce_sum(x, axes));
    REQUIRE(got.size() == expected.size());
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - expected[i]));
    INFO("axes " << axes.size() << " first " << axes[0]);
    CHECK(worst < 2e-3);
  }
  // The same in float64 is exact to rounding.
  Tensor xd = from_vector(std::vector<double>(values.begin(), values.end()), {60, 70, 80});
  const std::vector<double> expected = ReferenceSum(60, 70, 80, {true, false, true}, Wiggle);
  testing::ExpectTensor(reduce_sum(xd, {0, 2}), kFloat64, {70}, expected, 1e-12);
}

TEST_CASE("Reductions report bad axes and dtypes") {
  Tensor x = zeros({2, 3});
  testing::ExpectError([&] { reduce_sum(x, 2); },
                       {"Sum", "axis 2 is out of range for a tensor of rank 2 (axes [2])",
                        "input: float32 (2, 3)", "reduction_ops_test.cc"});
  testing::ExpectError(
      [&] {
        reduce_mean(x, {0, -3});
      },
      {"Mean", "axis -3 is out of range for a tensor of rank 2"});
  testing::ExpectError(
      [&] {
        reduce_max(x, {1, -1});
      },
      {"Max", "axes [1, -1] name dimension 1 more than once"});
  testing::ExpectError([&] { reduce_min(constant(1.f), 0); },
                       {"Min", "axis 0 is out of range for a tensor of rank 0"});
  testing::ExpectError(
      [&] {
        reduce_sum(x, zeros({1, 1}, kInt32));
      },
      {"Sum", "reduction_indices must be a scalar or 1-D tensor, got shape (1, 1)"});
  testing::ExpectError([&] { reduce_sum(x, zeros({1})); },
                       {"Sum", "dtype float32 is not supported", "Tidx"});
  testing::ExpectError([&] { reduce_prod(zeros({2}, kBool)); },
                       {"Prod", "dtype bool is not supported", "input: bool (2,)"});
  testing::ExpectError([&] { reduce_sum(zeros({2}, kFloat16)); },
                       {"Sum", "dtype float16 is not supported"});
}

}  // namespace
}  // namespace duet
