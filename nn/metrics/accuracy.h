// The accuracy metrics (keras.metrics.Accuracy, SparseCategoricalAccuracy, CategoricalAccuracy):
// Means of per-sample matches, 1.0 for a hit and 0.0 for a miss.
#pragma once

#include <string>

#include "core/tensor.h"
#include "nn/metrics/mean.h"
#include "ops/op_site.h"

namespace duet::metrics {

// What the accuracies share (Keras' MeanMetricWrapper of a match function): the Mean of
// matches(y_true, y_pred), weighted by sample_weight as Mean weights its values.
class MatchRate : public Mean {
 public:
  void update_state(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});
  // update_state, then result.
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred,
                    const Tensor& sample_weight = Tensor(), OpSite site = {});

 protected:
  // `kind` names the metric in errors.
  MatchRate(const char* kind, std::string name) : Mean(std::move(name)), kind_(kind) {}
  const char* kind() const { return kind_; }
  // 1.0 where y_pred matches y_true, else 0.0 (float32); throws Error on bad shapes.
  virtual Tensor matches(const Tensor& y_true, const Tensor& y_pred, OpSite site) const = 0;

 private:
  const char* kind_;
};

// How often y_pred equals y_true elementwise (y_true cast to y_pred's dtype; shapes must match up
// to a trailing size-1 dim). Errors name the metric and both dtypes and shapes.
class Accuracy : public MatchRate {
 public:
  explicit Accuracy(std::string name = "accuracy") : MatchRate("Accuracy", std::move(name)) {}

 protected:
  Tensor matches(const Tensor& y_true, const Tensor& y_pred, OpSite site) const override;
};

// How often argmax(y_pred, -1) equals the class id y_true ([batch] or [batch, 1]; any real dtype).
class SparseCategoricalAccuracy : public MatchRate {
 public:
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy")
      : MatchRate("SparseCategoricalAccuracy", std::move(name)) {}

 protected:
  Tensor matches(const Tensor& y_true, const Tensor& y_pred, OpSite site) const override;
};

// How often argmax(y_pred, -1) equals argmax(y_true, -1) (one-hot labels).
class CategoricalAccuracy : public MatchRate {
 public:
  explicit CategoricalAccuracy(std::string name = "categorical_accuracy")
      : MatchRate("CategoricalAccuracy", std::move(name)) {}

 protected:
  Tensor matches(const Tensor& y_true, const Tensor& y_pred, OpSite site) const override;
};

}  // namespace duet::metrics
