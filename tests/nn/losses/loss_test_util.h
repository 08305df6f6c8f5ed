// Helpers of the loss tests: the Keras reference values and the inputs gen_expected.py uses, and
// the check that a loss gives the same values eagerly, traced and in a Session.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "duet.h"

namespace duet::testing {

// A loss of (labels, predictions), options bound.
using LossFn = std::function<Tensor(const Tensor& labels, const Tensor& predictions)>;

// The values of line `key` of testdata/losses_expected.txt (gen_expected.py).
std::vector<double> KerasLoss(const std::string& key);

// The gen_expected.py input patterns, as `dtype`.
Tensor Logits(DType dtype);   // [3, 4]
Tensor Probs(DType dtype);    // [3, 4], in [0, 1] with 0 and 1
Tensor Targets(DType dtype);  // [3, 4], regression labels

// Checks a loss against Keras' values for every reduction: lines "<key> <dtype> none|sum|mean".
// `reduced(reduction)` computes the loss with that reduction; kNone's has `per_sample_shape`.
void ExpectKerasValues(const std::string& key, DType dtype, const Shape& per_sample_shape,
                       const std::function<Tensor(losses::Reduction)>& reduced);

// Checks that `loss` gives eager's values traced by duet::function and in a GraphScope graph run by
// a Session, the latter with placeholders of known shapes and with only the last dim known.
void ExpectSameInAllModes(const LossFn& loss, const Tensor& labels, const Tensor& predictions);

}  // namespace duet::testing
