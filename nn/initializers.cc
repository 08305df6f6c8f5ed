#include "nn/initializers.h"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/random/random_ops.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::initializers {
namespace {

// Keras' truncated normal scales stddev by this so the truncated distribution has the variance
// asked for: the stddev of a standard normal truncated to [-2, 2].
constexpr double kTruncatedStddev = 0.87962566103423978;

std::atomic<int64_t> seed_sequence{1337};

int64_t SeedOrNext(std::optional<int64_t> seed) { return seed ? *seed : next_seed(); }

Tensor TruncatedNormal(const Shape& shape, DType dtype, double mean, double stddev, int64_t seed) {
  // Redraw the samples beyond 2 standard deviations until none is left: each round replaces
  // ~4.6% of the remaining ones, so a few rounds suffice; the result is a pure function of seed.
  Tensor x = random_normal(shape, seed, dtype);
  for (int64_t round = 1;; ++round) {
    const Tensor outside = abs(x) > 2.0;
    if (!reduce_any(outside).item<bool>()) break;
    x = where(outside, random_normal(shape, seed + round * 7919, dtype), x);
  }
  return x * stddev + mean;
}

}  // namespace

void set_random_seed(int64_t seed) { seed_sequence = seed; }
int64_t next_seed() { return seed_sequence++; }

Fans ComputeFans(const Shape& shape) {
  const int rank = shape.rank();
  if (rank == 0) return {};
  if (rank == 1) return {static_cast<double>(shape.dim(0)), static_cast<double>(shape.dim(0))};
  double receptive = 1;
  for (int i = 0; i < rank - 2; ++i) receptive *= static_cast<double>(shape.dim(i));
  return {receptive * static_cast<double>(shape.dim(rank - 2)),
          receptive * static_cast<double>(shape.dim(rank - 1))};
}

Initializer zeros() {
  return [](const Shape& shape, DType dtype) { return duet::zeros(shape, dtype); };
}

Initializer ones() {
  return [](const Shape& shape, DType dtype) { return duet::ones(shape, dtype); };
}

Initializer constant(double value) {
  return [value](const Shape& shape, DType dtype) { return duet::fill(shape, value, dtype); };
}

Initializer truncated_normal(double mean, double stddev, std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    return TruncatedNormal(shape, dtype, mean, stddev, s);
  };
}

Initializer random_normal(double mean, double stddev, std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    return duet::random_normal(shape, s, dtype, mean, stddev);
  };
}

Initializer random_uniform(double minval, double maxval, std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    return duet::random_uniform(shape, s, dtype, minval, maxval);
  };
}

Initializer glorot_uniform(std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    const Fans fans = ComputeFans(shape);
    const double limit = std::sqrt(6.0 / (fans.in + fans.out));
    return duet::random_uniform(shape, s, dtype, -limit, limit);
  };
}

// Note [Orthogonal initializer]: the QR decomposition runs once per variable, on the host, with
// Eigen's Householder QR (duet has no Qr op; an initializer runs eagerly anyway).
Initializer orthogonal(double gain, std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    if (shape.rank() < 2) {
      throw Error(absl::InvalidArgumentError(
          "the orthogonal initializer needs a shape of rank >= 2, not " + shape.str()));
    }
    const int64_t cols = shape.dim(shape.rank() - 1);
    const int64_t rows = shape.num_elements() / std::max<int64_t>(cols, 1);
    const int64_t m = std::max(rows, cols), n = std::min(rows, cols);
    // Read through a copy to the host: under a layer's DeviceScope the draw is on that device.
    const std::vector<double> v = duet::random_normal(Shape{m, n}, s, kFloat64).to_vector<double>();
    Eigen::MatrixXd a(m, n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) a(i, j) = v[i * n + j];
    }
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(a);
    Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(m, n);
    const Eigen::MatrixXd r = qr.matrixQR().topRows(n).triangularView<Eigen::Upper>();
    for (int64_t j = 0; j < n; ++j) {
      if (r(j, j) < 0) q.col(j) *= -1;
    }
    if (rows < cols) q.transposeInPlace();  // (rows, cols)
    std::vector<double> values(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) values[i * cols + j] = gain * q(i, j);
    }
    return cast(from_vector(values, shape), dtype);
  };
}

Initializer glorot_normal(std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    const Fans fans = ComputeFans(shape);
    return TruncatedNormal(shape, dtype, 0,
                           std::sqrt(2.0 / (fans.in + fans.out)) / kTruncatedStddev, s);
  };
}

Initializer he_normal(std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    return TruncatedNormal(shape, dtype, 0,
                           std::sqrt(2.0 / ComputeFans(shape).in) / kTruncatedStddev, s);
  };
}

Initializer he_uniform(std::optional<int64_t> seed) {
  const int64_t s = SeedOrNext(seed);
  return [=](const Shape& shape, DType dtype) {
    const double limit = std::sqrt(6.0 / ComputeFans(shape).in);
    return duet::random_uniform(shape, s, dtype, -limit, limit);
  };
}

}  // namespace duet::initializers
