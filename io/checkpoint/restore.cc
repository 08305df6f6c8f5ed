#include "io/checkpoint/restore.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/error.h"
#include "core/resource.h"
#include "eager/eager_context.h"

namespace duet::checkpoint_internal {
namespace {

Error Corrupt(const std::string& path, const std::string& what) {
  return Error(absl::DataLossError(
      absl::StrCat("checkpoint '", path, "': the object graph is corrupt: ", what)));
}

// The value attribute of a variable's node, or nullptr.
const tensorflow::TrackableObjectGraph::TrackableObject::SerializedTensor* ValueOf(
    const tensorflow::TrackableObjectGraph::TrackableObject& node) {
  for (const auto& attribute : node.attributes()) {
    if (attribute.name() == kVariableValue) return &attribute;
  }
  return nullptr;
}

// The hook a restore leaves on a module (Note [Deferred restoration] in nn/module.h).
class ModuleHook : public nn::Module::RestoreHook {
 public:
  ModuleHook(std::shared_ptr<Restore> restore, nn::Module* module, int node)
      : restore_(std::move(restore)), module_(module), node_(node) {}
  Tensor initial_value(const std::string& name, const Shape& shape, DType dtype) override {
    return restore_->InitialValue(module_, node_, name, shape, dtype);
  }
  void added() override { restore_->Added(module_, node_); }

 private:
  std::shared_ptr<Restore> restore_;
  nn::Module* module_;
  int node_;
};

}  // namespace

Restore::Restore(const std::string& path, Roots roots)
    : path_(path), roots_(std::move(roots)), reader_(path) {
  if (!reader_.contains(kObjectGraphKey)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("checkpoint '", path, "' has no object graph ('", kObjectGraphKey,
                     "'): it was written by a name-based saver (tf.compat.v1.train.Saver), which "
                     "object-based restore cannot match")));
  }
  const Tensor serialized = reader_.read(kObjectGraphKey);
  if (serialized.dtype() != kString || serialized.num_elements() != 1 ||
      !graph_.ParseFromString(*serialized.data<std::string>())) {
    throw Corrupt(path, "it does not parse as a TrackableObjectGraph");
  }
  IndexGraph();
  used_.assign(graph_.nodes_size(), false);
}

Restore::~Restore() {
  if (expect_partial_) return;
  const std::vector<std::string> unused = UnusedValues();
  if (unused.empty()) return;
  std::cerr << "warning: checkpoint '" << path_ << "': " << unused.size()
            << " value(s) were never restored: " << absl::StrJoin(unused, ", ")
            << " (call expect_partial() on restore()'s status if that is intended)\n";
}

void Restore::IndexGraph() {
  const int n = graph_.nodes_size();
  if (n == 0) throw Corrupt(path_, "it has no nodes");
  children_.resize(n);
  paths_.assign(n, "");
  std::vector<bool> named(n, false);
  named[0] = true;
  // Node paths, breadth first as they were written, name nodes in messages.
  std::vector<int> queue = {0};
  for (size_t i = 0; i < queue.size(); ++i) {
    const int id = queue[i];
    for (const auto& child : graph_.nodes(id).children()) {
      if (child.node_id() < 0 || child.node_id() >= n) {
        throw Corrupt(path_, absl::StrCat("node ", id, " has a child ", child.node_id(),
                                          " but there are ", n, " nodes"));
      }
      children_[id].emplace(child.local_name(), child.node_id());
      if (!named[child.node_id()]) {
        named[child.node_id()] = true;
        paths_[child.node_id()] = paths_[id].empty()
                                      ? child.local_name()
                                      : absl::StrCat(paths_[id], "/", child.local_name());
        queue.push_back(child.node_id());
      }
    }
  }
  for (int id = 0; id < n; ++id) {
    for (const auto& slot : graph_.nodes(id).slot_variables()) {
      if (slot.original_variable_node_id() < 0 || slot.original_variable_node_id() >= n ||
          slot.slot_variable_node_id() < 0 || slot.slot_variable_node_id() >= n) {
        throw Corrupt(path_, absl::StrCat("node ", id, " lists a slot of a node out of range"));
      }
    }
    const auto* value = ValueOf(graph_.nodes(id));
    if (value != nullptr) variable_names_.insert(value->full_name());
    if (value != nullptr && !reader_.contains(value->checkpoint_key())) {
      throw Corrupt(path_, absl::StrCat("'", paths_[id], "' names the value '",
                                        value->checkpoint_key(), "', which the bundle lacks"));
    }
  }
}

int Restore::Child(int node, const std::string& local_name) const {
  auto it = children_[node].find(local_name);
  return it == children_[node].end() ? -1 : it->second;
}

void Restore::Run() {
  try {
    Match(ObjectRef{}, 0);
    // Slots are found through their variables' nodes, which a root listed after the optimizer
    // may have matched only now.
    for (const auto& [name, trackable] : roots_) {
      const ObjectRef ref = ObjectRef::Of(trackable);
      const int node = Child(0, name);
      if (ref.kind == ObjectRef::kOptimizer && node >= 0) MatchSlots(*ref.optimizer, node);
    }
    Flush();
  } catch (...) {
    expect_partial_ = true;  // the error says what went wrong; no warning on top
    throw;
  }
}

void Restore::Flush() {
  // Every value is read (and checked) before any is assigned: a corrupt file leaves the
  // variables as they were rather than half restored.
  std::vector<Tensor> values;
  values.reserve(pending_.size());
  for (const auto& [variable, node] : pending_) {
    values.push_back(reader_.read(ValueOf(graph_.nodes(node))->checkpoint_key()));
  }
  {
    // Deferred restores run while a layer builds, which may be inside a trace.
    ExecutionContext::Scope eager(&EagerContext::Get());
    for (size_t i = 0; i < pending_.size(); ++i) pending_[i].first.assign(values[i]);
  }
  for (const auto& [variable, node] : pending_) used_[node] = true;
  pending_.clear();
  for (auto& install : hooks_) install();
  hooks_.clear();
}

void Restore::Match(const ObjectRef& object, int node) {
  if (object.kind == ObjectRef::kOptimizer) {
    optimizers::Optimizer* optimizer = object.optimizer;
    // Keras 2.11+ calls the step "_iterations", the legacy optimizers "iter".
    int iterations = Child(node, "_iterations");
    if (iterations < 0) iterations = Child(node, "iter");
    if (iterations >= 0) Assign(optimizer->iterations(), iterations);
    MatchSlots(*optimizer, node);
    hooks_.push_back([self = shared_from_this(), optimizer, node] {
      optimizer->set_restore_hook([self, optimizer, node] {
        self->MatchSlots(*optimizer, node);
        self->Flush();
      });
    });
    return;
  }
  if (object.kind == ObjectRef::kModule && !matched_.insert(object.module).second) {
    return;  // reached twice ("layer-0" and "layer_with_weights-0"): its hook is set
  }
  for (const auto& [name, child] : ChildrenOf(object, roots_)) {
    const int child_node = Child(node, name);
    if (child_node < 0) continue;
    if (child.kind == ObjectRef::kVariable) {
      Assign(child.variable, child_node);
    } else if (!(child.kind == ObjectRef::kModule && matched_.contains(child.module))) {
      Match(child, child_node);
    }
  }
  if (object.kind == ObjectRef::kModule) {
    nn::Module* module = object.module;
    hooks_.push_back([self = shared_from_this(), module, node] {
      module->set_restore_hook(std::make_shared<ModuleHook>(self, module, node));
    });
  }
}

Tensor Restore::InitialValue(nn::Module* module, int node, const std::string& name,
                             const Shape& shape, DType dtype) {
  const int child = Child(node, name);
  if (child < 0 || ValueOf(graph_.nodes(child)) == nullptr) return Tensor();
  CheckValue(child, absl::StrCat(module->path().empty() ? "" : module->path() + "/", name), dtype,
             shape);
  Tensor value = reader_.read(ValueOf(graph_.nodes(child))->checkpoint_key());
  used_[child] = true;
  given_[{module, name}] = child;
  return value;
}

void Restore::Added(nn::Module* module, int node) {
  for (const auto& [name, variable] : module->own_variables()) {
    auto given = given_.find(std::make_pair(static_cast<const nn::Module*>(module), name));
    if (given == given_.end()) continue;
    const void* state = VariableOf(variable.handle());
    assigned_.insert(state);
    variable_nodes_[state] = given->second;
    given_.erase(given);
  }
  matched_.erase(module);  // walk it again for the children added
  Match(ObjectRef::Of(module), node);
  Flush();
}

void Restore::MatchSlots(optimizers::Optimizer& optimizer, int node) {
  const Node& proto = graph_.nodes(node);
  // TensorFlow's legacy optimizers list each slot against its variable's node.
  for (const Variable& variable : optimizer.slotted_variables()) {
    auto found = variable_nodes_.find(VariableOf(variable.handle()));
    if (found == variable_nodes_.end()) continue;
    const int original = found->second;  // Assign adds to variable_nodes_: copy, not iterator
    for (const auto& ref : proto.slot_variables()) {
      if (ref.original_variable_node_id() != original) continue;
      const Variable slot = optimizer.slot(variable, ref.slot_name());
      if (slot.defined()) Assign(slot, ref.slot_variable_node_id());
    }
  }
  // Keras' optimizers (and duet) list them by position: "_variables/<i>" is the i-th of
  // variables(). duet's slots are found by their names ("d1/kernel/m", the owner's name and the
  // slot's), whatever order they were made in; Keras' (named "Adam/m/dense/kernel") by position,
  // which is right when the slots are made in Keras' order: each variable's together, in the
  // order of the variable list of the first update, as duet makes them.
  const int list = Child(node, "_variables");
  if (list < 0) return;
  const std::vector<Variable> variables = optimizer.variables();
  absl::flat_hash_map<std::string, int> by_name;  // -1: two variables share the name
  for (size_t i = 0; i < variables.size(); ++i) {
    auto [it, inserted] = by_name.emplace(variables[i].name(), static_cast<int>(i));
    if (!inserted) it->second = -1;
  }
  for (const auto& [local_name, child] : children_[list]) {
    const auto* value = ValueOf(graph_.nodes(child));
    if (value == nullptr) continue;
    if (IsSlotName(value->full_name(), optimizer)) {
      auto named = by_name.find(value->full_name());
      if (named != by_name.end() && named->second >= 0) Assign(variables[named->second], child);
      continue;  // its slot is not made yet
    }
    int index = -1;
    if (absl::SimpleAtoi(local_name, &index) && index >= 0 &&
        index < static_cast<int>(variables.size())) {
      Assign(variables[index], child);
    }
  }
}

bool Restore::IsSlotName(const std::string& name, const optimizers::Optimizer& optimizer) const {
  const size_t slash = name.rfind('/');
  if (slash == std::string::npos) return false;
  const std::vector<std::string> slots = optimizer.slot_names();
  return std::find(slots.begin(), slots.end(), name.substr(slash + 1)) != slots.end() &&
         variable_names_.contains(name.substr(0, slash));
}

void Restore::Assign(const Variable& variable, int node) {
  const void* state = VariableOf(variable.handle());
  variable_nodes_[state] = node;
  if (assigned_.contains(state)) return;
  const auto* value = ValueOf(graph_.nodes(node));
  if (value == nullptr) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("checkpoint '", path_, "': '", paths_[node],
                                                        "' is not a variable there, but '",
                                                        variable.name(), "' is a variable here")));
  }
  CheckValue(node, variable.name(), variable.dtype(), variable.shape());
  pending_.emplace_back(variable, node);
  assigned_.insert(state);
}

void Restore::CheckValue(int node, const std::string& variable, DType dtype,
                         const Shape& shape) const {
  const io::BundleEntry entry = reader_.entry(ValueOf(graph_.nodes(node))->checkpoint_key());
  const absl::StatusOr<DType> stored = FromProtoDataType(entry.proto_dtype);
  if (!stored.ok() || *stored != dtype || entry.shape != shape) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "checkpoint '", path_, "': '", paths_[node], "' holds ",
        stored.ok() ? DTypeName(*stored) : absl::StrCat("DataType ", entry.proto_dtype), " ",
        entry.shape.str(), " but the variable '", variable, "' is ", DTypeName(dtype), " ",
        shape.str())));
  }
}

std::vector<std::string> Restore::UnusedValues() const {
  std::vector<std::string> out;
  for (int id = 0; id < graph_.nodes_size(); ++id) {
    if (!used_[id] && ValueOf(graph_.nodes(id)) != nullptr) out.push_back(paths_[id]);
  }
  return out;
}

std::vector<std::string> Restore::UnrestoredVariables() const {
  std::vector<std::string> out;
  for (const SavedVariable& saved : BuildObjectGraph(roots_).variables) {
    if (!assigned_.contains(VariableOf(saved.variable.handle()))) out.push_back(saved.path);
  }
  return out;
}

}  // namespace duet::checkpoint_internal
