// Metric: the base of the streaming metrics (Keras' keras.metrics.Metric).
#pragma once

#include <string>

#include "core/shape.h"
#include "core/tensor.h"
#include "eager/variable.h"
#include "nn/module.h"

namespace duet::metrics {

// Note [Metric state]: a metric is an nn::Module whose state is non-trainable float32 variables
// made in its constructor (so variables() lists them and checkpoints save them), named as Keras
// names them ("total", "count", "true_positives", ...) under the metric's name. update_state only
// adds assignments (assign_add) and result only reads, so one metric object works eagerly, inside
// duet::function (the variables are captured: state persists across calls) and in a GraphScope
// graph run by a Session. In a graph, fetch result() made after update_state: by Note [Automatic
// control dependencies] (docs/graph.md) the read then runs the assignments first, so every
// Session::run accumulates one more update.
class Metric : public nn::Module {
 public:
  // A root metric called `name` (its variables are "<name>/total", ...).
  explicit Metric(std::string name);

  // The metric's value from the state accumulated so far (a float32 tensor).
  virtual Tensor result() const = 0;
  // Sets every state variable back to zero.
  virtual void reset_state();

 protected:
  // A float32 state variable of `shape`, zero, non-trainable: see Note [Metric state].
  Variable add_state(const std::string& name, const Shape& shape = {});
};

// numerator / denominator, and 0 where the denominator is 0 (tf.math.divide_no_nan): a metric of
// no data is 0, not NaN.
Tensor divide_no_nan(const Tensor& numerator, const Tensor& denominator);

}  // namespace duet::metrics
