#include "nn/initializers.h"

#include <atomic>
#include <cmath>

#include "core/constant.h"
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
