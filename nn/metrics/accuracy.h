// The accuracy metrics (keras.metrics.Accuracy, SparseCategoricalAccuracy, CategoricalAccuracy):
// Means of per-sample matches, 1.0 for a hit and 0.0 for a miss.
#pragma once

#include <string>

#include "core/tensor.h"
#include "nn/metrics/mean.h"
#include "ops/op_site.h"

namespace duet::metrics {

// How often y_pred equals y_true elementwise (y_true cast to y_pred's dtype; shapes must match up
// to a trailing size-1 dim). Errors name the metric and both dtypes and shapes.
class Accuracy : public Mean {
 public:
  explicit Accuracy(std::string name = "accuracy") : Mean(std::move(name)) {}
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
};

// How often argmax(y_pred, -1) equals the class id y_true ([batch] or [batch, 1]; any real dtype).
class SparseCategoricalAccuracy : public Mean {
 public:
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy")
      : Mean(std::move(name)) {}
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
};

// How often argmax(y_pred, -1) equals argmax(y_true, -1) (one-hot labels).
class CategoricalAccuracy : public Mean {
 public:
  explicit CategoricalAccuracy(std::string name = "categorical_accuracy") : Mean(std::move(name)) {}
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
};

}  // namespace duet::metrics
