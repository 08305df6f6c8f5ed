#include "io/checkpoint/object_graph.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/resource.h"

namespace duet::checkpoint_internal {

std::string EscapeLocalName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '.') {
      out += ".S";
    } else if (c == '/') {
      out += "..";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

using Node = tensorflow::TrackableObjectGraph::TrackableObject;

}  // namespace

ObjectGraph BuildObjectGraph(const Roots& roots) {
  ObjectGraph out;
  std::vector<ObjectRef> objects = {ObjectRef{}};
  std::vector<std::string> paths = {""};
  absl::flat_hash_map<const void*, int> ids = {{nullptr, 0}};
  out.proto.add_nodes();
  for (size_t id = 0; id < objects.size(); ++id) {  // objects grows: breadth first
    const ObjectRef object = objects[id];
    for (auto& [name, child] : ChildrenOf(object, roots)) {
      auto [it, inserted] = ids.emplace(child.identity(), static_cast<int>(objects.size()));
      if (inserted) {
        const std::string escaped = EscapeLocalName(name);
        paths.push_back(paths[id].empty() ? escaped : absl::StrCat(paths[id], "/", escaped));
        objects.push_back(child);
        out.proto.add_nodes();
      }
      auto* ref = out.proto.mutable_nodes(id)->add_children();
      ref->set_node_id(it->second);
      ref->set_local_name(name);
    }
  }
  for (size_t id = 0; id < objects.size(); ++id) {
    Node& node = *out.proto.mutable_nodes(id);
    if (objects[id].kind == ObjectRef::kVariable) {
      const Variable& variable = objects[id].variable;
      const std::string key = absl::StrCat(paths[id], "/.ATTRIBUTES/", kVariableValue);
      auto* attribute = node.add_attributes();
      attribute->set_name(kVariableValue);
      attribute->set_full_name(variable.name());
      attribute->set_checkpoint_key(key);
      out.variables.push_back({paths[id], key, variable});
    }
  }
  // A node has values when it or a node below it does; children may point back up (aliases), so
  // iterate to the fixed point rather than recurse.
  std::vector<bool> has_values(objects.size());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t id = objects.size(); id-- > 0;) {
      const Node& node = out.proto.nodes(id);
      bool has = node.attributes_size() > 0;
      for (const auto& child : node.children()) has = has || has_values[child.node_id()];
      if (has && !has_values[id]) changed = has_values[id] = true;
    }
  }
  for (size_t id = 0; id < objects.size(); ++id) {
    if (has_values[id])
      out.proto.mutable_nodes(id)->mutable_has_checkpoint_values()->set_value(true);
  }
  return out;
}

}  // namespace duet::checkpoint_internal
