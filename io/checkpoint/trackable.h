// Trackable: what a Checkpoint can hold by name (a module, an optimizer or a variable), and the
// object tree those reach, as a checkpoint's object graph sees it.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "eager/variable.h"
#include "nn/module.h"
#include "optimizers/optimizer.h"

namespace duet {

// A module (a model, a layer, a metric), an optimizer or a variable, held by pointer: the object
// must outlive the Checkpoint that names it.
class Trackable {
 public:
  Trackable(nn::Module* module) : object_(module) {}                   // NOLINT: {"model", &model}
  Trackable(optimizers::Optimizer* optimizer) : object_(optimizer) {}  // NOLINT
  // A variable is held by handle (the same variable; the C++ object may go), so a Checkpoint
  // and its load statuses never point into an object that may be gone (its own save_counter).
  Trackable(Variable* variable) : object_(*variable) {}  // NOLINT

  using Object = std::variant<nn::Module*, optimizers::Optimizer*, Variable>;
  const Object& object() const { return object_; }

 private:
  Object object_;
};

namespace checkpoint_internal {

// A node of the object tree. Identity makes an object reached twice (an optimizer's step is both
// "_iterations" and "_variables/0") one node of the graph.
struct ObjectRef {
  enum Kind { kRoot, kModule, kOptimizer, kOptimizerVariables, kVariable };
  Kind kind = kRoot;
  nn::Module* module = nullptr;
  optimizers::Optimizer* optimizer = nullptr;  // kOptimizer and kOptimizerVariables
  Variable variable;

  const void* identity() const;
  static ObjectRef Of(const Trackable& trackable);
};

// The root's children: the Checkpoint's named objects.
using Roots = std::vector<std::pair<std::string, Trackable>>;

// An object's children by local name, as TensorFlow's object graph names them: a module's own
// variables then checkpoint_children(); an optimizer's "_iterations" and "_variables" (the step
// then every slot in creation order, as Keras' optimizers list them: "_variables/0", ...).
std::vector<std::pair<std::string, ObjectRef>> ChildrenOf(const ObjectRef& object,
                                                          const Roots& roots);

}  // namespace checkpoint_internal
}  // namespace duet
