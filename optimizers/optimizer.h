// optimizers::Optimizer: the base of SGD, Adam, AdamW, RMSProp and Adagrad. It pairs gradients
// with variables, clips them, keeps the step counter and the slot variables, and lets each
// optimizer run its update as TensorFlow's fused resource op.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/tensor.h"
#include "eager/variable.h"
#include "ops/op_site.h"
#include "optimizers/learning_rate.h"

namespace duet::optimizers {

// Options every optimizer takes (Keras' names). At most one of the two may be set.
struct ClipOptions {
  std::optional<double> clipnorm;         // each gradient's norm clipped to this
  std::optional<double> global_clipnorm;  // all gradients scaled together (clip_by_global_norm)
};

// Note [Optimizer steps]: apply_gradients computes the learning rate at `iterations` (the
// updates made before this one) in float32, as Keras does, and, per variable dtype, that rate
// and the 1-based step Adam's bias correction uses, runs each variable's update, then adds 1 to
// `iterations`. Everything is ops, so the same call runs eagerly, inside duet::function (one trace
// serves every step: the schedule reads the counter) and in a GraphScope. Slots are made on a
// variable's first update, eagerly even inside a trace, named "<variable>/<slot>" (TensorFlow's
// slot names: "m", "v", "momentum", ...). A gradient that is undefined (the loss does not use the
// variable) skips its variable with one warning per variable.
class Optimizer {
 public:
  Optimizer(std::string name, LearningRate learning_rate, ClipOptions clip);
  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Updates each variable with its gradient. Returns the new step count: in a graph, running it
  // (as a fetch or target) runs every update.
  Tensor apply_gradients(const std::vector<Tensor>& grads, const std::vector<Variable>& variables,
                         OpSite site = {});
  // Computes loss_fn() under a GradientTape, then apply_gradients of its gradients for
  // `variables`. Returns the loss.
  Tensor minimize(const std::function<Tensor()>& loss_fn, const std::vector<Variable>& variables,
                  OpSite site = {});

  // The number of updates made (int64, not trainable).
  Variable& iterations() { return iterations_; }
  const std::string& name() const { return name_; }
  // The learning rate of the next update, in `dtype`.
  Tensor learning_rate(DType dtype = kFloat32) const;

  // This optimizer's slot names, in the order they are made for each variable.
  virtual std::vector<std::string> slot_names() const = 0;
  // The slot `slot_name` of `variable`; undefined before its first update.
  Variable slot(const Variable& variable, const std::string& slot_name) const;
  // iterations, then each updated variable's slots, in the order they were made (checkpoints).
  std::vector<Variable> variables() const;
  // The variables that have slots, in the order their slots were made.
  const std::vector<Variable>& slotted_variables() const { return slotted_; }
  // Run after a variable's slots are made: Note [Deferred restoration] in nn/module.h.
  void set_restore_hook(std::function<void()> hook) { restore_hook_ = std::move(hook); }

 protected:
  // What a variable's update gets: the gradient, the learning rate and the 1-based step as
  // scalars of the variable's dtype, and the variable's slots in slot_names() order.
  struct Update {
    Variable variable;
    Tensor grad, learning_rate, step;
    const std::vector<Variable>& slots;
    OpSite site;
  };
  virtual void update(const Update& u) = 0;
  // A slot's initial value (zeros unless an optimizer says otherwise).
  virtual double slot_initial_value(const std::string& slot_name) const { return 0; }
  // Runs before the updates, with the variables and the learning rate per dtype (AdamW's decay).
  virtual void before_updates(const std::vector<std::pair<Tensor, Variable>>& pairs,
                              const std::function<Tensor(DType)>& learning_rate, OpSite site) {}

 private:
  std::vector<std::pair<Tensor, Variable>> Pair(const std::vector<Tensor>& grads,
                                                const std::vector<Variable>& variables,
                                                const OpSite& site);
  void Clip(std::vector<std::pair<Tensor, Variable>>& pairs, const OpSite& site) const;
  const std::vector<Variable>& SlotsOf(const Variable& variable);

  std::string name_;
  LearningRate learning_rate_;
  ClipOptions clip_;
  Variable iterations_;
  // Slots by the variable's state, and the variables in the order their slots were made.
  absl::flat_hash_map<const void*, std::vector<Variable>> slots_;
  std::vector<Variable> slotted_;
  absl::flat_hash_set<std::string> warned_;
  std::function<void()> restore_hook_;
};

// `value` rounded to float32, as a scalar of `dtype`: the hyper-parameters Keras casts to float32
// before use (SGD's momentum, Adam's betas in the bias correction, AdamW's weight decay).
Tensor Float32Scalar(double value, DType dtype);

}  // namespace duet::optimizers
