// Cumsum and Cumprod: every axis with exclusive and reverse against TensorFlow, every dtype, the
// (outer, n, inner) paths (long rows, wide and striped inner dims) against a naive reference,
// integer wrapping, empty inputs and error messages.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/constant.h"
#include "ops/reduction/reduction_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

struct ScanCase {
  int64_t axis;
  bool exclusive, reverse;
  std::vector<double> cumsum, cumprod;
};

// Made by testdata/make_scan_cases.py with tf.math.cumsum / tf.math.cumprod.
// x = {1.5, -2.0, 3.0, 0.5, 4.0, -1.0} as (2, 3)
const std::vector<double> kX = {1.5, -2.0, 3.0, 0.5, 4.0, -1.0};
// {axis, exclusive, reverse, cumsum, cumprod}
const ScanCase kCases[] = {
    {0, false, false, {1.5, -2.0, 3.0, 2.0, 2.0, 2.0}, {1.5, -2.0, 3.0, 0.75, -8.0, -3.0}},
    {0, false, true, {2.0, 2.0, 2.0, 0.5, 4.0, -1.0}, {0.75, -8.0, -3.0, 0.5, 4.0, -1.0}},
    {0, true, false, {0.0, 0.0, 0.0, 1.5, -2.0, 3.0}, {1.0, 1.0, 1.0, 1.5, -2.0, 3.0}},
    {0, true, true, {0.5, 4.0, -1.0, 0.0, 0.0, 0.0}, {0.5, 4.0, -1.0, 1.0, 1.0, 1.0}},
    {1, false, false, {1.5, -0.5, 2.5, 0.5, 4.5, 3.5}, {1.5, -3.0, -9.0, 0.5, 2.0, -2.0}},
    {1, false, true, {2.5, 1.0, 3.0, 3.5, 3.0, -1.0}, {-9.0, -6.0, 3.0, -2.0, -4.0, -1.0}},
    {1, true, false, {0.0, 1.5, -0.5, 0.0, 0.5, 4.5}, {1.0, 1.5, -3.0, 1.0, 0.5, 2.0}},
    {1, true, true, {1.0, 3.0, 0.0, 3.0, -1.0, 0.0}, {-6.0, 3.0, 1.0, -4.0, -1.0, 1.0}},
    {-1, false, false, {1.5, -0.5, 2.5, 0.5, 4.5, 3.5}, {1.5, -3.0, -9.0, 0.5, 2.0, -2.0}},
    {-1, false, true, {2.5, 1.0, 3.0, 3.5, 3.0, -1.0}, {-9.0, -6.0, 3.0, -2.0, -4.0, -1.0}},
    {-1, true, false, {0.0, 1.5, -0.5, 0.0, 0.5, 4.5}, {1.0, 1.5, -3.0, 1.0, 0.5, 2.0}},
    {-1, true, true, {1.0, 3.0, 0.0, 3.0, -1.0, 0.0}, {-6.0, 3.0, 1.0, -4.0, -1.0, 1.0}},
};

TEST_CASE("Cumsum and Cumprod match TensorFlow for every axis, exclusive and reverse") {
  for (DType dtype : {kFloat32, kFloat64}) {
    const Tensor x = testing::MakeTensor(dtype, {2, 3}, kX);
    for (const ScanCase& c : kCases) {
      INFO(DTypeName(dtype) << " axis " << c.axis << " exclusive " << c.exclusive << " reverse "
                            << c.reverse);
      testing::ExpectTensor(cumsum(x, c.axis, c.exclusive, c.reverse), dtype, {2, 3}, c.cumsum);
      testing::ExpectTensor(cumprod(x, c.axis, c.exclusive, c.reverse), dtype, {2, 3}, c.cumprod);
      // The axis as an int64 tensor.
      testing::ExpectTensor(cumsum(x, constant(c.axis), c.exclusive, c.reverse), dtype, {2, 3},
                            c.cumsum);
    }
  }
}

TEST_CASE("Cumsum and Cumprod on integers, wrapping like TensorFlow") {
  for (DType dtype : {kInt32, kInt64}) {
    const Tensor x = testing::MakeTensor(dtype, {5}, {3, -1, 4, 1, -5});
    testing::ExpectTensor(cumsum(x), dtype, {5}, {3, 2, 6, 7, 2});
    testing::ExpectTensor(cumprod(x, 0, true), dtype, {5}, {1, 3, -3, -12, -12});
  }
  testing::ExpectTensor(cumsum(constant({std::numeric_limits<int32_t>::max(), 1})), kInt32, {2},
                        {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()});
  testing::ExpectTensor(cumprod(constant({65536, 65536})), kInt32, {2}, {65536, 0});
}

// out[o, k, j] by the definition, in double.
std::vector<double> NaiveScan(const std::vector<double>& x, int64_t outer, int64_t n, int64_t inner,
                              bool prod, bool exclusive, bool reverse) {
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      for (int64_t k = 0; k < n; ++k) {
        double acc = prod ? 1 : 0;
        for (int64_t i = 0; i < n; ++i) {
          const bool in = reverse ? (exclusive ? i > k : i >= k) : (exclusive ? i < k : i <= k);
          if (!in) continue;
          const double v = x[(o * n + i) * inner + j];
          acc = prod ? acc * v : acc + v;
        }
        out[(o * n + k) * inner + j] = acc;
      }
    }
  }
  return out;
}

TEST_CASE("Cumsum and Cumprod along rows, columns and striped inner dims match the definition") {
  // (outer, n, inner): long rows, many rows, an inner dim wider than a stripe, a single column.
  const std::vector<std::vector<int64_t>> shapes = {
      {3, 1000, 1}, {700, 5, 3}, {2, 7, 2500}, {1, 9, 1}, {4, 1, 6}};
  for (const auto& dims : shapes) {
    const int64_t outer = dims[0], n = dims[1], inner = dims[2];
    std::vector<double> v(outer * n * inner);
    // Values near 1 (products stay finite); small integers for the sums (exact).
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 9) - 4;
    std::vector<double> p(v.size());
    for (size_t i = 0; i < v.size(); ++i) p[i] = 1 + ((i * 53) % 11 - 5) * 0.001;
    const Tensor x = from_vector(v, {outer, n, inner});
    const Tensor xp = from_vector(p, {outer, n, inner});
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        INFO("shape " << outer << "x" << n << "x" << inner << " exclusive " << exclusive
                      << " reverse " << reverse);
        testing::ExpectTensor(cumsum(x, 1, exclusive, reverse), kFloat64, {outer, n, inner},
                              NaiveScan(v, outer, n, inner, false, exclusive, reverse), 0);
        testing::ExpectTensor(cumprod(xp, -2, exclusive, reverse), kFloat64, {outer, n, inner},
                              NaiveScan(p, outer, n, inner, true, exclusive, reverse), 1e-12);
      }
    }
  }
}

TEST_CASE("Cumsum of empty tensors is empty") {
  testing::ExpectTensor(cumsum(zeros({0, 3}), 1), kFloat32, {0, 3}, {});
  testing::ExpectTensor(cumprod(zeros({2, 0}), 1, true), kFloat32, {2, 0}, {});
}

TEST_CASE("Cumsum and Cumprod report bad axes, ranks and dtypes") {
  const Tensor x = zeros({2, 3});
  testing::ExpectError([&] { cumsum(x, 2); },
                       {"Cumsum", "axis 2 is out of range for a tensor of rank 2",
                        "x: float32 (2, 3)", "scan_ops_test.cc"});
  testing::ExpectError([&] { cumprod(x, -3); },
                       {"Cumprod", "axis -3 is out of range for a tensor of rank 2"});
  testing::ExpectError([&] { cumsum(constant(1.f)); },
                       {"Cumsum", "the input must have rank at least 1, got a scalar"});
  testing::ExpectError(
      [&] {
        cumsum(x, constant({0, 1}), false, false);
      },
      {"Cumsum", "axis must be a scalar, got shape (2,)"});
  testing::ExpectError([&] { cumsum(zeros({2}, kBool)); },
                       {"Cumsum", "dtype bool is not supported"});
}

}  // namespace
}  // namespace duet
