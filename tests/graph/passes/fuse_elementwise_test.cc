// Elementwise fusion: which regions fuse (chains, trees, shared values, scalars), where they stop
// (values read outside, kept nodes, control edges, dtypes, broadcasts, unknown shapes), the report
// and the dump, and values equal to the unfused graph's bit for bit (the kernel computes every op
// as its own kernel does, in the same order).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kFuseOnly{.passes = {"fuse_elementwise", "prune"}};

Tensor Input(DType dtype, const Shape& shape, int seed) {
  return cast(random_normal(shape, seed), dtype);
}

std::string Whys(const PassReport& report) {
  std::string whys;
  for (const MissedFusion& m : report.missed) whys += m.node + ": " + m.why + "\n";
  return whys;
}

TEST_CASE("a chain of scalar ops fuses into one node, exactly") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    Graph g;
    {
      GraphScope scope(g);
      Tensor x = placeholder(dtype, {4, 3}, "x");
      Tensor y = x;
      for (int i = 0; i < 4; ++i) y = tanh(relu(y * 0.9 + 0.1) - 0.05);
      identity(y, OpSite("out"));
    }
    auto result =
        testing::OptimizeAndCompare(g, kFuseOnly, {{"x", Input(dtype, {4, 3}, 1)}}, {"out"});
    CHECK(result.report.counter("fusion.elementwise") == 1);
    CHECK(result.report.counter("fusion.elementwise_ops") == 20);
    // The scalars are Consts read by several nodes; each is one input of the fused node.
    CHECK(testing::OpCounts(result.graph) ==
          std::map<std::string, int>{
              {"Const", 12}, {"Identity", 1}, {"Placeholder", 1}, {"_FusedElementwise", 1}});
  }
}

TEST_CASE("trees, shared values and scalar placeholders fuse into one node") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {5, 7}, "x");
    Tensor y = placeholder(kFloat64, {5, 7}, "y");
    Tensor s = placeholder(kFloat64, {}, "s");
    Tensor shared = x * s;  // read three times
    Tensor left = tanh(shared) + shared * shared;
    Tensor right = maximum(y - s, exp(s * s));  // exp(s * s): a value of scalars only
    identity(sigmoid(left / (abs(right) + 1.0)) - x, OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(
      g, kFuseOnly,
      {{"x", Input(kFloat64, {5, 7}, 1)}, {"y", Input(kFloat64, {5, 7}, 2)}, {"s", constant(0.7)}},
      {"out"});
  CHECK(result.report.counter("fusion.elementwise") == 1);
  CHECK(result.report.counter("fusion.elementwise_ops") == 13);
  const auto counts = testing::OpCounts(result.graph);
  CHECK(counts.at("_FusedElementwise") == 1);
  CHECK(counts.count("Mul") == 0);
  const Node* fused = nullptr;
  for (const Node* node : result.graph.nodes()) {
    if (node->op().name == "_FusedElementwise") fused = node;
  }
  REQUIRE(fused != nullptr);
  CHECK(fused->inputs().size() == 4);  // x, s, y and the Const 1
}

// Note [Exported values]
TEST_CASE("a value read outside the region too is an extra output of the fused node") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {8}, "x");
    Tensor a = exp(x * 2.f, OpSite("a"));  // read by the tanh and by the sum
    identity(tanh(a) + 1.f, OpSite("out1"));
    identity(reduce_sum(a), OpSite("out2"));
  }
  auto result =
      testing::OptimizeAndCompare(g, kFuseOnly, {{"x", Input(kFloat32, {8}, 3)}}, {"out1", "out2"});
  CHECK(result.report.counter("fusion.elementwise") == 1);
  CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 1);
  CHECK(result.graph.FindNode("a") == nullptr);
  const Node* sum = nullptr;
  for (const Node* node : result.graph.nodes()) {
    if (node->op().name == "Sum") sum = node;
  }
  REQUIRE(sum != nullptr);
  CHECK(sum->inputs()[0].node->op().name == "_FusedElementwise");
  CHECK(sum->inputs()[0].index == 1);  // exp(x * 2), the fused node's extra output
}

TEST_CASE("a value whose outside reader leads back into the region is not exported") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {8}, "x");
    Tensor a = exp(x * 2.f, OpSite("a"));
    // The sum of a broadcasts back into the tanh's region: exporting a would make the fused node
    // read itself, so a ends a region of its own.
    identity(tanh(a) * reduce_sum(a), OpSite("out"));
  }
  auto result =
      testing::OptimizeAndCompare(g, kFuseOnly, {{"x", Input(kFloat32, {8}, 3)}}, {"out"});
  CHECK(result.report.counter("fusion.elementwise") == 2);
  CHECK(result.graph.FindNode("a")->op().name == "_FusedElementwise");  // exp(x * 2)
  CHECK(result.graph.FindNode("a")->num_outputs() == 1);
}

// An LSTM cell's forward step as a While body computes it, with the values the While gradient
// saves read outside (by Identity here, TensorListPushBack there): the cell and its saved values
// are two fused nodes (c, kept, ends one region), not seven.
TEST_CASE("an LSTM cell with its saved values fuses into two nodes with extra outputs") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor z = placeholder(kFloat32, {4, 12}, "z");
    Tensor c_prev = placeholder(kFloat32, {4, 3}, "c_prev");
    const std::vector<Tensor> gates = split(z, 4, 1);
    Tensor i = sigmoid(gates[0]), f = sigmoid(gates[1]), cand = tanh(gates[2]);
    Tensor o = sigmoid(gates[3]);
    Tensor c = identity(f * c_prev + i * cand, OpSite("c"));
    Tensor tanh_c = tanh(c);
    identity(o * tanh_c, OpSite("h"));
    for (const Tensor& saved : {i, f, cand, o, tanh_c}) identity(saved);
  }
  std::vector<std::string> fetches = {"h", "c"};
  for (const Node* node : g.nodes()) {
    if (node->op().name == "Identity" && node->name().rfind("Identity", 0) == 0) {
      fetches.push_back(node->name());
    }
  }
  REQUIRE(fetches.size() == 7);
  auto result = testing::OptimizeAndCompare(
      g, kFuseOnly, {{"z", Input(kFloat32, {4, 12}, 5)}, {"c_prev", Input(kFloat32, {4, 3}, 6)}},
      fetches);
  CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 2);
  CHECK(testing::OpCounts(result.graph).count("Sigmoid") == 0);
  CHECK(testing::OpCounts(result.graph).count("Tanh") == 0);
  CHECK(testing::OpCounts(result.graph).count("Split") == 0);  // Note [Split inputs]
}

// Note [Split inputs]: the cell's z = zx + h U, split into its gates, is added part by part inside
// the two kernels; unless z is read elsewhere too, when only the Split goes.
TEST_CASE("a Split's parts are read in place; the add before it is computed part by part") {
  for (bool z_read_elsewhere : {false, true}) {
    INFO("z read elsewhere: " << z_read_elsewhere);
    Graph g;
    {
      GraphScope scope(g);
      Tensor zx = placeholder(kFloat32, {4, 12}, "zx");
      Tensor hu = placeholder(kFloat32, {4, 12}, "hu");
      Tensor c_prev = placeholder(kFloat32, {4, 3}, "c_prev");
      Tensor z = zx + hu;
      if (z_read_elsewhere) identity(z, OpSite("z"));
      const std::vector<Tensor> gates = split(z, 4, 1);
      Tensor c =
          identity(sigmoid(gates[1]) * c_prev + sigmoid(gates[0]) * tanh(gates[2]), OpSite("c"));
      identity(sigmoid(gates[3]) * tanh(c), OpSite("h"));
    }
    std::vector<std::string> fetches = {"h", "c"};
    if (z_read_elsewhere) fetches.push_back("z");
    auto result = testing::OptimizeAndCompare(g, kFuseOnly,
                                              {{"zx", Input(kFloat32, {4, 12}, 7)},
                                               {"hu", Input(kFloat32, {4, 12}, 8)},
                                               {"c_prev", Input(kFloat32, {4, 3}, 9)}},
                                              fetches);
    const auto counts = testing::OpCounts(result.graph);
    CHECK(counts.at("_FusedElementwise") == 2);
    CHECK(counts.count("Split") == 0);
    CHECK(counts.count("AddV2") == (z_read_elsewhere ? 1 : 0));
  }
}

// Note [Joined regions]
TEST_CASE("a concat of elementwise siblings is one fused node writing the joined tensor") {
  for (DType dtype : {kFloat32, kFloat64}) {
    INFO(DTypeName(dtype));
    Graph g;
    {
      GraphScope scope(g);
      Tensor x = placeholder(dtype, {5, 7}, "x");
      Tensor y = placeholder(dtype, {5, 7}, "y");
      Tensor shared = x * y;  // read by two of the joined values
      Tensor a = tanh(shared) - 1.0;
      Tensor b = sigmoid(x);
      concat({a, b, shared + 2.0, a}, 1, OpSite("joined"));
    }
    auto result = testing::OptimizeAndCompare(
        g, kFuseOnly, {{"x", Input(dtype, {5, 7}, 1)}, {"y", Input(dtype, {5, 7}, 2)}}, {"joined"});
    CHECK(result.report.counter("fusion.elementwise_concat") == 1);
    CHECK(testing::OpCounts(result.graph).count("ConcatV2") == 0);
    CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 1);
    const Node* joined = result.graph.FindNode("joined");  // rewritten in place
    REQUIRE(joined != nullptr);
    CHECK(joined->op().name == "_FusedElementwise");
    CHECK(joined->output_shape(0) == Shape({5, 28}));
  }
}

// An LSTM cell's gradient as the While gradient's body computes it: the four gates' gradients
// joined for the recurrent matmul, and dc, which they share, read outside too (by f * dc).
TEST_CASE("an LSTM cell's gradient is one fused node with dc as an extra output") {
  Graph g;
  const std::vector<std::string> names = {"i",      "f",      "cand", "o",
                                          "c_prev", "tanh_c", "dh",   "dc_next"};
  FeedList feeds;
  for (size_t k = 0; k < names.size(); ++k) {
    feeds.emplace_back(names[k], Input(kFloat32, {4, 3}, 10 + static_cast<int>(k)));
  }
  {
    GraphScope scope(g);
    auto input = [&](const std::string& name) { return placeholder(kFloat32, {4, 3}, name); };
    Tensor i = input("i"), f = input("f"), cand = input("cand"), o = input("o");
    Tensor c_prev = input("c_prev"), tanh_c = input("tanh_c"), dh = input("dh");
    Tensor dc_next = input("dc_next");
    Tensor dc = dc_next + dh * o * (1.f - tanh_c * tanh_c);
    Tensor di = dc * cand * (i * (1.f - i));
    Tensor df = dc * c_prev * (f * (1.f - f));
    Tensor dcand = dc * i * (1.f - cand * cand);
    Tensor d_o = dh * tanh_c * (o * (1.f - o));
    identity(dc * f, OpSite("dc_prev"));  // made before the concat, as in the loop's body
    concat({di, df, dcand, d_o}, 1, OpSite("dz"));
  }
  auto result = testing::OptimizeAndCompare(g, kFuseOnly, feeds, {"dz", "dc_prev"});
  CHECK(result.report.counter("fusion.elementwise_concat") == 1);
  const auto counts = testing::OpCounts(result.graph);
  CHECK(counts.count("ConcatV2") == 0);
  CHECK(counts.at("_FusedElementwise") == 1);
  CHECK(counts.at("Mul") == 1);  // dc * f, a region of one node
  const Node* dz = result.graph.FindNode("dz");
  REQUIRE(dz != nullptr);
  CHECK(dz->num_outputs() == 2);  // the joined gradients and dc
}

TEST_CASE("a concat stays when a value is no elementwise node or joins another axis") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {5, 7}, "x");
    concat({tanh(x) * 2.f, x}, 1, OpSite("with_input"));  // x itself is no instruction
    concat({tanh(x) * 3.f, sigmoid(x) + 1.f}, 0, OpSite("rows"));
  }
  auto result = testing::OptimizeAndCompare(g, kFuseOnly, {{"x", Input(kFloat32, {5, 7}, 3)}},
                                            {"with_input", "rows"});
  CHECK(result.report.counter("fusion.elementwise_concat") == 0);
  CHECK(testing::OpCounts(result.graph).at("ConcatV2") == 2);
  CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 3);
}

TEST_CASE("kept nodes end regions; a kept root is rewritten in place under its name") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {3, 2}, "x");
    Tensor kept = sqrt(abs(x) + 1.f, OpSite("kept"));
    identity(tanh(kept * kept - 2.f), OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(g, kFuseOnly, {{"x", Input(kFloat32, {3, 2}, 4)}},
                                            {"kept", "out"});
  CHECK(result.report.counter("fusion.elementwise") == 2);
  CHECK(result.graph.FindNode("kept")->op().name == "_FusedElementwise");
  CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 2);
}

TEST_CASE("control inputs move to the fused node; a control edge out of a value ends a region") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {4}, "x");
    Tensor before = identity(x, OpSite("before"));
    Tensor a;
    {
      ControlDependencies deps({before});
      a = x * 3.f;
    }
    Tensor b = tanh(a, OpSite("b"));  // a control edge leaves it
    Tensor c;
    {
      ControlDependencies deps({b});
      c = reduce_sum(x);
    }
    identity(exp(b) + c, OpSite("out"));
  }
  auto result =
      testing::OptimizeAndCompare(g, kFuseOnly, {{"x", Input(kFloat32, {4}, 5)}}, {"out"});
  const Node* b = result.graph.FindNode("b");
  REQUIRE(b != nullptr);
  CHECK(b->op().name == "_FusedElementwise");  // Mul + Tanh, rewritten in place
  REQUIRE(b->control_inputs().size() == 1);
  CHECK(b->control_inputs()[0]->name() == "before");
  CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 2);  // b, and exp(b) + c
}

TEST_CASE("dtypes: float32 and float64 regions fuse apart; integer ones are reported") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {6}, "x");
    Tensor wide = cast(tanh(x * 2.f), kFloat64);
    identity(exp(wide) - 1.0, OpSite("out"));
    Tensor i = placeholder(kInt32, {6}, "i");
    identity(abs(i * 3) + 1, OpSite("ints"));
  }
  auto result = testing::OptimizeAndCompare(
      g, kFuseOnly,
      {{"x", Input(kFloat32, {6}, 6)},
       {"i", from_vector(std::vector<int32_t>{-3, -2, -1, 0, 1, 2}, {6})}},
      {"out", "ints"});
  CHECK(result.report.counter("fusion.elementwise") == 2);
  const auto counts = testing::OpCounts(result.graph);
  CHECK(counts.at("_FusedElementwise") == 2);
  CHECK(counts.at("Cast") == 1);
  CHECK(counts.at("AddV2") == 1);  // the int32 ops stay
  CHECK_THAT(Whys(result.report),
             Catch::Contains("dtype int32: _FusedElementwise takes float32 and float64 (3 "));
}

TEST_CASE("a broadcast other than of a single element, or unknown shapes, stop fusion") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {4, 3}, "x");
    Tensor row = placeholder(kFloat32, {3}, "row");
    Tensor biased = add(x, row, OpSite("biased"));  // (4, 3) + (3,)
    identity(tanh(biased) * 2.f, OpSite("out"));
    Tensor u = placeholder(kFloat32, {-1, 3}, "u");
    identity(exp(u * 2.f) + 1.f, OpSite("dynamic"));
  }
  auto result = testing::OptimizeAndCompare(g, kFuseOnly,
                                            {{"x", Input(kFloat32, {4, 3}, 7)},
                                             {"row", Input(kFloat32, {3}, 8)},
                                             {"u", Input(kFloat32, {2, 3}, 9)}},
                                            {"out", "dynamic"});
  CHECK(result.report.counter("fusion.elementwise") == 1);  // tanh(biased) * 2
  CHECK(result.graph.FindNode("biased")->op().name == "AddV2");
  CHECK(testing::OpCounts(result.graph).at("Exp") == 1);
  const std::string whys = Whys(result.report);
  CHECK_THAT(whys, Catch::Contains("biased: input 1 has shape (3,), neither a single element nor "
                                   "the fused shape (4, 3)"));
  CHECK_THAT(whys,
             Catch::Contains("its shape (None, 3) is not static (3 elementwise ops stay apart)"));
  CHECK_THAT(result.report.str(), Catch::Contains("fusions that did not fire"));
}

TEST_CASE("in the pipeline, bias activations go to _FusedMatMul and the rest fuse after") {
  const Tensor w = random_normal({5, 3}, 1), b = random_normal({3}, 2);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {4, 5}, "x");
    identity(relu(bias_add(matmul(x, w), b)) * 0.5f + 1.f, OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(g, PassOptions{}, {{"x", Input(kFloat32, {4, 5}, 3)}},
                                            {"out"}, 1e-5);
  const auto counts = testing::OpCounts(result.graph);
  CHECK(counts.at("_FusedMatMul") == 1);
  CHECK(counts.at("_FusedElementwise") == 1);
  CHECK(counts.count("Relu") == 0);
}

TEST_CASE("a 50-op chain on 64x64 with same-shape tensors and tanh fuses exactly") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {64, 64}, "x");
    Tensor p = placeholder(kFloat32, {64, 64}, "p");
    Tensor y = x;
    for (int i = 1; i <= 50; ++i) {
      if (i % 10 == 0) {
        y = tanh(y);
      } else if (i % 3 == 0) {
        y = maximum(y, p);
      } else if (i % 3 == 1) {
        y = y * 0.99f + p;  // two ops
        ++i;
      } else {
        y = y * p;
      }
    }
    identity(y, OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(
      g, kFuseOnly, {{"x", Input(kFloat32, {64, 64}, 1)}, {"p", Input(kFloat32, {64, 64}, 2)}},
      {"out"});
  CHECK(result.report.counter("fusion.elementwise") == 1);
  CHECK(testing::OpCounts(result.graph).at("_FusedElementwise") == 1);
}

TEST_CASE("the dump's diff lists every fused node with its source line") {
  const std::filesystem::path dir = testing::EmptyTestDir("elementwise_fusion");
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {2}, "x");
    tanh(x * 2.f, OpSite("y"));
  }
  optimize(g, PassOptions{.passes = {"fuse_elementwise"}, .dump_dir = dir.string()});
  std::string diff;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".diff") {
      std::ifstream in(entry.path());
      diff.assign(std::istreambuf_iterator<char>(in), {});
    }
  }
  INFO(diff);
  CHECK_THAT(diff, Catch::Contains("fused y (_FusedElementwise) <- Mul (Mul, "));
  CHECK_THAT(diff, Catch::Contains("y (Tanh, "));
  CHECK_THAT(diff, Catch::Contains("fuse_elementwise_test.cc:"));
}

}  // namespace
}  // namespace duet
