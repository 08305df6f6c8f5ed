// nn::Module: the object tree of a model. A module owns named variables and named child modules;
// layers, models, metrics (and the checkpoint object graph) are modules.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/shape.h"
#include "core/tensor.h"
#include "eager/variable.h"

namespace duet::nn {

// What makes a variable's initial value: called eagerly (even while a graph is built or a
// function traced) with the variable's shape and dtype. See nn/initializers.h.
using Initializer = std::function<Tensor(const Shape& shape, DType dtype)>;

// Note [Modules]: a module is a node of the object tree. Children are registered by their
// parent under a local name, either as members (`nn::Dense d1{this, "d1", 256}`) or held by
// the parent (`add_module`, as nn::Sequential does). A variable's path joins the names from the
// root down ("encoder/dense_1/kernel"); a root with an empty name adds nothing, so a model's
// paths start at its children. Variables are listed own-first, then each child's in
// registration order, depth first: the order checkpoints and optimizers see.
//
// Modules are neither copyable nor movable: children point at their parent and the parent at
// its member children, so a move would leave dangling pointers. Hold a model by value where it
// is made, or by std::unique_ptr / std::shared_ptr to pass it around.
class Module {
 public:
  // A root module (a model), or a module a parent adopts later (add_module).
  explicit Module(std::string name = "");
  // A child of `parent` called `name`: the form for member modules.
  Module(Module* parent, std::string name);
  virtual ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }
  Module* parent() const { return parent_; }
  // The names from the root down to this module, joined by '/' (empty names skipped).
  std::string path() const;

  // Every variable of this module and its descendants, in the order of Note [Modules].
  std::vector<Variable> variables() const;
  // Those a GradientTape should train: trainable variables of modules not frozen.
  std::vector<Variable> trainable_variables() const;
  // The rest: moving statistics, counters, variables of frozen modules.
  std::vector<Variable> non_trainable_variables() const;

  // Freezes (false) or unfreezes this module and its descendants, as Keras' `trainable`.
  void set_trainable(bool trainable) { trainable_ = trainable; }
  bool trainable() const;

  // The tree itself, for checkpoints: own variables and direct children, by local name.
  const std::vector<std::pair<std::string, Variable>>& own_variables() const { return variables_; }
  const std::vector<std::pair<std::string, Module*>>& children() const { return children_; }
  // The children as a checkpoint's object graph names them: children() unless a module follows
  // another convention (nn::Sequential's "layer-0", as Keras). A child may appear twice.
  virtual std::vector<std::pair<std::string, Module*>> checkpoint_children() const {
    return children_;
  }

  // Note [Deferred restoration]: a checkpoint restored before this module has all its variables
  // and children (layers build on their first call) leaves a hook here, so the restore finishes
  // as they appear (io/checkpoint). A variable made later starts from the checkpoint's value
  // rather than its initializer's, as TensorFlow's CheckpointInitialValue does: restoring costs
  // no initializer run and no second assignment. A later restore replaces the hook.
  class RestoreHook {
   public:
    virtual ~RestoreHook() = default;
    // The checkpoint's value for the variable `name` about to be made, or an undefined Tensor;
    // throws Error if the checkpoint's dtype or shape differs.
    virtual Tensor initial_value(const std::string& name, const Shape& shape, DType dtype) = 0;
    // Runs after each variable or child added.
    virtual void added() = 0;
  };
  void set_restore_hook(std::shared_ptr<RestoreHook> hook) { restore_hook_ = std::move(hook); }

 protected:
  // Makes a variable owned by this module, called path()/`name`, from `initializer`.
  Variable add_variable(const std::string& name, const Shape& shape, DType dtype,
                        const Initializer& initializer, bool trainable = true);
  // Adopts `child` (kept alive by this module) under `name`, or under a name made unique from
  // the child's own name when `name` is empty ("dense", "dense_1", ...). Returns the name.
  std::string add_module(std::shared_ptr<Module> child, std::string name = "");
  // Adopts an existing variable under `name` (its own name is kept): the form for front ends
  // whose models assign variables as attributes (Note [Python modules] in python/src/nn.cc).
  void add_variable(const std::string& name, const Variable& variable);
  // Forgets the child or variable called `name` (an attribute reassigned); a child is released
  // and becomes a root. Returns whether there was one.
  bool remove(const std::string& name);

 private:
  void Register(Module* child, std::string name);
  void CheckNewVariable(const std::string& name) const;
  void Collect(std::vector<Variable>& out, int which, bool frozen) const;

  std::string name_;
  Module* parent_ = nullptr;
  bool trainable_ = true;
  std::vector<std::pair<std::string, Variable>> variables_;
  std::vector<std::pair<std::string, Module*>> children_;
  std::vector<std::shared_ptr<Module>> held_;  // children adopted by add_module
  std::shared_ptr<RestoreHook> restore_hook_;
};

}  // namespace duet::nn
