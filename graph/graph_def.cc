#include "graph/graph_def.h"

#include <deque>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "graph/function.h"
#include "graph/graph_ops.h"
#include "kernels/kernel_registry.h"
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

// One entry of NodeDef.input: "node", "node:k" or "^node" in a GraphDef; in a FunctionDef body
// "arg", "node:out_arg:k" (k counts within the output argument) or "^node".
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
  std::string output_arg;  // FunctionDef bodies only
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

absl::StatusOr<InputRef> ParseFunctionInput(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() == 1 || absl::StartsWith(text, "^")) return ParseInput(text);
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("function input '", text, "' is not 'arg' or 'node:output:index'"));
  }
  DUET_ASSIGN_OR_RETURN(InputRef ref, ParseInput(absl::StrCat(parts[0], ":", parts[2])));
  ref.output_arg = std::string(parts[1]);
  return ref;
}

// The node output a data reference names: "node:k", or in a FunctionDef body "node:arg:k" (k
// counts within output argument `arg`); InvalidArgument when the producer has no such output.
absl::StatusOr<NodeOutput> OutputOf(const Node& producer, const InputRef& ref) {
  int flat = ref.output_arg.empty() ? ref.index : -1;
  int start = 0;
  for (const ArgDef& arg : producer.op().outputs) {
    const int64_t n = ArgLength(arg, producer.attrs());
    if (flat < 0 && arg.name == ref.output_arg && ref.index < n) flat = start + ref.index;
    start += static_cast<int>(n);
  }
  if (flat < 0 || flat >= producer.num_outputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", ref.node, ref.output_arg.empty() ? "" : ":", ref.output_arg, ":",
                     ref.index, "' names no output of ", ref.node, " (", producer.op().name, ", ",
                     producer.num_outputs(), " outputs)"));
  }
  return NodeOutput{&producer, flat};
}

// The output argument name and index within it of `producer`'s flat output `flat`.
std::string FunctionEdgeName(const NodeOutput& output) {
  const Node& producer = *output.node;
  int flat = 0;
  for (const ArgDef& arg : producer.op().outputs) {
    const int64_t n = ArgLength(arg, producer.attrs());
    if (output.index < flat + n) {
      return absl::StrCat(producer.name(), ":", arg.name, ":", output.index - flat);
    }
    flat += static_cast<int>(n);
  }
  return Node::EdgeName(output);
}

// The NodeDefs in an order where every input comes first (Kahn's algorithm, file order among
// ready nodes); InvalidArgument for duplicate names, dangling inputs and cycles.
using NodeDefs = google::protobuf::RepeatedPtrField<tensorflow::NodeDef>;

absl::StatusOr<std::vector<int>> TopologicalOrder(
    const NodeDefs& nodes, const std::vector<std::vector<InputRef>>& inputs) {
  const int n = nodes.size();
  absl::flat_hash_map<absl::string_view, int> index;
  for (int i = 0; i < n; ++i) {
    if (!index.emplace(nodes[i].name(), i).second) {
      return NodeError(nodes[i].name(), "the name is used by more than one node");
    }
  }
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const InputRef& in : inputs[i]) {
      auto it = index.find(in.node);
      if (it == index.end()) {
        return NodeError(nodes[i].name(),
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
    if (pending[i] > 0) return NodeError(nodes[i].name(), "the node is on a cycle");
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

// Resolves `func` attrs against a GraphDef's function library, importing each function once, on
// first use (functions may call functions; a recursive one is an error).
class FunctionLibrary {
 public:
  explicit FunctionLibrary(const tensorflow::FunctionDefLibrary* library) {
    if (library == nullptr) return;
    for (const tensorflow::FunctionDef& f : library->function()) {
      defs_.try_emplace(f.signature().name(), &f);
    }
  }
  absl::Status Check(const tensorflow::FunctionDefLibrary& library) const {
    if (library.gradient_size() > 0) {
      return absl::UnimplementedError(
          "the function library's custom gradients (GradientDef) "
          "are not supported");
    }
    if (static_cast<int>(defs_.size()) != library.function_size()) {
      return absl::InvalidArgumentError("the function library defines a name twice");
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::shared_ptr<const FunctionBody>> Resolve(const std::string& name);

 private:
  absl::StatusOr<std::shared_ptr<const Function>> Import(const tensorflow::FunctionDef& def);

  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> defs_;
  absl::flat_hash_map<std::string, std::shared_ptr<const Function>> done_;
  absl::flat_hash_map<std::string, bool> in_progress_;
  int depth_ = 0;
  static constexpr int kMaxFunctionDepth = 64;
};

// Builds one node whose inputs already exist in `graph`.
absl::Status ImportNode(const tensorflow::NodeDef& node_def, const std::vector<InputRef>& refs,
                        FunctionLibrary& library, Graph& graph) {
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
    DUET_ASSIGN_OR_RETURN(const NodeOutput input, OutputOf(*producer, ref));
    spec.inputs.push_back(input);
    inputs.push_back(producer->output(input.index));
  }
  std::vector<int> explicit_types;
  DUET_ASSIGN_OR_RETURN(AttrList attrs, ImportAttrs(*op, node_def, explicit_types));
  for (AttrValue& value : attrs) {
    if (auto* func = std::get_if<FuncAttr>(&value)) {
      DUET_ASSIGN_OR_RETURN(func->body, library.Resolve(func->name));
    }
  }
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

// Adds `nodes` to `graph` in dependency order; `parse` reads one input reference.
absl::Status ImportNodes(const NodeDefs& nodes,
                         absl::StatusOr<InputRef> (*parse)(absl::string_view),
                         FunctionLibrary& library, Graph& graph) {
  std::vector<std::vector<InputRef>> inputs(nodes.size());
  for (int i = 0; i < nodes.size(); ++i) {
    const tensorflow::NodeDef& node = nodes[i];
    if (!IsValidNodeName(node.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", i, " has an invalid name '", node.name(), "'"));
    }
    for (const std::string& text : node.input()) {
      absl::StatusOr<InputRef> ref = parse(text);
      if (!ref.ok()) return NodeError(node.name(), ref.status());
      inputs[i].push_back(*std::move(ref));
    }
  }
  DUET_ASSIGN_OR_RETURN(std::vector<int> order, TopologicalOrder(nodes, inputs));
  for (int i : order) {
    const absl::Status status = ImportNode(nodes[i], inputs[i], library, graph);
    if (!status.ok()) {
      return NodeError(nodes[i].name(), absl::InvalidArgumentError(status.message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const FunctionBody>> FunctionLibrary::Resolve(
    const std::string& name) {
  if (auto it = done_.find(name); it != done_.end()) return it->second;
  auto def = defs_.find(name);
  if (def == defs_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", name, "' is not in the graph's function library",
        absl::StartsWith(name, "host_function") ? " (a host_function only runs in the process "
                                                  "that made it)"
                                                : ""));
  }
  if (in_progress_[name]) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "' calls itself"));
  }
  // Import recurses through nested calls: bound the depth so no GraphDef exhausts the stack.
  if (depth_ >= kMaxFunctionDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("functions call functions more than ", kMaxFunctionDepth, " deep"));
  }
  in_progress_[name] = true;
  ++depth_;
  absl::StatusOr<std::shared_ptr<const Function>> function = Import(*def->second);
  --depth_;
  in_progress_[name] = false;
  if (!function.ok()) {
    return absl::Status(function.status().code(),
                        absl::StrCat("function '", name, "': ", function.status().message()));
  }
  done_[name] = *function;
  return *function;
}

// A FunctionDef's body as a graph: a Placeholder per argument (named as the argument, so body
// inputs that name it resolve), then the body's nodes.
absl::StatusOr<std::shared_ptr<const Function>> FunctionLibrary::Import(
    const tensorflow::FunctionDef& def) {
  NodeDefs nodes;
  for (const tensorflow::OpDef::ArgDef& arg : def.signature().input_arg()) {
    if (!arg.type_attr().empty() || !arg.number_attr().empty() || !arg.type_list_attr().empty()) {
      return absl::UnimplementedError(absl::StrCat("argument '", arg.name(),
                                                   "' has an attr-dependent type (polymorphic "
                                                   "functions are not supported)"));
    }
    tensorflow::NodeDef* placeholder = nodes.Add();
    placeholder->set_name(arg.name());
    placeholder->set_op("Placeholder");
    (*placeholder->mutable_attr())["dtype"].set_type(arg.type());
  }
  const int num_args = nodes.size();
  for (const tensorflow::NodeDef& node : def.node_def()) *nodes.Add() = node;
  Graph body;
  DUET_RETURN_IF_ERROR(ImportNodes(nodes, ParseFunctionInput, *this, body));
  std::vector<const Node*> args;
  for (int i = 0; i < num_args; ++i) args.push_back(body.FindNode(nodes[i].name()));
  std::vector<NodeOutput> results;
  for (const tensorflow::OpDef::ArgDef& arg : def.signature().output_arg()) {
    auto ret = def.ret().find(arg.name());
    if (ret == def.ret().end()) {
      return absl::InvalidArgumentError(absl::StrCat("result '", arg.name(), "' has no ret entry"));
    }
    DUET_ASSIGN_OR_RETURN(InputRef ref, ParseFunctionInput(ret->second));
    const Node* producer = body.FindNode(ref.node);
    if (producer == nullptr || ref.control) {
      return absl::InvalidArgumentError(
          absl::StrCat("result '", arg.name(), "' names no node output: '", ret->second, "'"));
    }
    absl::StatusOr<NodeOutput> result = OutputOf(*producer, ref);
    if (!result.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("result '", arg.name(), "': ", result.status().message()));
    }
    results.push_back(*result);
  }
  ReserveFunctionName(def.signature().name());
  return Function::Create(def.signature().name(), std::move(body), std::move(args),
                          std::move(results));
}

// `value`, its tensor copied to the host when it lives elsewhere (a Const captured from a GPU
// tensor): TensorProtos are written from host memory.
AttrValue OnHost(const AttrValue& value) {
  const auto* tensor = std::get_if<Tensor>(&value);
  if (tensor == nullptr || !tensor->has_value() || tensor->device().is_host()) return value;
  absl::StatusOr<Tensor> copy = CopiedTo(*tensor, Device::cpu());
  return copy.ok() ? AttrValue(*std::move(copy)) : value;  // else the proto's error names it
}

// The NodeDef of `node`; `edge` spells its data inputs.
absl::Status ExportNode(const Node& node, std::string (*edge)(const NodeOutput&),
                        tensorflow::NodeDef* out) {
  out->set_name(node.name());
  out->set_op(node.op().name);
  for (const NodeOutput& in : node.inputs()) out->add_input(edge(in));
  for (const Node* in : node.control_inputs()) out->add_input(absl::StrCat("^", in->name()));
  out->set_device(node.device());
  for (size_t i = 0; i < node.op().attrs.size(); ++i) {
    const AttrDef& attr = node.op().attrs[i];
    const AttrValue& value = node.attrs()[i];
    if (attr.default_value && SameValue(*attr.default_value, value)) continue;
    absl::StatusOr<tensorflow::AttrValue> proto = AttrValueToProto(OnHost(value));
    if (!proto.ok()) return NodeError(node.name(), proto.status());
    (*out->mutable_attr())[attr.name] = *std::move(proto);
  }
  return absl::OkStatus();
}

// Adds the functions `graph`'s nodes call (and those they call) to `library`, each once.
absl::Status ExportFunctions(const Graph& graph, tensorflow::FunctionDefLibrary& library,
                             absl::flat_hash_map<std::string, const Function*>& exported);

absl::Status ExportFunction(const Function& function, tensorflow::FunctionDefLibrary& library,
                            absl::flat_hash_map<std::string, const Function*>& exported) {
  auto [it, inserted] = exported.try_emplace(function.name(), &function);
  if (!inserted) {
    return it->second == &function
               ? absl::OkStatus()
               : absl::InvalidArgumentError(
                     absl::StrCat("two different functions are named '", function.name(), "'"));
  }
  DUET_RETURN_IF_ERROR(ExportFunctions(function.body(), library, exported));
  tensorflow::FunctionDef* def = library.add_function();
  tensorflow::OpDef* signature = def->mutable_signature();
  signature->set_name(function.name());
  const Node* const* first_arg = function.args().data();
  const Node* const* last_arg = first_arg + function.args().size();
  for (const Node* arg : function.args()) {
    auto* in = signature->add_input_arg();
    in->set_name(arg->name());
    in->set_type(static_cast<tensorflow::DataType>(ToProtoDataType(arg->output_dtype(0))));
  }
  auto edge = [](const NodeOutput& out) {
    return kPlaceholderOp.is(out.node->op()) ? out.node->name() : FunctionEdgeName(out);
  };
  for (size_t k = 0; k < function.results().size(); ++k) {
    const NodeOutput& result = function.results()[k];
    auto* out = signature->add_output_arg();
    out->set_name(absl::StrCat("output_", k));
    out->set_type(static_cast<tensorflow::DataType>(
        ToProtoDataType(result.node->output_dtype(result.index))));
    (*def->mutable_ret())[out->name()] = edge(result);
  }
  for (const Node* node : function.body().nodes()) {
    if (std::find(first_arg, last_arg, node) != last_arg) continue;
    if (node->op().stateful) signature->set_is_stateful(true);
    DUET_RETURN_IF_ERROR(ExportNode(*node, edge, def->add_node_def()));
  }
  return absl::OkStatus();
}

absl::Status ExportFunctions(const Graph& graph, tensorflow::FunctionDefLibrary& library,
                             absl::flat_hash_map<std::string, const Function*>& exported) {
  for (const Node* node : graph.nodes()) {
    for (const AttrValue& value : node->attrs()) {
      const auto* func = std::get_if<FuncAttr>(&value);
      if (func == nullptr) continue;
      // Host functions have no FunctionDef: importing such a graph names what is missing.
      const auto* function = dynamic_cast<const Function*>(func->body.get());
      if (function != nullptr) DUET_RETURN_IF_ERROR(ExportFunction(*function, library, exported));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<tensorflow::GraphDef> GraphToGraphDef(const Graph& graph) {
  tensorflow::GraphDef def;
  def.mutable_versions()->set_producer(kGraphDefProducer);
  for (const Node* node : graph.nodes()) {
    DUET_RETURN_IF_ERROR(ExportNode(*node, Node::EdgeName, def.add_node()));
  }
  absl::flat_hash_map<std::string, const Function*> exported;
  DUET_RETURN_IF_ERROR(ExportFunctions(graph, *def.mutable_library(), exported));
  if (def.library().function_size() == 0) def.clear_library();
  return def;
}

std::vector<MissingOp> MissingOps(const tensorflow::GraphDef& graph_def) {
  std::map<std::string, std::vector<std::string>> missing;
  const OpRegistry& registry = OpRegistry::Global();
  for (const tensorflow::NodeDef& node : graph_def.node()) {
    if (registry.Find(node.op()) == nullptr) missing[node.op()].push_back(node.name());
  }
  for (const tensorflow::FunctionDef& function : graph_def.library().function()) {
    for (const tensorflow::NodeDef& node : function.node_def()) {
      if (registry.Find(node.op()) != nullptr) continue;
      missing[node.op()].push_back(
          absl::StrCat(node.name(), " (function ", function.signature().name(), ")"));
    }
  }
  std::vector<MissingOp> ops;
  for (auto& [op, nodes] : missing) ops.push_back({op, std::move(nodes)});
  return ops;
}

std::string MissingOpsMessage(const std::vector<MissingOp>& missing) {
  constexpr size_t kMaxNodes = 5;
  std::vector<std::string> parts;
  for (const MissingOp& op : missing) {
    const size_t n = op.nodes.size();
    std::vector<std::string> shown(op.nodes.begin(), op.nodes.begin() + std::min(n, kMaxNodes));
    parts.push_back(absl::StrCat(op.op, " (node", n == 1 ? " " : "s ", absl::StrJoin(shown, ", "),
                                 n > kMaxNodes ? absl::StrCat(", ... ", n, " in all") : "", ")"));
  }
  return absl::StrCat("the graph uses ", missing.size(), missing.size() == 1 ? " op" : " ops",
                      " duet does not have: ", absl::StrJoin(parts, ", "));
}

absl::StatusOr<Graph> GraphFromGraphDef(const tensorflow::GraphDef& def) {
  // Every missing op in one error, rather than the first one import would meet.
  if (std::vector<MissingOp> missing = MissingOps(def); !missing.empty()) {
    return absl::InvalidArgumentError(MissingOpsMessage(missing));
  }
  FunctionLibrary library(def.has_library() ? &def.library() : nullptr);
  if (def.has_library()) DUET_RETURN_IF_ERROR(library.Check(def.library()));
  Graph graph;
  DUET_RETURN_IF_ERROR(ImportNodes(def.node(), ParseInput, library, graph));
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

absl::Status TryWriteGraph(const Graph& graph, const std::string& path) {
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

absl::StatusOr<tensorflow::GraphDef> TryReadGraphDef(const std::string& path) {
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
  return def;
}

absl::StatusOr<Graph> TryReadGraph(const std::string& path) {
  DUET_ASSIGN_OR_RETURN(const tensorflow::GraphDef def, TryReadGraphDef(path));
  absl::StatusOr<Graph> graph = GraphFromGraphDef(def);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(), absl::StrCat(path, ": ", graph.status().message()));
  }
  return graph;
}

void write_graph(const Graph& graph, const std::string& path) {
  const absl::Status status = TryWriteGraph(graph, path);
  if (!status.ok()) throw Error(status);
}

Graph read_graph(const std::string& path) {
  absl::StatusOr<Graph> graph = TryReadGraph(path);
  if (!graph.ok()) throw Error(graph.status());
  return *std::move(graph);
}

}  // namespace duet
