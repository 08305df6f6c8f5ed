// Restore: one restore of a checkpoint into a Checkpoint's objects, alive as long as a status or
// a deferred-restoration hook needs it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "io/checkpoint/object_graph.h"
#include "io/checkpoint/tensor_bundle.h"
#include "io/checkpoint/trackable.h"
#include "proto/trackable_object_graph.pb.h"

namespace duet::checkpoint_internal {

class Restore : public std::enable_shared_from_this<Restore> {
 public:
  // Opens `path` and reads its object graph; throws Error if either is unreadable or corrupt.
  Restore(const std::string& path, Roots roots);
  ~Restore();  // warns about values never used, unless expect_partial() was called

  // Matches the roots against the checkpoint's root and assigns what exists.
  void Run();

  // A module's RestoreHook (Note [Deferred restoration] in nn/module.h): the value of its
  // variable `name` when the checkpoint has one, and the walk of what was added.
  Tensor InitialValue(nn::Module* module, int node, const std::string& name, const Shape& shape,
                      DType dtype);
  void Added(nn::Module* module, int node);

  std::vector<std::string> UnusedValues() const;
  std::vector<std::string> UnrestoredVariables() const;
  void ExpectPartial() { expect_partial_ = true; }
  const std::string& path() const { return path_; }

 private:
  using Node = tensorflow::TrackableObjectGraph::TrackableObject;

  void IndexGraph();  // children_ and paths_, checking node ids
  int Child(int node, const std::string& local_name) const;  // -1 if none
  // Matches `object`'s children against `node`'s and leaves a hook for those not made yet.
  void Match(const ObjectRef& object, int node);
  void MatchSlots(optimizers::Optimizer& optimizer, int node);
  // Whether a slot in the checkpoint is named as duet names slots: "<variable>/<slot name>",
  // the variable being one the checkpoint holds. Those are matched by name, others by position.
  bool IsSlotName(const std::string& name, const optimizers::Optimizer& optimizer) const;
  // Throws unless `node`'s value has `dtype` and `shape` (the message names both).
  void CheckValue(int node, const std::string& variable, DType dtype, const Shape& shape) const;
  // Checks `variable` against `node`'s value and queues the assignment for Flush.
  void Assign(const Variable& variable, int node);
  // Reads every queued value, then assigns them, then installs the hooks Match queued.
  void Flush();

  std::string path_;
  Roots roots_;
  io::BundleReader reader_;
  tensorflow::TrackableObjectGraph graph_;
  std::vector<absl::flat_hash_map<std::string, int>> children_;  // per node, by local name
  std::vector<std::string> paths_;                               // per node, for messages
  std::vector<bool> used_;                                       // per node with a value
  absl::flat_hash_set<std::string> variable_names_;              // every value's full_name
  absl::flat_hash_map<const void*, int> variable_nodes_;         // a variable's state -> its node
  absl::flat_hash_set<const void*> assigned_;
  absl::flat_hash_set<const nn::Module*> matched_;
  // Variables InitialValue gave a value, until Added sees them made: (module, name) -> node.
  absl::flat_hash_map<std::pair<const nn::Module*, std::string>, int> given_;
  std::vector<std::pair<Variable, int>> pending_;
  std::vector<std::function<void()>> hooks_;
  bool expect_partial_ = false;
};

}  // namespace duet::checkpoint_internal
