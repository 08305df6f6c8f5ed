// Initializers: Keras' formulas checked by the statistics of large samples, the truncation of
// the truncated normal, fans of dense and convolution kernels, and seeds.
#include <catch2/catch.hpp>
#include <cmath>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensor;
using testing::ExpectTensorNear;

struct Moments {
  double mean = 0, stddev = 0, max_abs = 0;
};

Moments MomentsOf(const Tensor& t) {
  const std::vector<double> v = testing::ToDoubles(t);
  Moments m;
  for (double x : v) m.mean += x / v.size();
  for (double x : v) {
    m.stddev += (x - m.mean) * (x - m.mean) / v.size();
    m.max_abs = std::max(m.max_abs, std::abs(x));
  }
  m.stddev = std::sqrt(m.stddev);
  return m;
}

TEST_CASE("Fans of dense and convolution kernels") {
  const initializers::Fans dense = initializers::ComputeFans({300, 100});
  CHECK(dense.in == 300);
  CHECK(dense.out == 100);
  const initializers::Fans conv = initializers::ComputeFans({3, 3, 16, 32});
  CHECK(conv.in == 9 * 16);
  CHECK(conv.out == 9 * 32);
}

TEST_CASE("glorot_uniform, he_uniform: the uniform limits and variance of Keras' formulas") {
  const Tensor g = initializers::glorot_uniform(1)({300, 100}, kFloat32);
  const double limit = std::sqrt(6.0 / 400);
  const Moments m = MomentsOf(g);
  CHECK(m.max_abs <= limit);
  CHECK(m.max_abs > 0.99 * limit);
  CHECK(std::abs(m.stddev - limit / std::sqrt(3.0)) < 0.01 * limit);
  const Moments h = MomentsOf(initializers::he_uniform(2)({3, 3, 16, 32}, kFloat64));
  CHECK(h.max_abs <= std::sqrt(6.0 / 144));
}

TEST_CASE("he_normal and glorot_normal: truncated at 2 stddev with the asked-for variance") {
  const Tensor h = initializers::he_normal(3)({500, 200}, kFloat32);
  const double target = std::sqrt(2.0 / 500);
  const double stddev = target / 0.87962566103423978;  // before truncation
  const Moments m = MomentsOf(h);
  CHECK(m.max_abs <= 2 * stddev * (1 + 1e-6));
  CHECK(std::abs(m.stddev - target) < 0.02 * target);
  CHECK(std::abs(m.mean) < 0.01 * target);
  const Moments t = MomentsOf(initializers::truncated_normal(1.0, 0.5, 4)({100000}, kFloat64));
  CHECK(std::abs(t.mean - 1.0) < 0.01);
  CHECK(std::abs(t.stddev - 0.5 * 0.87962566103423978) < 0.01);
  const Moments g = MomentsOf(initializers::glorot_normal(5)({400, 600}, kFloat32));
  CHECK(std::abs(g.stddev - std::sqrt(2.0 / 1000)) < 0.02 * std::sqrt(2.0 / 1000));
}

TEST_CASE("Seeded initializers repeat; unseeded ones follow the global seed sequence") {
  ExpectTensorNear(initializers::glorot_uniform(9)({4, 4}, kFloat32),
                   initializers::glorot_uniform(9)({4, 4}, kFloat32), 0);
  initializers::set_random_seed(42);
  const Tensor a = initializers::random_normal()({8}, kFloat32);
  const Tensor b = initializers::random_normal()({8}, kFloat32);
  initializers::set_random_seed(42);
  ExpectTensorNear(initializers::random_normal()({8}, kFloat32), a, 0);
  ExpectTensorNear(initializers::random_normal()({8}, kFloat32), b, 0);
  CHECK(reduce_sum(abs(a - b)).item<float>() > 0);
}

TEST_CASE("Constant initializers") {
  ExpectTensor(initializers::zeros()({2}, kFloat64), kFloat64, {2}, {0, 0});
  ExpectTensor(initializers::ones()({2}, kFloat32), kFloat32, {2}, {1, 1});
  ExpectTensor(initializers::constant(0.5)({1, 2}, kFloat32), kFloat32, {1, 2}, {0.5, 0.5});
}

}  // namespace
}  // namespace duet
