// Frozen GraphDefs that TensorFlow built (tests/interop/make_tf_fixtures.py) run in duet and give
// TensorFlow's outputs. The fixtures are committed, so this test needs no TensorFlow.
#include <catch2/catch.hpp>
#include <fstream>

#include "duet.h"
#include "ops/channels_first.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const std::string kDir = "tests/interop/testdata/";

// Line 1: the input tensor's name, line 2: the output's.
std::pair<std::string, std::string> Names(const std::string& fixture) {
  std::ifstream file(kDir + fixture + ".names");
  std::pair<std::string, std::string> names;
  std::getline(file, names.first);
  std::getline(file, names.second);
  return names;
}

Tensor Npy(const std::string& path) {
  absl::StatusOr<Tensor> t = ReadNpy(path);
  REQUIRE(t.ok());
  return *t;
}

TEST_CASE("TensorFlow's frozen graphs run in duet and match TensorFlow's outputs") {
  for (const std::string fixture : {"tf_mlp", "tf_conv", "tf_shapes", "tf_control_flow",
                                    "tf_einsum", "tf_simple_rnn", "tf_lstm", "tf_gru"}) {
    INFO("fixture " << fixture);
    const auto [input, output] = Names(fixture);
    Graph graph = read_graph(kDir + fixture + ".pb");
    Session session(graph);
    const Tensor got = session.run({{input, Npy(kDir + fixture + "_input.npy")}}, {output})[0];
    const Tensor expected = Npy(kDir + fixture + "_expected.npy");
    REQUIRE(got.shape() == expected.shape());
    testing::ExpectTensorNear(got, expected, 1e-5);
  }
}

TEST_CASE("TensorFlow's channels-first graph runs optimized and as imported") {
  const auto [input, output] = Names("tf_nchw");
  Graph graph = read_graph(kDir + "tf_nchw.pb");
  int channels_first = 0;
  for (const Node* node : graph.nodes()) {
    channels_first += IsChannelsFirst(node->op(), node->attrs()) ? 1 : 0;
  }
  CHECK(channels_first == 5);  // Conv2D, BiasAdd, FusedBatchNormV3, MaxPool, AvgPool
  const Tensor x = Npy(kDir + "tf_nchw_input.npy");
  const Tensor expected = Npy(kDir + "tf_nchw_expected.npy");
  for (const bool optimize : {true, false}) {
    INFO("optimize " << optimize);
    Session session(graph, SessionOptions{.optimize = optimize});
    testing::ExpectTensorNear(session.run({{input, x}}, {output})[0], expected, 1e-5);
  }
  // Written back as TensorFlow wrote it: data_format NCHW.
  CHECK(graph.to_graph_def().DebugString().find("\"NCHW\"") != std::string::npos);
}

}  // namespace
}  // namespace duet
