// Frozen GraphDefs that TensorFlow built (tests/interop/make_tf_fixtures.py) run in duet and give
// TensorFlow's outputs. The fixtures are committed, so this test needs no TensorFlow.
#include <catch2/catch.hpp>
#include <fstream>

#include "duet.h"
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

}  // namespace
}  // namespace duet
