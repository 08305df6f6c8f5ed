// The inputs and weights the Keras value generators (tests/nn/testdata/gen_*_expected.py) and
// the layer tests both compute from integer formulas, so both sides start from the same float32
// values.
#pragma once

#include <vector>

#include "duet.h"

namespace duet::testing {

// X(i) = ((i * 7) % 11 - 5) * scale.
inline Tensor KerasX(const Shape& shape, double scale = 0.25) {
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(((i * 7) % 11 - 5.0) * scale);
  return from_vector(v, shape);
}

// W(i) = ((i * 5 + k) % 13 - 6) * 0.1 for weight k.
inline Tensor KerasW(const Shape& shape, int k) {
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<float>((static_cast<double>((i * 5 + k) % 13) - 6) * 0.1);
  }
  return from_vector(v, shape);
}

// Keras' set_weights([W(shape, k) for k, w in enumerate(weights)]).
inline void SetKerasWeights(const nn::Module& m) {
  const std::vector<Variable> vars = m.variables();
  for (size_t k = 0; k < vars.size(); ++k) {
    vars[k].assign(KerasW(vars[k].shape(), static_cast<int>(k)));
  }
}

}  // namespace duet::testing
