#include "optimizers/optimizer.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "core/resource.h"
#include "eager/device_scope.h"
#include "eager/eager_context.h"
#include "eager/gradient_tape.h"
#include "graph/graph_context.h"
#include "ops/composite/composite_ops.h"
#include "ops/execution_context.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "optimizers/clipping.h"

namespace duet::optimizers {
namespace {

[[noreturn]] void Fail(const std::string& optimizer, const std::string& what, const OpSite& site) {
  throw Error(absl::InvalidArgumentError(
      absl::StrCat("optimizer '", optimizer, "': ", what, " (at ", site.str(), ")")));
}

}  // namespace

Tensor Float32Scalar(double value, DType dtype) {
  return scalar(static_cast<double>(static_cast<float>(value)), dtype);
}

Optimizer::Optimizer(std::string name, LearningRate learning_rate, ClipOptions clip)
    : name_(std::move(name)), learning_rate_(std::move(learning_rate)), clip_(clip) {
  if (clip_.clipnorm && clip_.global_clipnorm) {
    Fail(name_, "set clipnorm or global_clipnorm, not both", OpSite());
  }
  iterations_ = Variable(scalar(0, kInt64), name_ + "/iterations", /*trainable=*/false);
}

Optimizer::~Optimizer() = default;

Tensor Optimizer::learning_rate(DType dtype) const {
  return cast(learning_rate_.at(cast(iterations_.value(), kFloat32)), dtype);
}

std::vector<std::pair<Tensor, Variable>> Optimizer::Pair(const std::vector<Tensor>& grads,
                                                         const std::vector<Variable>& variables,
                                                         const OpSite& site) {
  if (grads.size() != variables.size()) {
    Fail(name_,
         absl::StrCat("got ", grads.size(), " gradients for ", variables.size(), " variables"),
         site);
  }
  std::vector<std::pair<Tensor, Variable>> pairs;
  absl::flat_hash_set<const void*> seen;
  for (size_t i = 0; i < grads.size(); ++i) {
    const Variable& v = variables[i];
    if (!seen.insert(VariableOf(v.handle())).second) {
      Fail(name_, absl::StrCat("variable '", v.name(), "' is listed twice"), site);
    }
    if (!grads[i].defined()) {
      if (warned_.insert(v.name()).second) {
        std::cerr << "duet: optimizer '" << name_ << "': no gradient for variable '" << v.name()
                  << "' (the loss does not use it); it is not updated\n";
      }
      continue;
    }
    if (grads[i].dtype() != v.dtype() || !grads[i].shape().IsCompatibleWith(v.shape())) {
      Fail(name_,
           absl::StrCat("the gradient of variable '", v.name(), "' is ",
                        DTypeName(grads[i].dtype()), " ", grads[i].shape().str(),
                        ", but the variable is ", DTypeName(v.dtype()), " ", v.shape().str()),
           site);
    }
    pairs.emplace_back(grads[i], v);
  }
  if (pairs.empty()) Fail(name_, "no variable has a gradient", site);
  return pairs;
}

void Optimizer::Clip(std::vector<std::pair<Tensor, Variable>>& pairs, const OpSite& site) const {
  if (clip_.clipnorm) {
    for (auto& pair : pairs) pair.first = clip_by_norm(pair.first, *clip_.clipnorm, {}, site);
  }
  if (clip_.global_clipnorm) {
    std::vector<Tensor> grads;
    for (const auto& pair : pairs) grads.push_back(pair.first);
    grads = clip_by_global_norm(grads, *clip_.global_clipnorm, site);
    for (size_t i = 0; i < pairs.size(); ++i) pairs[i].first = grads[i];
  }
}

const std::vector<Variable>& Optimizer::SlotsOf(const Variable& variable) {
  const void* key = VariableOf(variable.handle());
  auto it = slots_.find(key);
  if (it != slots_.end()) return it->second;
  std::vector<Variable> slots;
  for (const std::string& slot_name : slot_names()) {
    // Variable makes its state eagerly even inside a trace (Note [Optimizer steps]), and a slot
    // lives with its variable, as TensorFlow colocates them: the update reads both on one device.
    ExecutionContext::Scope eager(&EagerContext::Get());
    DeviceScope with_variable(variable.handle().device());
    slots.emplace_back(fill(variable.shape(), slot_initial_value(slot_name), variable.dtype()),
                       absl::StrCat(variable.name(), "/", slot_name), /*trainable=*/false);
  }
  slotted_.push_back(variable);
  const auto& made = slots_.emplace(key, std::move(slots)).first->second;
  if (restore_hook_) restore_hook_();  // may assign the checkpoint's values
  return made;
}

Tensor Optimizer::apply_gradients(const std::vector<Tensor>& grads,
                                  const std::vector<Variable>& variables, OpSite site) {
  std::vector<std::pair<Tensor, Variable>> pairs = Pair(grads, variables, site);
  Clip(pairs, site);
  // Note [Optimizer steps]: one read of the counter serves every variable and dtype.
  // The rate is computed in float32 and cast, as Keras does (a float64 model's constant rate 0.1
  // is float(0.1)), so float64 runs follow Keras' float64 trajectories to the last bits.
  const Tensor count = iterations_.value(site);
  const Tensor rate = learning_rate_.at(cast(count, kFloat32, site));
  absl::flat_hash_map<DType, std::pair<Tensor, Tensor>> per_dtype;  // rate, 1-based step
  const auto scalars = [&](DType dtype) -> const std::pair<Tensor, Tensor>& {
    auto it = per_dtype.find(dtype);
    if (it == per_dtype.end()) {
      const Tensor step = cast(count + 1, dtype, site);
      it = per_dtype.emplace(dtype, std::make_pair(cast(rate, dtype, site), step)).first;
    }
    return it->second;
  };
  before_updates(
      pairs, [&](DType dtype) { return scalars(dtype).first; }, site);
  std::vector<Tensor> updated;
  for (const auto& [grad, variable] : pairs) {
    const auto& [rate, step] = scalars(variable.dtype());
    update(Update{variable, grad, rate, step, SlotsOf(variable), site});
    if (!executing_eagerly()) updated.push_back(variable.value(site));
  }
  // In a graph the counter's increment, and the count returned, come after every update.
  ControlDependencies after_updates(updated);
  iterations_.assign_add(scalar(1, kInt64), site);
  return iterations_.value(site);
}

Tensor Optimizer::minimize(const std::function<Tensor()>& loss_fn,
                           const std::vector<Variable>& variables, OpSite site) {
  GradientTape tape;
  const Tensor loss = loss_fn();
  apply_gradients(tape.gradient(loss, variables), variables, site);
  return loss;
}

Variable Optimizer::slot(const Variable& variable, const std::string& slot_name) const {
  auto it = slots_.find(VariableOf(variable.handle()));
  if (it == slots_.end()) return Variable();
  const std::vector<std::string> names = slot_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == slot_name) return it->second[i];
  }
  return Variable();
}

std::vector<Variable> Optimizer::variables() const {
  std::vector<Variable> out = {iterations_};
  for (const Variable& v : slotted_) {
    const auto& slots = slots_.at(VariableOf(v.handle()));
    out.insert(out.end(), slots.begin(), slots.end());
  }
  return out;
}

}  // namespace duet::optimizers
