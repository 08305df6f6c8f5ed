// Random number ops: TensorFlow's stateless random ops on a counter-based Philox4x32-10
// generator. The numbers are a pure function of (shape, seed, dtype): the same on every machine
// and thread count, and the same as TensorFlow's for the same seed pair.
//
// Ops:
//   StatelessRandomNormal, StatelessRandomUniform (TensorFlow's, same attrs: dtype, T, Tseed):
//     inputs shape (int32/int64 vector) and seed (int32/int64, shape [2]); standard normal and
//     uniform [0, 1) values.
//   _StatelessRandomNormalScaled(shape, seed, mean, stddev), _StatelessRandomUniformScaled(shape,
//     seed, minval, maxval): duet-internal. The random family may not depend on the math family,
//     so non-default parameters are applied inside the kernel, with mean/stddev/minval/maxval as
//     scalar tensors of the output dtype (float attrs would round float64 parameters to float).
//     The arithmetic is TensorFlow's Python composite, rnd * stddev + mean and
//     rnd * (maxval - minval) + minval in the output dtype, so results still match TensorFlow
//     bit for bit. A graph exporter lowers them to the stateless op followed by Mul and AddV2.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "ops/op_site.h"
#include "ops/random/random_attrs.h"

namespace duet {

// Samples of N(mean, stddev^2) in float32 or float64; equals TensorFlow's
// tf.random.stateless_normal(shape, seed=[seed, 0], mean, stddev, dtype).
Tensor random_normal(Shape shape, int64_t seed, DType dtype = kFloat32, double mean = 0,
                     double stddev = 1, OpSite site = {});

// Samples of the uniform distribution on [minval, maxval) in float32 or float64; equals
// TensorFlow's tf.random.stateless_uniform(shape, seed=[seed, 0], minval, maxval, dtype).
Tensor random_uniform(Shape shape, int64_t seed, DType dtype = kFloat32, double minval = 0,
                      double maxval = 1, OpSite site = {});

// The same with the seed pair as an int32/int64 tensor of shape [2] (eager/global_random.h passes
// the global generator's state).
Tensor random_normal(Shape shape, const Tensor& seed, DType dtype = kFloat32, double mean = 0,
                     double stddev = 1, OpSite site = {});
Tensor random_uniform(Shape shape, const Tensor& seed, DType dtype = kFloat32, double minval = 0,
                      double maxval = 1, OpSite site = {});

// Standard normal (StatefulStandardNormalV2) and uniform [0, 1) (StatefulUniform) samples of
// `shape` from the generator whose state is the int64 [3] variable `state` (a kResource handle);
// each call advances the state's counter by the number of samples, as TensorFlow's kernels do.
// Stateful: every run draws new numbers.
Tensor stateful_standard_normal(const Tensor& state, const Shape& shape, DType dtype = kFloat32,
                                OpSite site = {});
Tensor stateful_uniform(const Tensor& state, const Shape& shape, DType dtype = kFloat32,
                        OpSite site = {});

// The raw op StatelessRandomNormal: `shape` an int32/int64 vector, `seed` an int32/int64 [2].
Tensor stateless_random_normal(const Tensor& shape, const Tensor& seed, DType dtype = kFloat32,
                               OpSite site = {});

// The raw op StatelessRandomUniform: values in [0, 1).
Tensor stateless_random_uniform(const Tensor& shape, const Tensor& seed, DType dtype = kFloat32,
                                OpSite site = {});

}  // namespace duet
