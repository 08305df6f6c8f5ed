// MatMul/Conv2D/DepthwiseConv2dNative + bias (+ residual add) + activation fusion: what fuses (and
// into what), what must not, the report of candidates that did not fire, and values equal to the
// unfused graph within float rounding.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

#include "ops/nn/nn_attrs.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kFuseOnly{.passes = {"fuse_bias_activation", "prune"}};

// out = act(x @ w + b) for x: (4, 5), w: (5, 3).
testing::Optimized FuseMlpLayer(const std::function<Tensor(const Tensor&)>& act, DType dtype,
                                bool add_v2 = false) {
  const Tensor w = cast(random_normal({5, 3}, 1), dtype);
  const Tensor b = cast(random_normal({3}, 2), dtype);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(dtype, {-1, 5}, "x");
    Tensor y = matmul(x, w);
    y = add_v2 ? b + y : bias_add(y, b);
    identity(act(y), OpSite("out"));
  }
  return testing::OptimizeAndCompare(g, kFuseOnly, {{"x", cast(random_normal({4, 5}, 3), dtype)}},
                                     {"out"}, 1e-5);
}

TEST_CASE("MatMul + bias + each activation fuse into one _FusedMatMul") {
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> activations = {
      {"relu", [](const Tensor& t) { return relu(t); }},
      {"relu6", [](const Tensor& t) { return relu6(t); }},
      {"elu", [](const Tensor& t) { return elu(t); }},
      {"tanh", [](const Tensor& t) { return tanh(t); }},
      {"sigmoid", [](const Tensor& t) { return sigmoid(t); }},
  };
  for (const auto& [name, act] : activations) {
    INFO(name);
    auto result = FuseMlpLayer(act, kFloat32);
    CHECK(result.report.counter("fusion.matmul_bias_" + name) == 1);
    CHECK(testing::OpCounts(result.graph) ==
          std::map<std::string, int>{
              {"Const", 2}, {"Identity", 1}, {"Placeholder", 1}, {"_FusedMatMul", 1}});
  }
}

TEST_CASE("the fused node keeps the source lines of the nodes it replaced") {
  Graph g;
  int first_line = 0;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {-1, 5}, "x");
    first_line = __LINE__ + 1;
    const Tensor y = matmul(x, random_normal({5, 3}, 1));
    identity(relu(bias_add(y, random_normal({3}, 2))), OpSite("out"));
  }
  optimize(g, kFuseOnly);
  const Node* fused = nullptr;
  for (const Node* node : g.nodes()) {
    if (node->op().name == "_FusedMatMul") fused = node;
  }
  REQUIRE(fused != nullptr);
  const std::string file = "fuse_bias_activation_test.cc:";
  std::vector<std::string> lines = fused->fused_sources();
  lines.push_back(fused->source());
  for (int line : {first_line, first_line + 1}) {
    const std::string want = file + std::to_string(line);
    CHECK(std::count_if(lines.begin(), lines.end(), [&](const std::string& s) {
            return s.find(want) != std::string::npos;
          }) >= 1);
  }
}

TEST_CASE("an AddV2 of a bias vector fuses too; without an activation only the bias fuses") {
  auto result = FuseMlpLayer([](const Tensor& t) { return t; }, kFloat32, /*add_v2=*/true);
  CHECK(result.report.counter("fusion.matmul_bias") == 1);
  CHECK(testing::OpCounts(result.graph).count("AddV2") == 0);
}

TEST_CASE("float64 does not fuse, and the report says why") {
  auto result = FuseMlpLayer([](const Tensor& t) { return relu(t); }, kFloat64);
  CHECK(testing::OpCounts(result.graph).count("MatMul") == 1);
  REQUIRE(result.report.missed.size() == 1);
  CHECK(result.report.missed[0].fusion == "fusion.matmul");
  CHECK_THAT(result.report.missed[0].why, Catch::Contains("dtype float64"));
  CHECK_THAT(result.report.str(), Catch::Contains("fusions that did not fire"));
}

TEST_CASE("values read elsewhere or kept stop the fusion where they are") {
  const Tensor w = random_normal({5, 3}, 1), b = random_normal({3}, 2);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5}, "x");
    Tensor shared = matmul(x, w, false, false, OpSite("shared"));  // read twice
    identity(bias_add(shared, b) + shared, OpSite("out1"));
    Tensor biased = bias_add(matmul(x, w), b, OpSite("biased"));  // fetched: Relu stays apart
    identity(relu(biased), OpSite("out2"));
    Tensor matrix = matmul(x, w) + ones({4, 3});  // not a vector bias
    identity(matrix, OpSite("out3"));
  }
  auto result = testing::OptimizeAndCompare(g, kFuseOnly, {{"x", random_normal({4, 5}, 3)}},
                                            {"out1", "out2", "biased", "out3"}, 1e-5);
  CHECK(result.graph.FindNode("shared")->op().name == "MatMul");
  CHECK(result.graph.FindNode("biased")->op().name == "_FusedMatMul");
  CHECK(result.report.counter("fusion.matmul_bias") == 1);
  CHECK(testing::OpCounts(result.graph).at("Relu") == 1);
  std::string whys;
  for (const MissedFusion& m : result.report.missed) whys += m.node + ": " + m.why + "\n";
  CHECK_THAT(whys, Catch::Contains("shared: its output is read by 2 nodes"));
  CHECK_THAT(whys, Catch::Contains("not a vector along the last dim"));
}

TEST_CASE("Conv2D + BiasAdd + Relu fuse into _FusedConv2D") {
  const Tensor filter = random_normal({3, 3, 2, 4}, 1), b = random_normal({4}, 2);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 6, 6, 2}, "x");
    identity(relu(bias_add(conv2d(x, filter, {1, 1, 1, 1}, "SAME"), b)), OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(g, kFuseOnly, {{"x", random_normal({2, 6, 6, 2}, 3)}},
                                            {"out"}, 1e-5);
  CHECK(result.report.counter("fusion.conv2d_bias_relu") == 1);
  CHECK(testing::OpCounts(result.graph).at("_FusedConv2D") == 1);
  CHECK(testing::OpCounts(result.graph).count("Conv2D") == 0);
}

// A ResNet block's end: relu(conv(x) + b + shortcut), for x: (2, 6, 6, 4) with the batch known or
// not; the shortcut is x itself, or (`projected`) another conv + bias of x.
testing::Optimized FuseResidualBlock(bool batch_known, bool projected, bool shortcut_first) {
  const Tensor filter = random_normal({3, 3, 4, 4}, 1), b = random_normal({4}, 2);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {batch_known ? 2 : -1, 6, 6, 4}, "x");
    Tensor main = bias_add(conv2d(x, filter, {1, 1, 1, 1}, "SAME"), b);
    Tensor shortcut = x;
    if (projected) {
      shortcut = bias_add(conv2d(x, random_normal({1, 1, 4, 4}, 4), {1, 1, 1, 1}, "SAME"),
                          random_normal({4}, 5));
    }
    Tensor sum = shortcut_first ? add(shortcut, main) : add(main, shortcut);
    identity(relu(sum, OpSite("block")), OpSite("out"));
  }
  return testing::OptimizeAndCompare(g, kFuseOnly, {{"x", random_normal({2, 6, 6, 4}, 3)}}, {"out"},
                                     1e-5);
}

TEST_CASE("a residual add and Relu after Conv2D + bias fuse into one _FusedConv2D") {
  for (bool shortcut_first : {false, true}) {
    INFO("shortcut first: " << shortcut_first);
    auto result = FuseResidualBlock(/*batch_known=*/true, /*projected=*/false, shortcut_first);
    CHECK(result.report.counter("fusion.conv2d_bias_add_relu") == 1);
    CHECK(testing::OpCounts(result.graph) ==
          std::map<std::string, int>{
              {"Const", 2}, {"Identity", 1}, {"Placeholder", 1}, {"_FusedConv2D", 1}});
    const Node* block = result.graph.FindNode("block");
    REQUIRE(block != nullptr);
    CHECK(block->attr(FusedConv2DAttrs::kFusedOps) ==
          std::vector<std::string>{"BiasAdd", "Add", "Relu"});
    REQUIRE(block->inputs().size() == 4);
    CHECK(block->inputs()[3].node->name() == "x");
  }
}

TEST_CASE("of a sum of two convolutions, one takes the other's result as its residual") {
  auto result = FuseResidualBlock(/*batch_known=*/true, /*projected=*/true, false);
  CHECK(result.report.counter("fusion.conv2d_bias_add_relu") == 1);
  CHECK(result.report.counter("fusion.conv2d_bias") == 1);
  CHECK(testing::OpCounts(result.graph).at("_FusedConv2D") == 2);
  CHECK(testing::OpCounts(result.graph).count("AddV2") == 0);
}

TEST_CASE("a residual add whose shapes are not fully known stays apart, and says why") {
  auto result = FuseResidualBlock(/*batch_known=*/false, /*projected=*/false, false);
  CHECK(result.report.counter("fusion.conv2d_bias") == 1);
  CHECK(testing::OpCounts(result.graph).at("AddV2") == 1);
  CHECK(testing::OpCounts(result.graph).at("Relu") == 1);
  REQUIRE(result.report.missed.size() == 1);
  CHECK(result.report.missed[0].fusion == "fusion.conv2d_add");
  CHECK_THAT(result.report.missed[0].why, Catch::Contains("same fully known shape"));
  CHECK_THAT(result.report.missed[0].why, Catch::Contains("(None, 6, 6, 4)"));
}

TEST_CASE("MatMul + bias + a residual add fuse into one _FusedMatMul") {
  const Tensor w = random_normal({5, 5}, 1), b = random_normal({5}, 2);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {4, 5}, "x");
    identity(bias_add(matmul(x, w), b) + x, OpSite("out"));
  }
  auto result =
      testing::OptimizeAndCompare(g, kFuseOnly, {{"x", random_normal({4, 5}, 3)}}, {"out"}, 1e-5);
  CHECK(result.report.counter("fusion.matmul_bias_add") == 1);
  CHECK(testing::OpCounts(result.graph).count("AddV2") == 0);
}

// out = relu6(bias_add(depthwise_conv2d(x, filter), b)), MobileNet's block, for x: (2, 6, 6, 3).
testing::Optimized FuseDepthwiseBlock(DType dtype, const std::string& padding,
                                      std::vector<int64_t> explicit_paddings = {}) {
  const Tensor filter = cast(random_normal({3, 3, 3, 2}, 1), dtype);
  const Tensor b = cast(random_normal({6}, 2), dtype);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(dtype, {-1, 6, 6, 3}, "x");
    Tensor y = padding == "EXPLICIT"
                   ? depthwise_conv2d_explicit_padding(x, filter, {1, 1, 1, 1}, explicit_paddings,
                                                       {1, 1, 1, 1}, OpSite("dw"))
                   : depthwise_conv2d(x, filter, {1, 2, 2, 1}, padding, OpSite("dw"));
    identity(relu6(bias_add(y, b)), OpSite("out"));
  }
  return testing::OptimizeAndCompare(
      g, kFuseOnly, {{"x", cast(random_normal({2, 6, 6, 3}, 3), dtype)}}, {"out"}, 1e-5);
}

TEST_CASE("DepthwiseConv2dNative + BiasAdd + Relu6 fuse into _FusedDepthwiseConv2dNative") {
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    auto result = FuseDepthwiseBlock(kFloat32, padding);
    CHECK(result.report.counter("fusion.depthwise_conv2d_bias_relu6") == 1);
    CHECK(
        testing::OpCounts(result.graph) ==
        std::map<std::string, int>{
            {"Const", 2}, {"Identity", 1}, {"Placeholder", 1}, {"_FusedDepthwiseConv2dNative", 1}});
  }
}

TEST_CASE("float64 and EXPLICIT padding depthwise convolutions do not fuse, and say why") {
  auto f64 = FuseDepthwiseBlock(kFloat64, "SAME");
  CHECK(testing::OpCounts(f64.graph).at("DepthwiseConv2dNative") == 1);
  REQUIRE(f64.report.missed.size() == 1);
  CHECK(f64.report.missed[0].fusion == "fusion.depthwise_conv2d");
  CHECK_THAT(f64.report.missed[0].why, Catch::Contains("dtype float64"));
  // TensorFlow's _FusedDepthwiseConv2dNative has no explicit_paddings.
  auto explicit_pads = FuseDepthwiseBlock(kFloat32, "EXPLICIT", {0, 0, 1, 1, 2, 0, 0, 0});
  CHECK(testing::OpCounts(explicit_pads.graph).at("DepthwiseConv2dNative") == 1);
  REQUIRE(explicit_pads.report.missed.size() == 1);
  CHECK(explicit_pads.report.missed[0].node == "dw");
  CHECK_THAT(explicit_pads.report.missed[0].why, Catch::Contains("\"EXPLICIT\""));
}

TEST_CASE("the dump's diff lists the fused nodes with their source lines") {
  const std::filesystem::path dir = testing::EmptyTestDir("fusion");
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5}, "x");
    relu(bias_add(matmul(x, random_normal({5, 3}, 1)), random_normal({3}, 2)), OpSite("y"));
  }
  optimize(g, PassOptions{.passes = {"fuse_bias_activation"}, .dump_dir = dir.string()});
  std::string diff;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".diff") {
      std::ifstream in(entry.path());
      diff.assign(std::istreambuf_iterator<char>(in), {});
    }
  }
  INFO(diff);
  CHECK_THAT(diff, Catch::Contains("fused y (_FusedMatMul) <- MatMul (MatMul, "));
  CHECK_THAT(diff, Catch::Contains("fuse_bias_activation_test.cc:"));
}

}  // namespace
}  // namespace duet
