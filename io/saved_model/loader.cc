#include "io/saved_model/loader.h"

#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/tensor_proto.h"
#include "graph/graph_def.h"
#include "io/checkpoint/tensor_bundle.h"
#include "proto/saved_model.pb.h"

namespace duet::saved_model {

// Note [SavedModel import]: a SavedModel's graph holds the signatures' subgraphs (Placeholders,
// VarHandleOps, calls of library functions) beside the saver, whose string ops and file I/O duet
// does not run. load() keeps what the signatures' outputs need, and the library functions those
// call, and imports that. Values come from variables/variables: the saver's restore op (a call of
// a restore function, TensorFlow 2's form, or a NoOp after AssignVariableOps, TensorFlow 1's and
// duet's) assigns each variable RestoreV2's output for one key; following those edges gives each
// VarHandleOp its key. Each variable is then assigned its value by running, once, an
// AssignVariableOp fed from a Placeholder added for it.
namespace {

namespace fs = std::filesystem;
using tensorflow::NodeDef;
using NodeList = google::protobuf::RepeatedPtrField<NodeDef>;

Error Malformed(const std::string& dir, const std::string& what) {
  return Error(absl::InvalidArgumentError(absl::StrCat("SavedModel '", dir, "': ", what)));
}

// An input reference: "node", "node:k" (a graph), "node:output_arg:k" (a function body), "^node".
struct Ref {
  std::string node;
  int index = 0;
};

Ref ParseRef(absl::string_view input) {
  if (absl::StartsWith(input, "^")) input.remove_prefix(1);
  const std::vector<std::string> parts = absl::StrSplit(input, ':');
  Ref ref{parts[0]};
  if (parts.size() >= 2 && !absl::SimpleAtoi(parts.back(), &ref.index)) ref.index = 0;
  return ref;
}

absl::flat_hash_map<std::string, const NodeDef*> ByName(const NodeList& nodes) {
  absl::flat_hash_map<std::string, const NodeDef*> out;
  for (const NodeDef& node : nodes) out[node.name()] = &node;
  return out;
}

// For each AssignVariableOp among `nodes` whose value is (through Identities) an output of
// RestoreV2: the resource it assigns (a node or argument name) -> the key it restores.
absl::flat_hash_map<std::string, std::string> RestoredKeys(const NodeList& nodes) {
  const auto by_name = ByName(nodes);
  absl::flat_hash_map<std::string, std::string> out;
  for (const NodeDef& node : nodes) {
    if (node.op() != "AssignVariableOp" || node.input_size() < 2) continue;
    Ref value = ParseRef(node.input(1));
    auto it = by_name.find(value.node);
    for (int hops = 0; it != by_name.end() && it->second->op() == "Identity" && hops < 100;
         ++hops) {
      value = ParseRef(it->second->input(0));
      it = by_name.find(value.node);
    }
    if (it == by_name.end() || it->second->op() != "RestoreV2" || it->second->input_size() < 2) {
      continue;
    }
    auto names = by_name.find(ParseRef(it->second->input(1)).node);
    if (names == by_name.end() || names->second->op() != "Const") continue;
    const auto& strings = names->second->attr().at("value").tensor().string_val();
    if (value.index < 0 || value.index >= strings.size()) continue;
    out[ParseRef(node.input(0)).node] = strings[value.index];
  }
  return out;
}

// VarHandleOp node name -> checkpoint key, from the saver's restore op (Note [SavedModel import]).
absl::flat_hash_map<std::string, std::string> VariableKeys(const std::string& dir,
                                                           const tensorflow::MetaGraphDef& meta) {
  const tensorflow::GraphDef& graph = meta.graph_def();
  const std::string restore = ParseRef(meta.saver_def().restore_op_name()).node;
  const auto by_name = ByName(graph.node());
  auto op = by_name.find(restore);
  if (op == by_name.end()) {
    throw Malformed(dir,
                    absl::StrCat("the saver's restore op '", restore, "' is not in the graph"));
  }
  const NodeDef& call = *op->second;
  if (call.op() != "StatefulPartitionedCall" && call.op() != "PartitionedCall") {
    return RestoredKeys(graph.node());  // TensorFlow 1's saver: AssignVariableOps in the graph
  }
  const std::string function = call.attr().at("f").func().name();
  for (const auto& f : graph.library().function()) {
    if (f.signature().name() != function) continue;
    const auto by_argument = RestoredKeys(f.node_def());
    absl::flat_hash_map<std::string, std::string> out;
    for (int i = 0; i < f.signature().input_arg_size() && i < call.input_size(); ++i) {
      auto key = by_argument.find(f.signature().input_arg(i).name());
      if (key != by_argument.end()) out[ParseRef(call.input(i)).node] = key->second;
    }
    return out;
  }
  throw Malformed(dir, absl::StrCat("the restore function '", function, "' is not in the library"));
}

// The functions `nodes` call, by name (any attr holding a function or a list of them).
void CalledFunctions(const NodeList& nodes, std::vector<std::string>& out) {
  for (const NodeDef& node : nodes) {
    for (const auto& [name, attr] : node.attr()) {
      if (attr.has_func()) out.push_back(attr.func().name());
      for (const auto& f : attr.list().func()) out.push_back(f.name());
    }
  }
}

// The part of `graph` that `roots` need (inputs and control inputs, transitively), with the
// library functions it calls.
tensorflow::GraphDef Needed(const tensorflow::GraphDef& graph,
                            const std::vector<std::string>& roots) {
  const auto by_name = ByName(graph.node());
  absl::flat_hash_set<std::string> kept;
  std::deque<std::string> queue(roots.begin(), roots.end());
  while (!queue.empty()) {
    const std::string name = queue.front();
    queue.pop_front();
    auto it = by_name.find(name);
    if (it == by_name.end() || !kept.insert(name).second) continue;
    for (const auto& input : it->second->input()) queue.push_back(ParseRef(input).node);
  }
  tensorflow::GraphDef out;
  *out.mutable_versions() = graph.versions();
  for (const NodeDef& node : graph.node()) {
    if (kept.contains(node.name())) *out.add_node() = node;
  }
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> functions;
  for (const auto& f : graph.library().function()) functions[f.signature().name()] = &f;
  std::vector<std::string> called;
  CalledFunctions(out.node(), called);
  absl::flat_hash_set<std::string> added;
  while (!called.empty()) {
    const std::string name = called.back();
    called.pop_back();
    auto it = functions.find(name);
    if (it == functions.end() || !added.insert(name).second) continue;
    *out.mutable_library()->add_function() = *it->second;
    CalledFunctions(it->second->node_def(), called);
  }
  return out;
}

tensorflow::SavedModel ReadSavedModel(const std::string& dir) {
  const fs::path file = fs::path(dir) / "saved_model.pb";
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw Error(absl::NotFoundError(absl::StrCat("SavedModel '", dir, "': no ", file.string(),
                                                 " (a SavedModel directory has one)")));
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  tensorflow::SavedModel model;
  if (!model.ParseFromString(bytes.str())) {
    throw Malformed(dir, absl::StrCat(file.string(), " does not parse as a SavedModel"));
  }
  return model;
}

bool Internal(const std::string& key) { return absl::StartsWith(key, "__"); }

}  // namespace

bool is_saved_model(const std::string& path) {
  return fs::is_directory(path) && fs::exists(fs::path(path) / "saved_model.pb");
}

LoadedModel load(const std::string& dir, const std::string& tag) {
  tensorflow::SavedModel model = ReadSavedModel(dir);
  tensorflow::MetaGraphDef* meta = nullptr;
  std::vector<std::string> tag_sets;
  for (auto& candidate : *model.mutable_meta_graphs()) {
    const auto& tags = candidate.meta_info_def().tags();
    tag_sets.push_back(absl::StrJoin(tags, ","));
    if (std::find(tags.begin(), tags.end(), tag) != tags.end()) meta = &candidate;
  }
  if (meta == nullptr) {
    throw Malformed(dir, absl::StrCat("no MetaGraph is tagged '", tag,
                                      "' (it has: ", absl::StrJoin(tag_sets, "; "), ")"));
  }
  // What the signatures need: their inputs' and outputs' nodes and what those depend on.
  std::vector<std::string> roots;
  for (const auto& [key, signature] : meta->signature_def()) {
    if (Internal(key)) continue;
    for (const auto& [name, info] : signature.inputs()) roots.push_back(ParseRef(info.name()).node);
    for (const auto& [name, info] : signature.outputs())
      roots.push_back(ParseRef(info.name()).node);
  }
  tensorflow::GraphDef needed = Needed(meta->graph_def(), roots);

  // Each variable's value, and a Placeholder + AssignVariableOp that set it.
  const auto keys = VariableKeys(dir, *meta);
  const std::string prefix = (fs::path(dir) / "variables" / "variables").string();
  std::unique_ptr<io::BundleReader> reader;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> assigns;
  const int num_nodes = needed.node_size();
  for (int i = 0; i < num_nodes; ++i) {
    const NodeDef node = needed.node(i);
    if (node.op() != "VarHandleOp") continue;
    auto key = keys.find(node.name());
    if (key == keys.end()) {
      throw Malformed(dir, absl::StrCat("variable '", node.name(),
                                        "' is not restored by the saver: no value for it"));
    }
    if (reader == nullptr) reader = std::make_unique<io::BundleReader>(prefix);
    const std::string value = absl::StrCat("duet_restore/value_", feeds.size());
    const std::string assign = absl::StrCat("duet_restore/assign_", feeds.size());
    NodeDef* placeholder = needed.add_node();
    placeholder->set_name(value);
    placeholder->set_op("Placeholder");
    (*placeholder->mutable_attr())["dtype"] = node.attr().at("dtype");
    NodeDef* assign_node = needed.add_node();
    assign_node->set_name(assign);
    assign_node->set_op("AssignVariableOp");
    assign_node->add_input(node.name());
    assign_node->add_input(value);
    (*assign_node->mutable_attr())["dtype"] = node.attr().at("dtype");
    feeds.emplace_back(value, reader->read(key->second));
    assigns.push_back(assign);
  }

  absl::StatusOr<Graph> graph = GraphFromGraphDef(needed);
  if (!graph.ok()) {
    throw Error(absl::Status(graph.status().code(),
                             absl::StrCat("SavedModel '", dir, "': ", graph.status().message())));
  }
  LoadedModel loaded;
  meta->clear_graph_def();
  loaded.meta_ = std::move(*meta);
  loaded.graph_ = *std::move(graph);
  loaded.session_ = std::make_unique<Session>(loaded.graph_);
  FeedList feed_list;
  for (auto& [name, value] : feeds) feed_list.emplace_back(name, value);
  std::vector<GraphTensor> targets(assigns.begin(), assigns.end());
  loaded.session_->run(feed_list, {}, targets);
  return loaded;
}

std::vector<std::string> LoadedModel::signatures() const {
  std::vector<std::string> out;
  for (const auto& [key, signature] : meta_.signature_def()) {
    if (!Internal(key)) out.push_back(key);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const tensorflow::SignatureDef& LoadedModel::signature_def(const std::string& key) const {
  auto it = meta_.signature_def().find(key);
  if (it == meta_.signature_def().end() || Internal(key)) {
    throw Error(
        absl::NotFoundError(absl::StrCat("the SavedModel has no signature '", key,
                                         "' (it has: ", absl::StrJoin(signatures(), ", "), ")")));
  }
  return it->second;
}

std::map<std::string, Tensor> LoadedModel::call(const std::string& key,
                                                const std::map<std::string, Tensor>& inputs) const {
  const tensorflow::SignatureDef& signature = signature_def(key);
  FeedList feeds;
  for (const auto& [name, value] : inputs) {
    auto info = signature.inputs().find(name);
    if (info == signature.inputs().end()) {
      std::vector<std::string> names;
      for (const auto& [n, i] : signature.inputs()) names.push_back(n);
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("signature '", key, "' has no input '", name,
                       "' (its inputs: ", absl::StrJoin(names, ", "), ")")));
    }
    feeds.emplace_back(info->second.name(), value);
  }
  for (const auto& [name, info] : signature.inputs()) {
    if (!inputs.contains(name)) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("signature '", key, "' needs input '", name, "'")));
    }
  }
  std::vector<std::string> names;
  std::vector<GraphTensor> fetches;
  for (const auto& [name, info] : signature.outputs()) {
    names.push_back(name);
    fetches.emplace_back(info.name());
  }
  const std::vector<Tensor> values = session_->run(feeds, fetches);
  std::map<std::string, Tensor> out;
  for (size_t i = 0; i < names.size(); ++i) out[names[i]] = values[i];
  return out;
}

}  // namespace duet::saved_model
