#include "graph/graph_def.h"

#include <deque>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "ops/op_call.h"
#include "ops/op_def_proto.h"
#include "ops/op_registry.h"
#include "ops/shape_context.h"

namespace duet {
namespace {

// VersionDef.producer written on export: TensorFlow treats producers <= 21 as legacy graphs
// (scalar Placeholder shapes read as unknown); any later version reads the same.
constexpr int kGraphDefProducer = 1087;

bool SameValue(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          return false;  // tensors have no defaults to compare with
        } else {
          return x == std::get<T>(b);
        }
      },
      a);
}

absl::Status NodeError(absl::string_view node, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("node '", node, "': ", status.message()));
}

absl::Status NodeError(absl::string_view node, absl::string_view message) {
  return NodeError(node, absl::InvalidArgumentError(message));
}

// TensorFlow's node names: [A-Za-z0-9.][A-Za-z0-9_.\-/>]*.
bool IsValidNodeName(absl::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = absl::ascii_isalnum(c) || c == '.' ||
                    (i > 0 && (c == '_' || c == '-' || c == '/' || c == '>'));
    if (!ok) return false;
  }
  return true;
}

// One entry of NodeDef.input.
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};

absl::StatusOr<InputRef> ParseInput(absl::string_view text) {
  InputRef ref;
  if (absl::ConsumePrefix(&text, "^")) ref.control = true;
  const size_t colon = text.rfind(':');
  if (colon != absl::string_view::npos && !ref.control) {
    if (!absl::SimpleAtoi(text.substr(colon + 1), &ref.index) || ref.index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("input '", text, "' has a bad output index"));
    }
    text = text.substr(0, colon);
  }
  if (!IsValidNodeName(text)) {
    return absl::InvalidArgumentError(absl::StrCat("input '", text, "' is not a node name"));
  }
  ref.node = std::string(text);
  return ref;
}

// The NodeDefs in an order where every input comes first (Kahn's algorithm, file order among
// ready nodes); InvalidArgument for duplicate names, dangling inputs and cycles.
absl::StatusOr<std::vector<int>> TopologicalOrder(
    const tensorflow::GraphDef& def, const std::vector<std::vector<InputRef>>& inputs) {
  const int n = def.node_size();
  absl::flat_hash_map<absl::string_view, int> index;
  for (int i = 0; i < n; ++i) {
    if (!index.emplace(def.node(i).name(), i).second) {
      return NodeError(def.node(i).name(), "the name is used by more than one node");
    }
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const InputRef& in : inputs[i]) {
      auto it = index.find(in.node);
      if (it == index.end()) {
        return NodeError(def.node(i).name(),
                         absl::StrCat("input '", in.node, "' names no node of the graph"));
      }
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int c : consumers[i]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  for (int i = 0; i < n && static_cast<int>(order.size()) != n; ++i) {
    if (pending[i] > 0) return NodeError(def.node(i).name(), "the node is on a cycle");
  }
  return order;
}

// The attrs of `node_def` as `op` declares them: defaults filled in, `_`-prefixed (internal)
// attrs skipped, anything else unknown or of the wrong kind rejected. `explicit_types` collects
// the type attrs the NodeDef sets, which its inputs must then agree with.
absl::StatusOr<AttrList> ImportAttrs(const OpDef& op, const tensorflow::NodeDef& node_def,
                                     std::vector<int>& explicit_types) {
  AttrList attrs = op.default_attrs;
  for (const auto& [name, proto] : node_def.attr()) {
    const int i = op.attr_index(name);
    if (i < 0) {
      if (absl::StartsWith(name, "_")) continue;
      return absl::InvalidArgumentError(absl::StrCat(op.name, " has no attr '", name, "'"));
    }
    absl::StatusOr<AttrValue> value = AttrValueFromProto(proto, op.attrs[i].type);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(op.name, " attr '", name, "': ", value.status().message()));
    }
    attrs[i] = *std::move(value);
    if (op.attrs[i].type == AttrType::kType) explicit_types.push_back(i);
  }
  return attrs;
}

// Builds one node whose inputs already exist in `graph`.
absl::Status ImportNode(const tensorflow::NodeDef& node_def, const std::vector<InputRef>& refs,
                        Graph& graph) {
  const OpDef* op = OpRegistry::Global().Find(node_def.op());
  if (op == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown op '", node_def.op(), "'"));
  }
  NodeSpec spec;
  spec.op = op;
  spec.name = node_def.name();
  spec.device = node_def.device();
  TensorList inputs;
  for (const InputRef& ref : refs) {
    const Node* producer = graph.FindNode(ref.node);
    if (ref.control) {
      spec.control_inputs.push_back(producer);
      continue;
    }
    if (!spec.control_inputs.empty()) {
      return absl::InvalidArgumentError("a data input follows a control input");
    }
    if (ref.index >= producer->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", ref.node, ":", ref.index,
                                                     "': ", ref.node, " has ",
                                                     producer->num_outputs(), " outputs"));
    }
    spec.inputs.push_back(NodeOutput{producer, ref.index});
    inputs.push_back(producer->output(ref.index));
  }
  std::vector<int> explicit_types;
  DUET_ASSIGN_OR_RETURN(AttrList attrs, ImportAttrs(*op, node_def, explicit_types));
  // No name or line in the site: the caller's error already names the node.
  OpCall call(op, std::move(inputs), OpSite("", std::source_location{}));
  call.attrs = attrs;
  absl::Status bound = BindAttrs(call);
  if (!bound.ok()) return AnnotateOpError(call, bound);
  for (int i : explicit_types) {
    if (!SameValue(attrs[i], call.attrs[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("attr '", op->attrs[i].name, "' is ", AttrValueString(attrs[i]),
                       " but the inputs are ", AttrValueString(call.attrs[i])));
    }
  }
  ShapeContext shapes(call);
  const absl::Status inferred = InferShapes(shapes);
  if (!inferred.ok()) return AnnotateOpError(call, inferred);
  spec.SetOutputs(shapes.outputs());
  spec.attrs = std::move(call.attrs);
  return graph.AddNode(std::move(spec)).status();
}

}  // namespace

absl::StatusOr<tensorflow::GraphDef> GraphToGraphDef(const Graph& graph) {
  tensorflow::GraphDef def;
  def.mutable_versions()->set_producer(kGraphDefProducer);
  for (const Node* node : graph.nodes()) {
    tensorflow::NodeDef* out = def.add_node();
    out->set_name(node->name());
    out->set_op(node->op().name);
    for (const NodeOutput& in : node->inputs()) out->add_input(Node::EdgeName(in));
    for (const Node* in : node->control_inputs()) out->add_input(absl::StrCat("^", in->name()));
    out->set_device(node->device());
    for (size_t i = 0; i < node->op().attrs.size(); ++i) {
      const AttrDef& attr = node->op().attrs[i];
      const AttrValue& value = node->attrs()[i];
      if (attr.default_value && SameValue(*attr.default_value, value)) continue;
      absl::StatusOr<tensorflow::AttrValue> proto = AttrValueToProto(value);
      if (!proto.ok()) return NodeError(node->name(), proto.status());
      (*out->mutable_attr())[attr.name] = *std::move(proto);
    }
  }
  return def;
}

absl::StatusOr<Graph> GraphFromGraphDef(const tensorflow::GraphDef& def) {
  if (def.has_library() &&
      (def.library().function_size() > 0 || def.library().gradient_size() > 0)) {
    return absl::UnimplementedError("GraphDefs with a function library are not supported yet");
  }
  std::vector<std::vector<InputRef>> inputs(def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    const tensorflow::NodeDef& node = def.node(i);
    if (!IsValidNodeName(node.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", i, " has an invalid name '", node.name(), "'"));
    }
    for (const std::string& text : node.input()) {
      absl::StatusOr<InputRef> ref = ParseInput(text);
      if (!ref.ok()) return NodeError(node.name(), ref.status());
      inputs[i].push_back(*std::move(ref));
    }
  }
  DUET_ASSIGN_OR_RETURN(std::vector<int> order, TopologicalOrder(def, inputs));
  Graph graph;
  for (int i : order) {
    const absl::Status status = ImportNode(def.node(i), inputs[i], graph);
    if (!status.ok())
      return NodeError(def.node(i).name(), absl::InvalidArgumentError(status.message()));
  }
  return graph;
}

tensorflow::GraphDef Graph::to_graph_def() const {
  absl::StatusOr<tensorflow::GraphDef> def = GraphToGraphDef(*this);
  if (!def.ok()) throw Error(def.status());
  return *std::move(def);
}

Graph Graph::from_graph_def(const tensorflow::GraphDef& graph_def) {
  absl::StatusOr<Graph> graph = GraphFromGraphDef(graph_def);
  if (!graph.ok()) throw Error(graph.status());
  return *std::move(graph);
}

absl::Status WriteGraph(const Graph& graph, const std::string& path) {
  DUET_ASSIGN_OR_RETURN(tensorflow::GraphDef def, GraphToGraphDef(graph));
  std::string bytes;
  const bool ok = absl::EndsWith(path, ".pbtxt")
                      ? google::protobuf::TextFormat::PrintToString(def, &bytes)
                      : def.SerializeToString(&bytes);
  if (!ok) return absl::InternalError(absl::StrCat("cannot serialize the graph for ", path));
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

absl::StatusOr<Graph> ReadGraph(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::stringstream bytes;
  bytes << file.rdbuf();
  tensorflow::GraphDef def;
  const bool ok = absl::EndsWith(path, ".pbtxt")
                      ? google::protobuf::TextFormat::ParseFromString(bytes.str(), &def)
                      : def.ParseFromString(bytes.str());
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "' is not a GraphDef"));
  }
  absl::StatusOr<Graph> graph = GraphFromGraphDef(def);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(), absl::StrCat(path, ": ", graph.status().message()));
  }
  return graph;
}

void write_graph(const Graph& graph, const std::string& path) {
  const absl::Status status = WriteGraph(graph, path);
  if (!status.ok()) throw Error(status);
}

Graph read_graph(const std::string& path) {
  absl::StatusOr<Graph> graph = ReadGraph(path);
  if (!graph.ok()) throw Error(graph.status());
  return *std::move(graph);
}

}  // namespace duet
