// Random numbers without a seed, reproducible after set_random_seed: TensorFlow's
// tf.random.set_seed with tf.random.normal / tf.random.uniform.
//
// Note [Global random state]: one process-wide non-trainable int64 variable holds the state of a
// Philox generator, as TensorFlow's tf.random.Generator keeps it (counter low, counter high,
// key). A seedless random op is StatefulStandardNormalV2 / StatefulUniform on that variable: the
// kernel reads the state and advances the counter past what it drew, as one stateful node, so
// the same code draws new numbers on every eager call, every Session.run (fetching the sample
// runs the update) and every call of a traced function, and a GraphDef exports TensorFlow's own
// ops (its tf.random.Generator runs them). set_random_seed(s) assigns (0, 0, s): the sequence
// after it is the same in every run, and the same eagerly as traced (draws take consecutive
// counter ranges either way), also for functions traced before the call. Without
// set_random_seed the key comes from std::random_device. The numbers are not those of
// tf.random.set_seed, whose ops derive seeds differently.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "core/tensor.h"
#include "ops/op_site.h"

namespace duet {

// Restarts the global random sequence at `seed` (Note [Global random state]).
void set_random_seed(int64_t seed);

// Samples of N(mean, stddev^2) (float32 or float64) from the global sequence.
Tensor random_normal(Shape shape, DType dtype = kFloat32, double mean = 0, double stddev = 1,
                     OpSite site = {});
// Samples of the uniform distribution on [minval, maxval) from the global sequence.
Tensor random_uniform(Shape shape, DType dtype = kFloat32, double minval = 0, double maxval = 1,
                      OpSite site = {});

}  // namespace duet
