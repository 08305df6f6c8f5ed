// Keras-style loss objects: options as fields, called as loss(labels, predictions), e.g.
//   losses::SparseCategoricalCrossentropy loss{.from_logits = true};  Tensor l = loss(y, logits);
// Each forwards to the function of the same name (crossentropy.h, regression.h).
#pragma once

#include "core/tensor.h"
#include "nn/losses/crossentropy.h"
#include "nn/losses/reduction.h"
#include "nn/losses/regression.h"
#include "ops/op_site.h"

namespace duet::losses {

// keras.losses.SparseCategoricalCrossentropy.
struct SparseCategoricalCrossentropy {
  bool from_logits = false;
  Reduction reduction = Reduction::kMean;
  Tensor operator()(const Tensor& labels, const Tensor& predictions, OpSite site = {}) const {
    return sparse_categorical_crossentropy(labels, predictions, from_logits, reduction, site);
  }
};

// keras.losses.CategoricalCrossentropy.
struct CategoricalCrossentropy {
  bool from_logits = false;
  double label_smoothing = 0;
  Reduction reduction = Reduction::kMean;
  Tensor operator()(const Tensor& labels, const Tensor& predictions, OpSite site = {}) const {
    return categorical_crossentropy(labels, predictions, from_logits, label_smoothing, reduction,
                                    site);
  }
};

// keras.losses.BinaryCrossentropy.
struct BinaryCrossentropy {
  bool from_logits = false;
  double label_smoothing = 0;
  Reduction reduction = Reduction::kMean;
  Tensor operator()(const Tensor& labels, const Tensor& predictions, OpSite site = {}) const {
    return binary_crossentropy(labels, predictions, from_logits, label_smoothing, reduction, site);
  }
};

// keras.losses.MeanSquaredError.
struct MeanSquaredError {
  Reduction reduction = Reduction::kMean;
  Tensor operator()(const Tensor& labels, const Tensor& predictions, OpSite site = {}) const {
    return mean_squared_error(labels, predictions, reduction, site);
  }
};

// keras.losses.MeanAbsoluteError.
struct MeanAbsoluteError {
  Reduction reduction = Reduction::kMean;
  Tensor operator()(const Tensor& labels, const Tensor& predictions, OpSite site = {}) const {
    return mean_absolute_error(labels, predictions, reduction, site);
  }
};

// keras.losses.Huber.
struct Huber {
  double delta = 1.0;
  Reduction reduction = Reduction::kMean;
  Tensor operator()(const Tensor& labels, const Tensor& predictions, OpSite site = {}) const {
    return huber(labels, predictions, delta, reduction, site);
  }
};

}  // namespace duet::losses
