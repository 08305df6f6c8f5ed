#include "ops/composite/composite_ops.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "core/constant.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("dropout keeps the expectation and is reproducible by seed") {
  Tensor x = ones({10000});
  Tensor y = dropout(x, 0.25, /*seed=*/3);
  std::vector<float> v = y.to_vector<float>();
  int dropped = 0;
  double sum = 0;
  for (float e : v) {
    REQUIRE((e == 0.f || std::abs(e - 1.f / 0.75f) < 1e-6));
    dropped += e == 0.f;
    sum += e;
  }
  CHECK(std::abs(dropped / 10000.0 - 0.25) < 0.02);
  CHECK(std::abs(sum / 10000.0 - 1.0) < 0.03);
  CHECK(dropout(x, 0.25, 3).to_vector<float>() == v);
  CHECK(dropout(x, 0.25, 4).to_vector<float>() != v);
  CHECK(dropout(x, 0.0, 3).shares_buffer_with(x));
  Tensor d = dropout(ones({64}, kFloat64), 0.5, 1);
  CHECK(d.dtype() == kFloat64);
  for (double e : d.to_vector<double>()) CHECK((e == 0.0 || e == 2.0));
  testing::ExpectError([&] { dropout(x, 1.0, 3); }, {"dropout", "rate must be in [0, 1)"});
}

TEST_CASE("clip_by_norm rescales only tensors whose norm exceeds the limit") {
  Tensor t = constant({3.f, 4.f});  // norm 5
  testing::ExpectTensor(clip_by_norm(t, 2.5), kFloat32, {2}, {1.5, 2.0});
  testing::ExpectTensor(clip_by_norm(t, 10), kFloat32, {2}, {3, 4});
  testing::ExpectTensor(clip_by_norm(zeros({2}), 1), kFloat32, {2}, {0, 0});
  Tensor rows = constant({{3.0, 4.0}, {0.0, 0.5}});
  testing::ExpectTensor(clip_by_norm(rows, 1, {1}), kFloat64, {2, 2}, {0.6, 0.8, 0.0, 0.5});
  testing::ExpectError([&] { clip_by_norm(t, 0); }, {"clip_by_norm", "must be positive"});
}

// (x - mean) / sqrt(var + eps) * scale + offset, per channel (last axis), in float64.
std::vector<double> Normalize(const std::vector<double>& x, const std::vector<double>& mean,
                              const std::vector<double>& var, const std::vector<double>& offset,
                              const std::vector<double>& scale, double eps) {
  std::vector<double> y(x.size());
  const size_t c = mean.size();
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t k = i % c;
    y[i] = (x[i] - mean[k]) / std::sqrt(var[k] + eps) * scale[k] + offset[k];
  }
  return y;
}

TEST_CASE("batch_norm normalizes over the last axis with the given statistics") {
  const double eps = 1e-3;
  Tensor mean = constant({2.f, 4.f}), var = constant({1.f, 4.f});
  Tensor offset = constant({0.5f, -1.f}), scale = constant({2.f, 1.f});
  const std::vector<double> x = {1, 2, 3, 6, -1, 0, 0.5, 8};
  const auto want = Normalize(x, {2, 4}, {1, 4}, {0.5, -1}, {2, 1}, eps);
  std::vector<float> xf(x.begin(), x.end());
  testing::ExpectTensor(batch_norm(from_vector(xf, {4, 2}), mean, var, offset, scale, eps),
                        kFloat32, {4, 2}, want, 1e-5);
  testing::ExpectTensor(batch_norm(from_vector(xf, {2, 2, 2}), mean, var, offset, scale, eps),
                        kFloat32, {2, 2, 2}, want, 1e-5);
  testing::ExpectError(
      [&] {
        batch_norm(from_vector(xf, {2, 4}), mean, var, offset, scale);
      },
      {"FusedBatchNormV3", "(2,)"});
}

TEST_CASE("batch_norm_training uses and returns the batch statistics") {
  const std::vector<double> x = {1, 10, 2, 20, 3, 30, 6, 60};  // (4, 2)
  const double eps = 1e-3;
  const std::vector<double> mean = {3, 30};
  // Biased variance normalizes; the returned variance is unbiased (n / (n - 1)).
  const std::vector<double> biased = {3.5, 350}, unbiased = {14.0 / 3, 1400.0 / 3};
  const auto want = Normalize(x, mean, biased, {0, 1}, {1, 2}, eps);
  BatchNormTraining r =
      batch_norm_training(from_vector(x, {4, 2}), constant({0.0, 1.0}), constant({1.0, 2.0}), eps);
  testing::ExpectTensor(r.y, kFloat64, {4, 2}, want, 1e-9);
  testing::ExpectTensor(r.batch_mean, kFloat64, {2}, mean, 1e-12);
  testing::ExpectTensor(r.batch_variance, kFloat64, {2}, unbiased, 1e-12);
}

}  // namespace
}  // namespace duet
