// Graph: the in-memory dataflow graph that graph mode builds, sessions run and GraphDefs
// serialize. Nodes are op calls (op, bound attrs, data and control inputs, device, the user's
// source line) with typed, partially shaped outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "ops/attr_value.h"
#include "ops/op_def.h"
#include "ops/op_site.h"
#include "ops/shape_context.h"

namespace tensorflow {
class GraphDef;
class NodeDef;
}  // namespace tensorflow

namespace duet {

// TensorFlow's protos under the names docs/api.md uses (`GraphDef gd = g.to_graph_def();`); the
// definitions come with proto/graph.pb.h, which graph/graph_def.h includes.
using GraphDef = tensorflow::GraphDef;
using NodeDef = tensorflow::NodeDef;

class Node;
struct GraphState;
struct ClosureStore;

// One output of a node: where a data edge starts.
struct NodeOutput {
  const Node* node = nullptr;
  int index = 0;

  friend bool operator==(const NodeOutput& a, const NodeOutput& b) {
    return a.node == b.node && a.index == b.index;
  }
};

// One op call recorded in a graph. Immutable once added, except through Graph's rewriting
// methods, which the passes (graph/passes/) use.
class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Dense index in the graph's node list (0 .. num_nodes - 1); -1 once a pass removed the node.
  int id() const { return id_; }
  bool removed() const { return id_ < 0; }
  const std::string& name() const { return name_; }
  const OpDef& op() const { return *op_; }
  // Positional, as OpDef::attrs; type attrs are filled in.
  const AttrList& attrs() const { return attrs_; }
  template <typename T>
  const T& attr(const AttrKey<T>& key) const {
    return GetAttr(*op_, attrs_, key);
  }
  absl::Span<const NodeOutput> inputs() const { return inputs_; }
  absl::Span<const Node* const> control_inputs() const { return control_inputs_; }
  // The device string as written ("" = the CPU; TensorFlow's form for others, /device:GPU:0).
  const std::string& device() const { return device_; }
  // The device the node runs on, parsed from device() (Note [Placement] in ops/placement.h).
  Device placement() const { return placement_; }
  // Where the node was made: the user's op call; a default (line 0) location for imported nodes.
  const SourceLine& location() const { return location_; }
  // "file.cc:12", or "" for nodes without a source location.
  std::string source() const;
  // The source lines of the nodes a graph pass fused into this one, besides its own: an error in
  // a fused node names them all.
  const std::vector<std::string>& fused_sources() const { return fused_sources_; }

  int num_outputs() const { return static_cast<int>(output_dtypes_.size()); }
  DType output_dtype(int i) const { return output_dtypes_[i]; }
  const Shape& output_shape(int i) const { return output_shapes_[i]; }
  // A symbolic tensor for output i (a new handle each call; all of them name this output).
  Tensor output(int i) const;

  // The value a Const node holds (its value attr), or the captured eager tensor (a variable
  // handle) the node stands for; nullptr for other nodes.
  const Tensor* bound_value() const { return bound_value_.defined() ? &bound_value_ : nullptr; }
  // A Const node's value when host code may read it, else nullptr: for other nodes, and for a
  // value on another device (Note [Constants on devices]).
  const Tensor* host_constant() const;

  // "name:index" as TensorFlow spells an edge ("name" alone for output 0).
  static std::string EdgeName(const NodeOutput& output);

 private:
  friend class Graph;
  Node() = default;

  int id_ = 0;
  std::string name_;
  const OpDef* op_ = nullptr;
  AttrList attrs_;
  std::vector<NodeOutput> inputs_;
  std::vector<const Node*> control_inputs_;
  std::string device_;
  Device placement_;
  SourceLine location_;
  std::vector<std::string> fused_sources_;
  std::vector<DType> output_dtypes_;
  std::vector<Shape> output_shapes_;
  Tensor bound_value_;
  std::weak_ptr<GraphState> graph_;
};

// What Graph::AddNode needs; the graph checks it and infers the output shapes.
struct NodeSpec {
  const OpDef* op = nullptr;
  std::string name;  // unique in the graph (see Graph::UniqueName)
  AttrList attrs;    // bound: every attr set
  std::vector<NodeOutput> inputs;
  std::vector<const Node*> control_inputs;
  std::string device;
  SourceLine location = {};
  std::vector<DType> output_dtypes;
  std::vector<Shape> output_shapes;
  Tensor bound_value;  // a captured variable handle; a Const's value attr is bound by AddNode

  // A Const holding `value` (name, device and location left empty).
  static NodeSpec Const(const Tensor& value);
  // A Placeholder of `dtype` and `shape` (name, device and location left empty).
  static NodeSpec Placeholder(DType dtype, const Shape& shape);

  // Sets the attr `key` names (Note [Attribute keys] in ops/attr_key.h).
  template <typename T, typename V>
  void set(const AttrKey<T>& key, V&& value) {
    SetAttr(*op, attrs, key, std::forward<V>(value));
  }

  // The output dtypes and shapes a shape function inferred.
  void SetOutputs(absl::Span<const ShapeContext::Output> outputs) {
    for (const ShapeContext::Output& out : outputs) {
      output_dtypes.push_back(out.dtype);
      output_shapes.push_back(out.shape);
    }
  }
};

// A dataflow graph. Move-only; symbolic tensors keep the nodes they name alive, so a tensor that
// outlives its graph is still safe to inspect (and is rejected when used in another graph).
class Graph {
 public:
  Graph();
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  int num_nodes() const;
  // In insertion order, which is a topological order for graphs built through op functions.
  absl::Span<Node* const> nodes() const;
  const Node* node(int id) const { return nodes()[id]; }
  // The node of this name, or nullptr.
  const Node* FindNode(absl::string_view name) const;
  // Resolves "name" or "name:k" to a node output; NotFound / InvalidArgument otherwise.
  absl::StatusOr<NodeOutput> FindOutput(absl::string_view edge_name) const;

  // `base` if no node has that name yet, else base_1, base_2, ...
  std::string UniqueName(absl::string_view base) const;
  // Adds a node; InvalidArgument if the name is taken or an input is not of this graph.
  absl::StatusOr<const Node*> AddNode(NodeSpec spec);

  // Rewriting, for passes (Note [Rewriting graphs] in graph.cc). Not while a session runs the
  // graph. Every data input that reads `from` reads `to` instead (same dtype).
  void ReplaceUses(NodeOutput from, NodeOutput to);
  // Replaces data input `index` of `node`.
  void SetInput(const Node* node, int index, NodeOutput to);
  void SetControlInputs(const Node* node, std::vector<const Node*> control_inputs);
  // Turns `node` into the op call `spec` describes, in place: the name, id and consumers stay,
  // so the outputs consumers read must keep their dtypes. spec.name is ignored.
  absl::Status Rewrite(const Node* node, NodeSpec spec);
  // Adds to node's fused_sources() those of `sources` it lacks (and that are not its own line).
  void AddFusedSources(const Node* node, absl::Span<const std::string> sources);
  // Removes nodes nothing else in the graph reads (FailedPrecondition otherwise) and renumbers the
  // rest, keeping their order. The removed nodes stay alive, marked removed(), for the symbolic
  // tensors that name them.
  absl::Status RemoveNodes(absl::Span<const Node* const> nodes);
  // Renumbers the nodes in a topological order (data and control edges), stable with respect to
  // the current order; InvalidArgument, naming a node, if the graph has a cycle.
  absl::Status SortTopologically();
  // Counts RemoveNodes and SortTopologically calls: ids from before a change may name other nodes.
  int64_t renumberings() const;
  // A copy with the same names, ops, attrs, edges and bound values (captured variables are
  // shared, not copied); `copy_of`, when given, maps old node ids to the copy's nodes.
  Graph Copy(std::vector<const Node*>* copy_of = nullptr) const;

  // The node output a symbolic tensor of this graph names; InvalidArgument for eager tensors and
  // tensors of other graphs.
  absl::StatusOr<NodeOutput> OutputOf(const Tensor& tensor) const;
  // True when `tensor` is a symbolic tensor of this graph.
  bool Owns(const Tensor& tensor) const;

  // TensorFlow's GraphDef of this graph, and a graph read from one (graph/graph_def.h says what
  // is checked); both throw Error.
  tensorflow::GraphDef to_graph_def() const;
  static Graph from_graph_def(const tensorflow::GraphDef& graph_def);

  // Identity of the graph's state, shared with its symbolic tensors.
  const GraphState* state() const { return state_.get(); }

 private:
  friend class Session;
  // Another handle to the same nodes and closures (a session's).
  Graph(std::shared_ptr<GraphState> state, std::shared_ptr<ClosureStore> closures)
      : state_(std::move(state)), closures_(std::move(closures)) {}
  Graph Share() const { return Graph(state_, closures_); }
  absl::Status CheckInputs(const NodeSpec& spec, absl::string_view name) const;
  void Install(Node& node, NodeSpec spec);
  // The node, which must be in this graph, for rewriting.
  Node* Mutable(const Node* node);

  std::shared_ptr<GraphState> state_;
  // The C++ closures the nodes call, owned by the graph's handles and not by its state
  // (Note [Closures in graphs] in graph.cc); shared with copies and sessions of the graph.
  std::shared_ptr<ClosureStore> closures_;
};

// A tensor with only a dtype and shape (no value), for kernels that read only their inputs' shapes
// (OpDef::reads_only_input_shapes) and for inferring shapes ahead of a run.
Tensor ShapeOnly(DType dtype, const Shape& shape);

// The node output a symbolic tensor names, or nullptr for eager (or undefined) tensors.
const NodeOutput* SymbolicOutput(const Tensor& tensor);

}  // namespace duet
