#include "io/checkpoint/trackable.h"

#include "absl/strings/str_cat.h"
#include "core/resource.h"

namespace duet::checkpoint_internal {

const void* ObjectRef::identity() const {
  switch (kind) {
    case kRoot:
      return nullptr;
    case kModule:
      return module;
    case kOptimizer:
      return optimizer;
    case kOptimizerVariables:  // one past the optimizer: distinct from it, stable
      return reinterpret_cast<const char*>(optimizer) + 1;
    case kVariable:
      return VariableOf(variable.handle());
  }
  return nullptr;
}

ObjectRef ObjectRef::Of(const Trackable& trackable) {
  ObjectRef ref;
  if (auto* const* module = std::get_if<nn::Module*>(&trackable.object())) {
    ref.kind = kModule;
    ref.module = *module;
  } else if (auto* const* optimizer = std::get_if<optimizers::Optimizer*>(&trackable.object())) {
    ref.kind = kOptimizer;
    ref.optimizer = *optimizer;
  } else {
    ref.kind = kVariable;
    ref.variable = std::get<Variable>(trackable.object());
  }
  return ref;
}

namespace {

ObjectRef VariableRef(const Variable& variable) {
  ObjectRef ref;
  ref.kind = ObjectRef::kVariable;
  ref.variable = variable;
  return ref;
}

}  // namespace

std::vector<std::pair<std::string, ObjectRef>> ChildrenOf(const ObjectRef& object,
                                                          const Roots& roots) {
  std::vector<std::pair<std::string, ObjectRef>> out;
  switch (object.kind) {
    case ObjectRef::kRoot:
      for (const auto& [name, trackable] : roots) out.emplace_back(name, ObjectRef::Of(trackable));
      break;
    case ObjectRef::kModule:
      for (const auto& [name, variable] : object.module->own_variables()) {
        out.emplace_back(name, VariableRef(variable));
      }
      for (const auto& [name, child] : object.module->checkpoint_children()) {
        ObjectRef ref;
        ref.kind = ObjectRef::kModule;
        ref.module = child;
        out.emplace_back(name, ref);
      }
      break;
    case ObjectRef::kOptimizer: {
      out.emplace_back("_iterations", VariableRef(object.optimizer->iterations()));
      ObjectRef list = object;
      list.kind = ObjectRef::kOptimizerVariables;
      out.emplace_back("_variables", list);
      break;
    }
    case ObjectRef::kOptimizerVariables: {
      const std::vector<Variable> variables = object.optimizer->variables();
      for (size_t i = 0; i < variables.size(); ++i) {
        out.emplace_back(absl::StrCat(i), VariableRef(variables[i]));
      }
      break;
    }
    case ObjectRef::kVariable:
      break;
  }
  return out;
}

}  // namespace duet::checkpoint_internal
