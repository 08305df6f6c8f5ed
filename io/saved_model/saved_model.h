// SavedModel export: the directory TensorFlow, TF Serving and saved_model_cli load. Note
// [SavedModel export] in saved_model.cc says what goes in it.
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/traced_function.h"

namespace duet::saved_model {

// One serving signature: example arguments (which of the function's traced signatures to export:
// their dtypes and shapes, as for graph_def()), and the names callers use for inputs and outputs.
struct Signature {
  Signature(std::initializer_list<Tensor> inputs) : inputs(inputs) {}  // NOLINT: {images}
  Signature(std::vector<Tensor> inputs, std::vector<std::string> input_names,
            std::vector<std::string> output_names = {})
      : inputs(std::move(inputs)),
        input_names(std::move(input_names)),
        output_names(std::move(output_names)) {}

  std::vector<Tensor> inputs;
  std::vector<std::string> input_names;   // default: "x" for one input, else "x0", "x1", ...
  std::vector<std::string> output_names;  // default: "output_0", "output_1", ...
};

// A signature's graph as the function exports it, with its names resolved.
struct SignatureGraph {
  std::string key;  // "serving_default"
  Graph graph;      // Placeholders "arg<i>", Identities "output_<k>", variables bound
  std::vector<std::string> input_names, output_names;
};

// Writes `graphs` as a SavedModel in `dir` (see saved_model.cc). Throws Error on I/O failure or a
// signature whose names do not match its graph.
void SaveGraphs(const std::string& dir, std::vector<SignatureGraph> graphs);

namespace internal {

// fn.exported_graph(args[0], ..., args[n-1]) for the n the callable takes.
template <typename F>
Graph ExportedGraph(const TracedFunction<F>& fn, const std::vector<Tensor>& a) {
  using T = const Tensor&;
  if constexpr (std::is_invocable_v<const F&, T>) {
    if (a.size() == 1) return fn.exported_graph(a[0]);
  }
  if constexpr (std::is_invocable_v<const F&, T, T>) {
    if (a.size() == 2) return fn.exported_graph(a[0], a[1]);
  }
  if constexpr (std::is_invocable_v<const F&, T, T, T>) {
    if (a.size() == 3) return fn.exported_graph(a[0], a[1], a[2]);
  }
  if constexpr (std::is_invocable_v<const F&, T, T, T, T>) {
    if (a.size() == 4) return fn.exported_graph(a[0], a[1], a[2], a[3]);
  }
  throw Error(absl::InvalidArgumentError(absl::StrCat(
      "saved_model::save: a signature gives ", a.size(),
      " example inputs, but the function does not take that many Tensors (1 to 4 are supported)")));
}

}  // namespace internal

// Writes `dir`/saved_model.pb and `dir`/variables/ for the traced function `fn`, one signature
// per entry: saved_model::save("export/1", step, {{"serving_default", {images}}}). The variables
// stay variables (restored from variables/ when TensorFlow loads the model), so the export can
// be served or fine-tuned.
template <typename F>
void save(const std::string& dir, const TracedFunction<F>& fn,
          const std::vector<std::pair<std::string, Signature>>& signatures) {
  std::vector<SignatureGraph> graphs;
  for (const auto& [key, signature] : signatures) {
    graphs.push_back({key, internal::ExportedGraph(fn, signature.inputs), signature.input_names,
                      signature.output_names});
  }
  SaveGraphs(dir, std::move(graphs));
}

}  // namespace duet::saved_model
