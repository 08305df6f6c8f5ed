// Initializers: the initial values of layer variables, with Keras' formulas. Each factory
// returns an nn::Initializer. A seeded initializer gives the same values on every call and
// machine; an unseeded one draws its seed from a process-wide sequence (set_random_seed), so a
// program still starts from the same weights every time it runs.
#pragma once

#include <cstdint>
#include <optional>

#include "nn/module.h"

namespace duet::initializers {

using nn::Initializer;

// The seed sequence unseeded initializers (and unseeded Dropout) draw from: restarted by this.
void set_random_seed(int64_t seed);
// The next seed of that sequence.
int64_t next_seed();

Initializer zeros();
Initializer ones();
Initializer constant(double value);
// N(mean, stddev^2) with values further than 2 stddev from the mean redrawn (Keras'
// TruncatedNormal, default stddev 0.05).
Initializer truncated_normal(double mean = 0, double stddev = 0.05,
                             std::optional<int64_t> seed = {});
Initializer random_normal(double mean = 0, double stddev = 0.05, std::optional<int64_t> seed = {});
Initializer random_uniform(double minval = -0.05, double maxval = 0.05,
                           std::optional<int64_t> seed = {});
// U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out)): Keras' default for kernels.
Initializer glorot_uniform(std::optional<int64_t> seed = {});
// Truncated N(0, 2 / (fan_in + fan_out)).
Initializer glorot_normal(std::optional<int64_t> seed = {});
// Truncated N(0, 2 / fan_in).
Initializer he_normal(std::optional<int64_t> seed = {});
// U(-limit, limit), limit = sqrt(6 / fan_in).
Initializer he_uniform(std::optional<int64_t> seed = {});

// A random orthogonal matrix (Keras' Orthogonal, the recurrent kernels' default): the Q of the
// QR decomposition of a standard normal (rows, cols) matrix, rows the product of all dims but the
// last, with Q's columns signed so that R's diagonal is positive; times `gain`. With more columns
// than rows, the transpose of the (cols, rows) case.
Initializer orthogonal(double gain = 1.0, std::optional<int64_t> seed = {});

// Keras' fans of a kernel shape: [in, out] for 2-D; for convolutions (HWIO) the receptive
// field size times the input and output channels.
struct Fans {
  double in = 1, out = 1;
};
Fans ComputeFans(const Shape& shape);

}  // namespace duet::initializers
