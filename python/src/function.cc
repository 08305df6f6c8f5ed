// duet.function's C++ half: the C++ tracer (graph/traced_function.h) over Python arguments. The
// signature cache, its LRU cap, relaxed shapes and retrace reasons are the C++ tracer's;
// duet/_function.py flattens Python arguments into the tracer's argument kinds and names them in
// the reasons.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duet.h"
#include "python/src/convert.h"

namespace nb = nanobind;

namespace duet::python {
namespace {

using function_internal::ArgValue;
using function_internal::Tracer;

// A flattened Python argument as the tracer's kind: Tensor (NumPy arrays convert), a list of
// tensors, Variable, bool, int, float or str.
ArgValue ToArgValue(nb::handle leaf) {
  if (nb::isinstance<Variable>(leaf)) return nb::cast<Variable>(leaf);
  if (PyBool_Check(leaf.ptr())) return leaf.ptr() == Py_True;
  if (PyLong_Check(leaf.ptr())) return nb::cast<int64_t>(leaf);
  if (PyFloat_Check(leaf.ptr())) return nb::cast<double>(leaf);
  if (PyUnicode_Check(leaf.ptr())) return nb::cast<std::string>(leaf);
  if (PyList_Check(leaf.ptr())) {
    std::vector<Tensor> tensors;
    for (nb::handle t : leaf) tensors.push_back(ToTensor(t, "argument"));
    return tensors;
  }
  return ToTensor(leaf, "argument");
}

nb::object FromArgValue(const ArgValue& value) {
  return std::visit(
      [](const auto& v) -> nb::object {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::vector<Tensor>>) {
          nb::list out;
          for (const Tensor& t : v) out.append(nb::cast(t));
          return out;
        } else {
          return nb::cast(v);
        }
      },
      value);
}

std::vector<ArgValue> ArgValues(const std::vector<nb::handle>& leaves) {
  std::vector<ArgValue> values;
  values.reserve(leaves.size());
  for (nb::handle leaf : leaves) values.push_back(ToArgValue(leaf));
  return values;
}

// The Python trace callable as the tracer's TraceFn: called (with the GIL) on the symbolic
// arguments, it returns the results flattened to tensors.
std::vector<Tensor> RunTrace(nb::handle trace, const std::vector<ArgValue>& symbolic) {
  nb::gil_scoped_acquire gil;
  nb::list args;
  for (const ArgValue& v : symbolic) args.append(FromArgValue(v));
  nb::object results = trace(args);
  std::vector<Tensor> out;
  for (nb::handle r : results) out.push_back(ToTensor(r, "result"));
  return out;
}

}  // namespace

void init_function(nb::module_& m) {
  nb::class_<Tracer>(m, "_Tracer")
      .def(
          "__init__",
          [](Tracer* self, const std::string& name, bool relax_shapes, int warn_after_traces,
             int cache_size, std::optional<std::vector<std::pair<nb::handle, nb::handle>>> specs) {
            FunctionOptions options;
            options.name = name;
            options.relax_shapes = relax_shapes;
            options.warn_after_traces = warn_after_traces;
            options.cache_size = cache_size;
            if (specs) {
              std::vector<TensorSpec> declared;
              for (auto& [dtype, shape] : *specs) {
                TensorSpec spec;
                spec.dtype = DTypeArg(dtype).value_or(kFloat32);
                if (shape.is_none()) {
                  spec.shape = Shape::UnknownRank();
                } else {
                  std::vector<int64_t> dims;
                  for (nb::handle d : shape)
                    dims.push_back(d.is_none() ? -1 : nb::cast<int64_t>(d));
                  spec.shape = Shape(dims);
                }
                declared.push_back(spec);
              }
              options.input_signature = std::move(declared);
            }
            new (self) Tracer(std::move(options));
          },
          nb::arg("name"), nb::arg("relax_shapes"), nb::arg("warn_after_traces"),
          nb::arg("cache_size"), nb::arg("input_signature").none())
      // call(leaves, trace): runs the traced function of the leaves' signature (tracing it with
      // trace(symbolic leaves) first if need be); a cache hit runs no Python.
      .def("call",
           [](Tracer& tracer, std::vector<nb::handle> leaves, nb::callable trace) {
             const std::vector<ArgValue> values = ArgValues(leaves);
             auto fn = [&](const std::vector<ArgValue>& symbolic) {
               return RunTrace(trace, symbolic);
             };
             if (!executing_eagerly()) return tracer.CallInGraph(values, fn);
             nb::gil_scoped_release release;
             return tracer.Call(values, fn);
           })
      .def("graph_def",
           [](Tracer& tracer, std::vector<nb::handle> leaves, nb::callable trace, bool freeze) {
             const std::vector<ArgValue> values = ArgValues(leaves);
             auto fn = [&](const std::vector<ArgValue>& symbolic) {
               return RunTrace(trace, symbolic);
             };
             std::string bytes;
             {
               nb::gil_scoped_release release;
               bytes = tracer.GraphDefOf(values, fn, freeze).SerializeAsString();
             }
             return nb::bytes(bytes.data(), bytes.size());
           })
      .def("trace_count", &Tracer::trace_count)
      .def("retrace_reasons", &Tracer::retrace_reasons);

  // A SavedModel of traced signatures: [(key, tracer, leaves, trace, input names, output names)],
  // each exported as its tracer's graph for those leaves (traced now if need be).
  m.def("_save_saved_model",
        [](const std::string& dir,
           std::vector<std::tuple<std::string, Tracer*, std::vector<nb::handle>, nb::callable,
                                  std::vector<std::string>, std::vector<std::string>>>
               signatures) {
          std::vector<saved_model::SignatureGraph> graphs;
          for (auto& [key, tracer, leaves, trace, inputs, outputs] : signatures) {
            const std::vector<ArgValue> values = ArgValues(leaves);
            auto fn = [&](const std::vector<ArgValue>& symbolic) {
              return RunTrace(trace, symbolic);
            };
            Graph graph;
            {
              nb::gil_scoped_release release;
              graph = tracer->ExportedGraph(values, fn, /*freeze=*/false);
            }
            graphs.push_back({key, std::move(graph), inputs, outputs});
          }
          nb::gil_scoped_release release;
          saved_model::SaveGraphs(dir, std::move(graphs));
        });

  m.def("run_functions_eagerly", &run_functions_eagerly, nb::arg("eagerly"));
  m.def("functions_run_eagerly", &functions_run_eagerly);
  m.def("executing_eagerly", [] { return executing_eagerly(); });
}

}  // namespace duet::python
