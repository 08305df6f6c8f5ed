// The object graph a checkpoint saves: TensorFlow's TrackableObjectGraph of a Checkpoint's
// objects, and the bundle key of every variable in it.
#pragma once

#include <string>
#include <vector>

#include "eager/variable.h"
#include "io/checkpoint/trackable.h"
#include "proto/trackable_object_graph.pb.h"

namespace duet::checkpoint_internal {

// The bundle key the object graph is stored under.
inline constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";
// A variable's value is the attribute of this name; its key ends in "/.ATTRIBUTES/<name>".
inline constexpr char kVariableValue[] = "VARIABLE_VALUE";

struct SavedVariable {
  std::string path;  // the object path: "model/d1/kernel"
  std::string key;   // its bundle key: "model/d1/kernel/.ATTRIBUTES/VARIABLE_VALUE"
  Variable variable;
};

struct ObjectGraph {
  tensorflow::TrackableObjectGraph proto;
  std::vector<SavedVariable> variables;  // in node order
};

// Walks the tree breadth first from the root, as TensorFlow does: node ids in visiting order,
// an object reached twice is one node, named (its path and keys) by the first path that reached
// it. Slots are listed by position only ("optimizer/_variables/<i>"), as Keras 2.11+ does: its
// optimizers refuse checkpoints that list slots against their variables (TensorFlow's
// slot_variables, the legacy optimizers' format); their full_name ("d1/kernel/m") names the owner.
ObjectGraph BuildObjectGraph(const Roots& roots);

// A local name as it appears in keys: '.' becomes ".S" and '/' "..", so paths split on '/'.
std::string EscapeLocalName(const std::string& name);

}  // namespace duet::checkpoint_internal
