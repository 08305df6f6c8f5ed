#include "io/saved_model/saved_model.h"

#include <filesystem>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/resource.h"
#include "core/tensor_proto.h"
#include "graph/graph_ops.h"
#include "io/checkpoint/tensor_bundle.h"
#include "io/file.h"
#include "proto/saved_model.pb.h"

namespace duet::saved_model {

// Note [SavedModel export]: saved_model.pb holds one MetaGraphDef tagged "serve" whose graph is
// every signature's exported graph (node names prefixed "<signature>/" when there are several),
// the signatures naming its Placeholders and outputs, and a saver in TensorFlow 1's form:
// "saver_filename" (fed the variables' prefix), "save/restore_all" (RestoreV2, then one
// AssignVariableOp per VarHandleOp) and "save/control_dependency" (SaveV2 of every variable).
// variables/variables is a TensorBundle keyed by the VarHandleOps' shared names. TensorFlow 2's
// tf.saved_model.load reads such a model through its TF1 path (load_v1_in_v2): it runs the
// restore op on variables/variables and prunes a function per signature. duet writes no
// SavedObjectGraph: the loaded object has signatures and variables, not duet's module tree.
namespace {

namespace fs = std::filesystem;
using tensorflow::NodeDef;

constexpr char kFilename[] = "saver_filename";

std::string Renamed(const std::string& prefix, const std::string& input) {
  if (prefix.empty()) return input;
  if (absl::StartsWith(input, "^")) return absl::StrCat("^", prefix, input.substr(1));
  return absl::StrCat(prefix, input);
}

NodeDef* AddNode(tensorflow::GraphDef& graph, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  NodeDef* node = graph.add_node();
  node->set_name(name);
  node->set_op(op);
  for (auto& input : inputs) node->add_input(std::move(input));
  return node;
}

void SetType(NodeDef& node, const std::string& attr, DType dtype) {
  (*node.mutable_attr())[attr].set_type(static_cast<tensorflow::DataType>(ToProtoDataType(dtype)));
}

void SetTypes(NodeDef& node, const std::string& attr, const std::vector<DType>& dtypes) {
  auto* list = (*node.mutable_attr())[attr].mutable_list();
  for (DType dtype : dtypes) {
    list->add_type(static_cast<tensorflow::DataType>(ToProtoDataType(dtype)));
  }
}

// A Const DT_STRING vector (duet has no string tensors yet: written as a proto directly).
void AddStrings(tensorflow::GraphDef& graph, const std::string& name,
                const std::vector<std::string>& values) {
  NodeDef* node = AddNode(graph, name, "Const", {});
  (*node->mutable_attr())["dtype"].set_type(tensorflow::DT_STRING);
  auto* tensor = (*node->mutable_attr())["value"].mutable_tensor();
  tensor->set_dtype(tensorflow::DT_STRING);
  tensor->mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(values.size()));
  for (const auto& value : values) tensor->add_string_val(value);
}

struct SavedVariable {
  std::string node;  // its VarHandleOp in the merged graph
  std::string key;   // its shared name: the bundle key
  DType dtype;
  Tensor value;
};

// The saver of Note [SavedModel export].
tensorflow::SaverDef AddSaver(tensorflow::GraphDef& graph,
                              const std::vector<SavedVariable>& variables) {
  NodeDef* filename = AddNode(graph, kFilename, "Placeholder", {});
  (*filename->mutable_attr())["dtype"].set_type(tensorflow::DT_STRING);
  (*filename->mutable_attr())["shape"].mutable_shape();
  std::vector<std::string> keys;
  std::vector<DType> dtypes;
  for (const auto& v : variables) {
    keys.push_back(v.key);
    dtypes.push_back(v.dtype);
  }
  AddStrings(graph, "save/tensor_names", keys);
  AddStrings(graph, "save/shape_and_slices", std::vector<std::string>(keys.size()));
  SetTypes(*AddNode(graph, "save/RestoreV2", "RestoreV2",
                    {kFilename, "save/tensor_names", "save/shape_and_slices"}),
           "dtypes", dtypes);
  std::vector<std::string> assigns, reads;
  for (size_t i = 0; i < variables.size(); ++i) {
    const std::string assign = absl::StrCat("save/Assign_", i);
    SetType(*AddNode(graph, assign, "AssignVariableOp",
                     {variables[i].node, absl::StrCat("save/RestoreV2:", i)}),
            "dtype", variables[i].dtype);
    assigns.push_back("^" + assign);
    const std::string read = absl::StrCat("save/Read_", i);
    SetType(*AddNode(graph, read, "ReadVariableOp", {variables[i].node}), "dtype",
            variables[i].dtype);
    reads.push_back(read);
  }
  AddNode(graph, "save/restore_all", "NoOp", assigns);
  std::vector<std::string> save_inputs = {kFilename, "save/tensor_names", "save/shape_and_slices"};
  save_inputs.insert(save_inputs.end(), reads.begin(), reads.end());
  SetTypes(*AddNode(graph, "save/SaveV2", "SaveV2", save_inputs), "dtypes", dtypes);
  NodeDef* done =
      AddNode(graph, "save/control_dependency", "Identity", {kFilename, "^save/SaveV2"});
  (*done->mutable_attr())["T"].set_type(tensorflow::DT_STRING);

  tensorflow::SaverDef saver;
  saver.set_filename_tensor_name(absl::StrCat(kFilename, ":0"));
  saver.set_save_tensor_name("save/control_dependency:0");
  saver.set_restore_op_name("save/restore_all");
  saver.set_max_to_keep(5);
  saver.set_keep_checkpoint_every_n_hours(10000);
  saver.set_version(tensorflow::SaverDef::V2);
  return saver;
}

Error BadSignature(const SignatureGraph& s, const std::string& what) {
  return Error(absl::InvalidArgumentError(
      absl::StrCat("saved_model::save: signature '", s.key, "': ", what)));
}

// Adds `s`'s graph to `merged` under `prefix` and returns its SignatureDef; its captured
// variables are added to `variables` (once per shared name).
tensorflow::SignatureDef AddSignature(const SignatureGraph& s, const std::string& prefix,
                                      tensorflow::GraphDef& merged,
                                      std::vector<SavedVariable>& variables,
                                      absl::flat_hash_set<std::string>& keys) {
  const tensorflow::GraphDef graph = s.graph.to_graph_def();
  absl::flat_hash_map<std::string, const Node*> nodes;
  for (const Node* node : s.graph.nodes()) nodes[node->name()] = node;
  std::vector<const NodeDef*> args, outputs;
  for (const NodeDef& node : graph.node()) {
    NodeDef* copy = merged.add_node();
    *copy = node;
    copy->set_name(prefix + node.name());
    for (auto& input : *copy->mutable_input()) input = Renamed(prefix, input);
    if (node.op() == "Placeholder" && absl::StartsWith(node.name(), "arg")) args.push_back(&node);
    if (absl::StartsWith(node.name(), "output_")) outputs.push_back(&node);
    const Node* bound = nodes.at(node.name());
    if (kVarHandleOp.is(bound->op()) && bound->bound_value() != nullptr) {
      VariableResource* resource = VariableOf(*bound->bound_value());
      Tensor value;
      {
        std::lock_guard<std::mutex> lock(resource->mu);
        value = resource->value;  // immutable: assignments swap in new tensors
      }
      const std::string key = node.attr().at("shared_name").s();
      if (keys.insert(key).second) {
        variables.push_back({prefix + node.name(), key, resource->dtype, value});
      }
    }
  }
  std::vector<std::string> input_names = s.input_names, output_names = s.output_names;
  for (size_t i = input_names.size(); i < args.size(); ++i) {
    input_names.push_back(args.size() == 1 ? "x" : absl::StrCat("x", i));
  }
  for (size_t k = output_names.size(); k < outputs.size(); ++k) {
    output_names.push_back(absl::StrCat("output_", k));
  }
  if (input_names.size() != args.size() || output_names.size() != outputs.size()) {
    throw BadSignature(
        s, absl::StrCat("names ", input_names.size(), " inputs and ", output_names.size(),
                        " outputs, but the function has ", args.size(), " and ", outputs.size()));
  }
  tensorflow::SignatureDef signature;
  signature.set_method_name("tensorflow/serving/predict");
  const auto info = [&](const NodeDef& node) {
    const Node& bound = *nodes.at(node.name());
    tensorflow::TensorInfo out;
    out.set_name(absl::StrCat(prefix, node.name(), ":0"));
    out.set_dtype(static_cast<tensorflow::DataType>(ToProtoDataType(bound.output_dtype(0))));
    ShapeToProto(bound.output_shape(0), out.mutable_tensor_shape());
    return out;
  };
  // Placeholders "arg<i>" and Identities "output_<k>" come in order of i and k.
  for (size_t i = 0; i < args.size(); ++i) {
    (*signature.mutable_inputs())[input_names[i]] = info(*args[i]);
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    (*signature.mutable_outputs())[output_names[k]] = info(*outputs[k]);
  }
  return signature;
}

}  // namespace

void SaveGraphs(const std::string& dir, std::vector<SignatureGraph> graphs) {
  if (graphs.empty()) {
    throw Error(absl::InvalidArgumentError("saved_model::save: no signatures to export"));
  }
  tensorflow::SavedModel model;
  model.set_saved_model_schema_version(1);
  tensorflow::MetaGraphDef& meta = *model.add_meta_graphs();
  meta.mutable_meta_info_def()->add_tags("serve");
  meta.mutable_meta_info_def()->set_stripped_default_attrs(true);  // as GraphToGraphDef writes
  tensorflow::GraphDef& graph = *meta.mutable_graph_def();
  std::vector<SavedVariable> variables;
  absl::flat_hash_set<std::string> keys;
  for (const SignatureGraph& s : graphs) {
    const std::string prefix = graphs.size() == 1 ? "" : s.key + "/";
    (*meta.mutable_signature_def())[s.key] = AddSignature(s, prefix, graph, variables, keys);
  }
  *meta.mutable_saver_def() = AddSaver(graph, variables);

  // The variables first: saved_model.pb appears only once they are complete.
  const fs::path variables_dir = fs::path(dir) / "variables";
  io::BundleWriter writer((variables_dir / "variables").string());
  for (const auto& v : variables) writer.add(v.key, v.value);
  writer.finish();
  io::WriteFileAtomically((fs::path(dir) / "saved_model.pb").string(), model.SerializeAsString());
}

}  // namespace duet::saved_model
