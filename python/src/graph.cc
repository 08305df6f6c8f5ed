// Graphs and sessions from Python: duet.Graph (as_default, operations, tensors by name),
// placeholder, gradients, Session.run, and GraphDef files. duet/_graph.py holds the Python half
// (context managers, nested fetch structures, feed conversion).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/convert.h"
#include "python/src/errors.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

// A Python call site naming the node (the name must outlive the op call).
OpSite SiteNamed(const std::string& name) {
  OpSite site = PythonCallSite();
  site.name = name;
  return site;
}

// Makes a graph the target of op calls between enter() and exit() (Graph.as_default).
struct GraphDefault {
  explicit GraphDefault(Graph& graph) : graph(&graph) {}
  Graph* graph;
  std::optional<GraphScope> scope;
};

// Prefixes the names of nodes made between enter() and exit() (duet.name_scope).
struct NameScopeGuard {
  std::string name;
  std::optional<NameScope> scope;
};

// One node of a graph, as TensorFlow's Operation; holds its graph's Python object, which owns the
// node.
struct Operation {
  nb::object graph;
  const Node* node;
};

GraphTensor GraphTensorOf(nb::handle value) {
  if (nb::isinstance<Tensor>(value)) return GraphTensor(nb::cast<Tensor>(value));
  if (nb::isinstance<Operation>(value))
    return GraphTensor(nb::cast<Operation&>(value).node->name());
  if (PyUnicode_Check(value.ptr())) return GraphTensor(nb::cast<std::string>(value));
  throw Error(absl::InvalidArgumentError(absl::StrCat(
      "Session.run: cannot fetch or feed a ", nb::cast<std::string>(nb::type_name(value.type())),
      " (a tensor, an operation or a name such as \"y:0\")")));
}

}  // namespace

void init_graph(nb::module_& m) {
  nb::class_<Graph>(m, "Graph")
      .def(nb::init<>())
      .def_prop_ro("num_nodes", &Graph::num_nodes)
      .def(
          "get_tensor_by_name",
          [](const Graph& g, const std::string& name) {
            const NodeOutput out = ValueOrThrow(g.FindOutput(name));
            return out.node->output(out.index);
          },
          nb::arg("name"))
      .def(
          "get_operation_by_name",
          [](const Graph& g, const std::string& name) {
            const Node* node = g.FindNode(name);
            if (node == nullptr) {
              throw Error(absl::NotFoundError(absl::StrCat("the graph has no node '", name, "'")));
            }
            return Operation{nb::find(&g), node};
          },
          nb::arg("name"))
      .def("get_operations",
           [](const Graph& g) {
             std::vector<Operation> ops;
             for (const Node* n : g.nodes()) ops.push_back(Operation{nb::find(&g), n});
             return ops;
           })
      // Serialized tensorflow.GraphDef bytes (tf.compat.v1.GraphDef.FromString parses them).
      .def("as_graph_def", [](const Graph& g) {
        const std::string bytes = g.to_graph_def().SerializeAsString();
        return nb::bytes(bytes.data(), bytes.size());
      });

  nb::class_<Operation>(m, "Operation")
      .def_prop_ro("name", [](const Operation& o) { return o.node->name(); })
      .def_prop_ro("type", [](const Operation& o) { return o.node->op().name; })
      .def_prop_ro("device", [](const Operation& o) { return o.node->device(); })
      .def_prop_ro("outputs",
                   [](const Operation& o) {
                     std::vector<Tensor> out;
                     for (int i = 0; i < o.node->num_outputs(); ++i)
                       out.push_back(o.node->output(i));
                     return out;
                   })
      .def_prop_ro("inputs",
                   [](const Operation& o) {
                     std::vector<Tensor> in;
                     for (const NodeOutput& i : o.node->inputs())
                       in.push_back(i.node->output(i.index));
                     return in;
                   })
      .def("__repr__", [](const Operation& o) {
        return absl::StrCat("<duet.Operation '", o.node->name(), "' type=", o.node->op().name, ">");
      });

  nb::class_<GraphDefault>(m, "_GraphDefault")
      .def(nb::init<Graph&>(), nb::keep_alive<1, 2>())
      .def("enter", [](GraphDefault& d) { d.scope.emplace(*d.graph); })
      .def("exit", [](GraphDefault& d) { d.scope.reset(); });

  nb::class_<NameScopeGuard>(m, "_NameScope")
      .def(nb::init<std::string>())
      .def("enter", [](NameScopeGuard& s) { s.scope.emplace(s.name); })
      .def("exit", [](NameScopeGuard& s) { s.scope.reset(); });

  // The graph a symbolic tensor's node belongs to is not reachable from the tensor: name only.
  m.def("_tensor_name", [](const Tensor& t) -> nb::object {
    const NodeOutput* out = SymbolicOutput(t);
    if (out == nullptr) return nb::none();
    return nb::str(absl::StrCat(out->node->name(), ":", out->index).c_str());
  });

  m.def(
      "placeholder",
      [](nb::handle dtype, nb::handle shape, std::optional<std::string> name) {
        const DType d = DTypeArg(dtype).value_or(kFloat32);
        Shape s = Shape::UnknownRank();
        if (!shape.is_none()) {
          std::vector<int64_t> dims;
          for (nb::handle dim : shape) dims.push_back(dim.is_none() ? -1 : nb::cast<int64_t>(dim));
          s = Shape(dims);
        }
        const std::string node_name = name.value_or("");
        return placeholder(d, s, SiteNamed(node_name));
      },
      nb::arg("dtype").none(), nb::arg("shape").none() = nb::none(), nb::arg("name") = nb::none());

  m.def("_gradients", [](std::vector<nb::handle> ys, std::vector<nb::handle> xs,
                         std::vector<nb::handle> grad_ys) {
    std::vector<Tensor> y, g;
    std::vector<GradientSource> x;
    for (nb::handle h : ys) y.push_back(ToTensor(h, "ys"));
    for (nb::handle h : grad_ys) g.push_back(ToTensor(h, "grad_ys"));
    for (nb::handle h : xs) {
      if (nb::isinstance<Variable>(h)) {
        x.emplace_back(nb::cast<const Variable&>(h));
      } else {
        x.emplace_back(ToTensor(h, "xs"));
      }
    }
    nb::list out;
    for (Tensor& t : gradients(y, x, g)) {
      out.append(t.defined() ? nb::cast(std::move(t)) : nb::none());
    }
    return out;
  });

  nb::class_<Session>(m, "_Session")
      .def(nb::init<const Graph&>(), nb::keep_alive<1, 2>())
      // run(feeds as (tensor or name, value) pairs, fetches, targets): the fetched values.
      .def("run",
           [](Session& s, std::vector<std::pair<nb::handle, nb::handle>> feeds,
              std::vector<nb::handle> fetches, std::vector<nb::handle> targets) {
             FeedList feed_list;
             for (auto& [key, value] : feeds) {
               feed_list.emplace_back(GraphTensorOf(key), ToTensor(value, "feed_dict value"));
             }
             std::vector<GraphTensor> fetch_list, target_list;
             for (nb::handle f : fetches) fetch_list.push_back(GraphTensorOf(f));
             for (nb::handle t : targets) target_list.push_back(GraphTensorOf(t));
             nb::gil_scoped_release release;  // the plan runs without Python
             return s.run(feed_list, fetch_list, target_list);
           })
      .def_prop_ro("num_plans", &Session::num_plans);

  m.def(
      "write_graph",
      [](const Graph& g, const std::string& path) {
        nb::gil_scoped_release release;
        write_graph(g, path);
      },
      nb::arg("graph"), nb::arg("path"));
  m.def(
      "read_graph",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return read_graph(path);
      },
      nb::arg("path"));
  m.def("freeze_variables", &freeze_variables, nb::arg("graph"));
  nb::class_<PassReport>(m, "PassReport")
      .def_ro("nodes_before", &PassReport::nodes_before)
      .def_ro("nodes_after", &PassReport::nodes_after)
      .def_ro("iterations", &PassReport::iterations)
      .def("counter", &PassReport::counter, nb::arg("name"))
      .def("__str__", &PassReport::str);
  m.def(
      "optimize", [](Graph& g) { return optimize(g); }, nb::arg("graph"),
      "Runs the pass pipeline on the graph in place; returns what each pass did.");
}

}  // namespace duet::python
