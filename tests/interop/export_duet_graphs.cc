// Writes duet-built graphs for TensorFlow to import (tf_import_test.sh): for each, NAME.pb (a
// frozen GraphDef), NAME_input.npy, NAME_expected.npy (duet's output) and NAME.names (input and
// output tensor names), into the directory given as the only argument.
#include <fstream>
#include <iostream>

#include "duet.h"

namespace duet {
namespace {

void Export(const std::string& dir, const std::string& name, const Graph& graph,
            const Tensor& input, const std::string& in = "x", const std::string& out = "y") {
  const Graph frozen = freeze_variables(graph);
  write_graph(frozen, dir + "/" + name + ".pb");
  const Tensor output = Session(frozen).run({{in, input}}, {out})[0];
  if (!WriteNpy(input, dir + "/" + name + "_input.npy").ok() ||
      !WriteNpy(output, dir + "/" + name + "_expected.npy").ok()) {
    throw Error(absl::UnavailableError("cannot write the .npy files to " + dir));
  }
  std::ofstream(dir + "/" + name + ".names") << in << ":0\n" << out << ":0\n";
}

// An MLP forward whose weights are Variables (frozen to constants on export).
void ExportMlp(const std::string& dir) {
  Variable w1(random_normal({12, 16}, 1, kFloat32, 0, 0.3), "w1");
  Variable b1(random_normal({16}, 2, kFloat32, 0, 0.1), "b1");
  Variable w2(random_normal({16, 5}, 3, kFloat32, 0, 0.3), "w2");
  Variable b2(random_normal({5}, 4, kFloat32, 0, 0.1), "b2");
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 12}, "x");
    const Tensor h = relu(bias_add(matmul(x, w1), b1));
    softmax(bias_add(matmul(h, w2), b2), "y");
  }
  Export(dir, "duet_mlp", g, random_normal({4, 12}, 5));
}

// conv (SAME) + bias + relu + max-pool + a dense layer + softmax, plus Mean, Transpose and
// ConcatV2 on the way.
void ExportConvNet(const std::string& dir) {
  Variable kernel(random_normal({3, 3, 2, 4}, 6, kFloat32, 0, 0.3), "kernel");
  Variable bias(random_normal({4}, 7, kFloat32, 0, 0.1), "bias");
  Variable dense(random_normal({4 * 4 * 4 + 4, 3}, 8, kFloat32, 0, 0.3), "dense");
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 8, 8, 2}, "x");
    Tensor y = relu(bias_add(conv2d(x, kernel, {1, 1}, "SAME"), bias));
    y = max_pool(y, {2, 2}, {2, 2}, "VALID");
    const Tensor pooled = reduce_mean(y, {1, 2});
    y = concat({reshape(y, {-1, 4 * 4 * 4}), transpose(transpose(pooled, {1, 0}), {1, 0})}, 1);
    softmax(matmul(y, dense), "y");
  }
  Export(dir, "duet_conv", g, random_normal({2, 8, 8, 2}, 9));
}

// cond and while_loop: TensorFlow 2's functional If/While with the branches in the library.
void ExportControlFlow(const std::string& dir) {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 3}, "x");
    const Tensor scale = constant(0.5f);
    const Tensor y = cond(
        reduce_sum(x) > 0.f, [&] { return x * scale; }, [&] { return tanh(x) - 1.f; });
    const std::vector<Tensor> loop =
        while_loop([](const std::vector<Tensor>& v) { return v[0] < 3; },
                   [&](const std::vector<Tensor>& v) {
                     return std::vector<Tensor>{v[0] + 1, v[1] * 2.f + x};
                   },
                   {constant(0), y});
    identity(loop[1], "y");
  }
  Export(dir, "duet_control_flow", g, random_normal({2, 3}, 10));
}

// A duet::function's frozen, optimized graph (MatMul+BiasAdd+Relu fused into _FusedMatMul).
void ExportTracedFunction(const std::string& dir) {
  Variable w(random_normal({6, 8}, 11, kFloat32, 0, 0.3), "w");
  Variable b(random_normal({8}, 12, kFloat32, 0, 0.1), "b");
  auto model = duet::function(
      [&](const Tensor& x) { return reduce_sum(relu(matmul(x, w) + b) * 0.5f, {1}); });
  const Tensor input = random_normal({3, 6}, 13);
  const Graph graph = Graph::from_graph_def(model.frozen_graph_def(input));
  Export(dir, "duet_traced_function", graph, input, "arg0", "output_0");
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: export_duet_graphs OUTPUT_DIR\n";
    return 2;
  }
  try {
    duet::ExportMlp(argv[1]);
    duet::ExportConvNet(argv[1]);
    duet::ExportControlFlow(argv[1]);
    duet::ExportTracedFunction(argv[1]);
  } catch (const duet::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
