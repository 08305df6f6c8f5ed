// Common-subexpression elimination: duplicated pure subgraphs merge; stateful ops, placeholders
// and nodes with different attrs do not.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kCseOnly{.passes = {"cse", "prune"}};

TEST_CASE("duplicated subgraphs merge into one") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {3}, "x");
    Tensor a = exp(x * 2.0) + 1.0;
    Tensor b = exp(x * 2.0) + 1.0;  // the same again, constants included
    identity(a * b, OpSite("out"));
  }
  auto result =
      testing::OptimizeAndCompare(g, kCseOnly, {{"x", constant({0.1, 0.2, 0.3})}}, {"out"});
  CHECK(result.report.counter("cse.merged") == 5);  // 2.0, Mul, Exp, 1.0, AddV2
  CHECK(
      testing::OpCounts(result.graph) ==
      std::map<std::string, int>{
          {"AddV2", 1}, {"Const", 2}, {"Exp", 1}, {"Identity", 1}, {"Mul", 2}, {"Placeholder", 1}});
}

TEST_CASE("different attrs, placeholders and stateful reads do not merge") {
  Variable v(constant({1.f, 2.f}), "v");
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {2}, "x");
    Tensor y = placeholder(kFloat32, {2}, "y");
    identity(reduce_sum(x, {0}, /*keep_dims=*/true) + reduce_sum(x, {0}, /*keep_dims=*/false),
             OpSite("sums"));
    identity(x + y, OpSite("xy"));
    identity(v.value() + v.value(), OpSite("reads"));
  }
  auto result = testing::OptimizeAndCompare(
      g, kCseOnly, {{"x", constant({1.f, 2.f})}, {"y", constant({3.f, 4.f})}},
      {"sums", "xy", "reads"});
  const auto ops = testing::OpCounts(result.graph);
  CHECK(ops.at("Sum") == 2);
  CHECK(ops.at("Placeholder") == 2);
  CHECK(ops.at("ReadVariableOp") == 2);
}

TEST_CASE("a kept duplicate keeps its name") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {2}, "x");
    exp(x, OpSite("first"));
    exp(x, OpSite("second"));
  }
  auto result =
      testing::OptimizeAndCompare(g, kCseOnly, {{"x", constant({1.f, 2.f})}}, {"first", "second"});
  CHECK(result.graph.FindNode("first") != nullptr);
  CHECK(result.graph.FindNode("second") != nullptr);
  CHECK(result.report.counter("cse.merged") == 0);
}

TEST_CASE("string constants merge when their strings agree, whatever their buffers") {
  Graph g;
  {
    GraphScope scope(g);
    const std::string long_string(100, 'x');  // past std::string's inline buffer
    concat({constant({long_string, "y"}), constant({long_string, "y"}), constant({"x", "z"})}, 0,
           OpSite("out"));
  }
  const PassReport report = optimize(g, kCseOnly);
  CHECK(report.counter("cse.merged") == 1);      // the second {long, "y"}; {"x", "z"} differs
  CHECK(testing::OpCounts(g).at("Const") == 3);  // two string Consts and the axis
  Session session(g);
  CHECK(session.run({}, {"out"})[0].to_vector<std::string>() ==
        std::vector<std::string>{std::string(100, 'x'), "y", std::string(100, 'x'), "y", "x", "z"});
}

}  // namespace
}  // namespace duet
