#include "nn/module.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "eager/eager_context.h"

namespace duet::nn {
namespace {

enum Which { kAll, kTrainable, kNonTrainable };

}  // namespace

Module::Module(std::string name) : name_(std::move(name)) {}

Module::Module(Module* parent, std::string name) : name_(std::move(name)) {
  if (parent != nullptr) parent->Register(this, name_);
}

// Children adopted by add_module may outlive this module (a front end holds them too): they
// become roots. Member children are already destroyed here, and need nothing.
Module::~Module() {
  for (const auto& child : held_) {
    if (child->parent_ == this) child->parent_ = nullptr;
  }
}

std::string Module::path() const {
  std::string up = parent_ != nullptr ? parent_->path() : "";
  if (name_.empty()) return up;
  return up.empty() ? name_ : absl::StrCat(up, "/", name_);
}

bool Module::trainable() const {
  return trainable_ && (parent_ == nullptr || parent_->trainable());
}

void Module::Register(Module* child, std::string name) {
  if (child->parent_ != nullptr) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("module '", name, "' already belongs to '", child->parent_->path(), "'")));
  }
  for (const auto& [existing, module] : children_) {
    if (existing == name) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("module '", path(), "' already has a child called '", name, "'")));
    }
  }
  child->parent_ = this;
  child->name_ = name;
  children_.emplace_back(std::move(name), child);
  if (restore_hook_) restore_hook_->added();
}

std::string Module::add_module(std::shared_ptr<Module> child, std::string name) {
  if (name.empty()) {
    const std::string base = child->name_.empty() ? "module" : child->name_;
    name = base;
    for (int i = 1;; ++i) {
      bool taken = false;
      for (const auto& entry : children_) taken = taken || entry.first == name;
      if (!taken) break;
      name = absl::StrCat(base, "_", i);
    }
  }
  Register(child.get(), name);
  held_.push_back(std::move(child));
  return name;
}

void Module::CheckNewVariable(const std::string& name) const {
  for (const auto& entry : variables_) {
    if (entry.first == name) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("module '", path(), "' already has a variable called '", name, "'")));
    }
  }
}

void Module::add_variable(const std::string& name, const Variable& variable) {
  CheckNewVariable(name);
  variables_.emplace_back(name, variable);
  if (restore_hook_) restore_hook_->added();
}

bool Module::remove(const std::string& name) {
  for (auto it = variables_.begin(); it != variables_.end(); ++it) {
    if (it->first == name) {
      variables_.erase(it);
      return true;
    }
  }
  for (auto it = children_.begin(); it != children_.end(); ++it) {
    if (it->first != name) continue;
    Module* child = it->second;
    children_.erase(it);
    child->parent_ = nullptr;
    std::erase_if(held_, [child](const auto& held) { return held.get() == child; });
    return true;
  }
  return false;
}

Variable Module::add_variable(const std::string& name, const Shape& shape, DType dtype,
                              const Initializer& initializer, bool trainable) {
  CheckNewVariable(name);
  const std::string full_name = path().empty() ? name : absl::StrCat(path(), "/", name);
  Tensor initial;
  {
    // Initial values are eager even while a graph is built (Variable needs a value).
    ExecutionContext::Scope eager(&EagerContext::Get());
    if (restore_hook_) initial = restore_hook_->initial_value(name, shape, dtype);
    if (!initial.defined()) initial = initializer(shape, dtype);
  }
  Variable variable(initial, full_name, trainable);
  variables_.emplace_back(name, variable);
  if (restore_hook_) restore_hook_->added();
  return variable;
}

std::vector<Variable> Module::variables() const {
  std::vector<Variable> out;
  Collect(out, kAll, false);
  return out;
}

std::vector<Variable> Module::trainable_variables() const {
  std::vector<Variable> out;
  Collect(out, kTrainable, !trainable());
  return out;
}

std::vector<Variable> Module::non_trainable_variables() const {
  std::vector<Variable> out;
  Collect(out, kNonTrainable, !trainable());
  return out;
}

void Module::Collect(std::vector<Variable>& out, int which, bool frozen) const {
  frozen = frozen || !trainable_;
  for (const auto& [name, variable] : variables_) {
    const bool trains = variable.trainable() && !frozen;
    if (which == kAll || (which == kTrainable) == trains) out.push_back(variable);
  }
  for (const auto& [name, child] : children_) child->Collect(out, which, frozen);
}

}  // namespace duet::nn
