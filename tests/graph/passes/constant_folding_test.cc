// Constant folding: constant subgraphs become Consts computed by the CPU kernels; shapes of static
// inputs fold; stateful, random and oversized results do not.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kFoldOnly{.passes = {"constant_folding", "prune"}};

TEST_CASE("a constant subgraph folds into one Const with the kernels' value") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {2}, "x");
    Tensor c = exp(constant({0.0, 1.0})) * 2.0 + constant({1.0, 1.0});
    identity(x + c, OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(g, kFoldOnly, {{"x", constant({0.5, -0.5})}}, {"out"});
  CHECK(result.report.counter("constant_folding.folded") == 3);  // Exp, Mul, AddV2
  CHECK(
      testing::OpCounts(result.graph) ==
      std::map<std::string, int>{{"AddV2", 1}, {"Const", 1}, {"Identity", 1}, {"Placeholder", 1}});
  const Node* add = result.graph.FindNode("out")->inputs()[0].node;
  const Tensor* folded = add->inputs()[1].node->bound_value();
  REQUIRE(folded != nullptr);
  testing::ExpectTensor(*folded, kFloat64, {2}, {3.0, 2 * std::exp(1.0) + 1});
}

TEST_CASE("Shape, Size and Rank of static shapes fold; of unknown dims they do not") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {4, 3}, "x");
    Tensor y = placeholder(kFloat32, {-1, 3}, "y");
    identity(shape_of(x), OpSite("sx"));
    identity(size(x), OpSite("nx"));
    identity(shape_of(y), OpSite("sy"));
  }
  auto result = testing::OptimizeAndCompare(
      g, kFoldOnly, {{"x", zeros({4, 3})}, {"y", zeros({2, 3})}}, {"sx", "nx", "sy"});
  CHECK(result.report.counter("constant_folding.shapes") == 2);
  CHECK(testing::OpCounts(result.graph)["Shape"] == 1);  // y's
}

TEST_CASE("a fetched node folds in place and keeps its name") {
  Graph g;
  {
    GraphScope scope(g);
    square(constant(3.f), OpSite("nine"));
  }
  auto result = testing::OptimizeAndCompare(g, kFoldOnly, {}, {"nine"});
  const Node* nine = result.graph.FindNode("nine");
  REQUIRE(nine != nullptr);
  CHECK(nine->op().name == "Const");
  CHECK(nine->bound_value()->item<float>() == 9.f);
}

TEST_CASE("stateful, random and oversized results are not folded") {
  Variable v(constant(2.f), "v");
  Graph g;
  {
    GraphScope scope(g);
    identity(v.value() * 2.f, OpSite("from_variable"));
    identity(random_normal({3}, 7), OpSite("random"));
    identity(zeros({64, 64}) + 1.f, OpSite("big"));
  }
  PassOptions options = kFoldOnly;
  options.max_constant_bytes = 1024;  // the 64x64 sum is 16 KiB
  auto result = testing::OptimizeAndCompare(g, options, {}, {"from_variable", "random", "big"});
  CHECK(result.graph.FindNode("from_variable")->inputs()[0].node->op().name == "Mul");
  CHECK(testing::OpCounts(result.graph).count("ReadVariableOp") == 1);
  CHECK(result.report.counter("constant_folding.too_large") >= 1);
  CHECK(result.graph.FindNode("big")->inputs()[0].node->op().name == "AddV2");
  bool random_left = false;
  for (const Node* node : result.graph.nodes()) {
    random_left |= node->op().name.find("Random") != std::string::npos;
  }
  CHECK(random_left);
}

TEST_CASE("a kernel error while folding leaves the node for the run to report") {
  Graph g;
  {
    GraphScope scope(g);
    identity(gather(constant({1.f, 2.f}), constant({int64_t{5}})), OpSite("out"));
  }
  Graph copy = g.Copy();
  optimize(copy, kFoldOnly);
  CHECK(testing::OpCounts(copy).count("GatherV2") == 1);
  testing::ExpectError([&] { testing::RunUnoptimized(copy, {}, {"out"}); }, {"GatherV2"});
}

}  // namespace
}  // namespace duet
