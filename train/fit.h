// fit: Keras' model.fit for an nn::Module, for users who do not want to write the loop.
//
//   History h = fit(model, losses::SparseCategoricalCrossentropy{.from_logits = true}, opt,
//   train_ds,
//                   {.epochs = 5, .validation = test_ds,
//                    .metrics = {std::make_shared<metrics::SparseCategoricalAccuracy>("accuracy")},
//                    .callbacks = {ProgressBar(), TensorBoard("logs"), ModelCheckpoint(manager)}});
//   h.history["val_accuracy"].back();
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "distribute/communicator.h"
#include "io/data/dataset.h"
#include "nn/metrics/metric.h"
#include "nn/module.h"
#include "optimizers/optimizer.h"
#include "train/callback.h"

namespace duet {

// A metric fit updates with (labels, predictions) after each step and reports under its name
// (prefixed "val_" for the validation pass): any metrics:: class with update_state(y_true,
// y_pred), as the accuracies, Precision, Recall and AUC. Shared, so the caller can read it.
class FitMetric {
 public:
  template <typename M>
  requires std::derived_from<M, metrics::Metric> && requires(M& m, const Tensor& t) {
    m.update_state(t, t);
  }
  FitMetric(std::shared_ptr<M> metric)  // NOLINT: implicit, for braced lists of metrics
      : metric_(metric), update_([m = metric.get()](const Tensor& y_true, const Tensor& y_pred) {
          m->update_state(y_true, y_pred);
        }) {}

  metrics::Metric& metric() const { return *metric_; }
  void update_state(const Tensor& y_true, const Tensor& y_pred) const { update_(y_true, y_pred); }

 private:
  std::shared_ptr<metrics::Metric> metric_;
  std::function<void(const Tensor&, const Tensor&)> update_;
};

struct FitOptions {
  // Trains epochs initial_epoch .. epochs - 1: a resumed run passes the epochs it has done.
  int epochs = 1;
  int initial_epoch = 0;
  // Evaluated after each training epoch (loss and metrics as "val_<name>").
  std::optional<data::Dataset> validation;
  std::vector<FitMetric> metrics;
  std::vector<CallbackRef> callbacks;
  // Every epoch iterates the datasets anew; these stop an epoch (a validation pass) after so
  // many batches, -1 at the end of the dataset.
  int64_t steps_per_epoch = -1;
  int64_t validation_steps = -1;
  // false: the step (forward, gradients, update, metrics) runs as one duet::function, traced on
  // the first batch. true: every op runs eagerly, for debugging.
  bool run_eagerly =
      false;  // Data-parallel training among the communicator's ranks (docs/distributed.md, Note
  // [Distributed fit] in fit.cc): every rank calls fit with its own shard of the data; gradients
  // are averaged over the ranks (weighted by their batches' sizes); callbacks (progress bar,
  // TensorBoard, checkpoints) run on rank 0 only.
  const distribute::Communicator* distribute = nullptr;
};

// Per-epoch values, as Keras' History: history["loss"][i] is epoch[i]'s training loss.
struct History {
  std::vector<int> epoch;
  std::map<std::string, std::vector<double>> history;
};

// The loss: loss(y_true, y_pred) -> a scalar, e.g. losses::SparseCategoricalCrossentropy{} or a
// lambda.
using LossFn = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;
// The model's forward pass: forward(x, training).
using ForwardFn = std::function<Tensor(const Tensor& x, bool training)>;

// fit for a forward function that is not the module's call operator. The dataset's elements
// are (x, y) pairs; anything else is an Error naming the element.
History fit(nn::Module& model, ForwardFn forward, LossFn loss, optimizers::Optimizer& optimizer,
            const data::Dataset& train, FitOptions options = {});

// Trains `model` (called as model(x, training), or model(x)) on `train`'s (x, y) batches: each
// step computes loss(y, model(x, true)) under a GradientTape and applies its gradients to the
// model's trainable variables with `optimizer`. Returns the per-epoch losses and metrics.
template <typename Model>
requires std::derived_from<Model, nn::Module> History fit(Model& model, LossFn loss,
                                                          optimizers::Optimizer& optimizer,
                                                          const data::Dataset& train,
                                                          FitOptions options = {}) {
  ForwardFn forward;
  if constexpr (std::is_invocable_r_v<Tensor, Model&, const Tensor&, bool>) {
    forward = [&model](const Tensor& x, bool training) { return model(x, training); };
  } else {
    static_assert(std::is_invocable_r_v<Tensor, Model&, const Tensor&>,
                  "fit calls the model as model(x, training) or model(x)");
    forward = [&model](const Tensor& x, bool) { return model(x); };
  }
  return fit(model, std::move(forward), std::move(loss), optimizer, train, std::move(options));
}

}  // namespace duet
