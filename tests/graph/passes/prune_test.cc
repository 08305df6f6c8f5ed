// Pruning: nodes no kept node needs go; stateful nodes and control dependencies stay.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

TEST_CASE("prune removes what no kept node needs") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {3}, "x");
    Tensor unused = exp(x, OpSite("unused"));
    square(unused, OpSite("also_unused"));
    x * 2.f + 1.f;
  }
  Graph copy = g.Copy();
  absl::StatusOr<PassReport> report =
      OptimizeKeeping(copy, PassOptions{.passes = {"prune"}, .keep = {"AddV2"}}, {});
  REQUIRE(report.ok());
  CHECK(report->counter("prune.removed") == 2);
  CHECK(copy.FindNode("unused") == nullptr);
  CHECK(testing::OpCounts(copy) ==
        std::map<std::string, int>{{"AddV2", 1}, {"Const", 2}, {"Mul", 1}, {"Placeholder", 1}});
  // optimize() keeps every node nothing consumes: here nothing goes.
  Graph all = g.Copy();
  CHECK(optimize(all, PassOptions{.passes = {"prune"}}).counter("prune.removed") == 0);
  testing::OptimizeAndCompare(g, PassOptions{.passes = {"prune"}},
                              {{"x", constant({1.f, 2.f, 3.f})}}, {"AddV2"});
}

TEST_CASE("a session prunes its copy to the fetches; stateful nodes survive pruning") {
  Variable v(constant(1.f), "v");
  Graph g;
  Tensor x, y;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2}, "x");
    exp(x, OpSite("dead"));
    v.assign_add(constant(1.f));  // stateful, consumed by nothing
    y = x * 3.f;
  }
  Session sess(g);
  sess.run({{x, constant({1.f, 2.f})}}, {y});
  const Session::PlanInfo info = sess.plan_info({x}, {y});
  CHECK(info.passes.counter("prune.removed") >= 1);  // "dead" and its input edges
  CHECK(v.value().item<float>() == 1.f);             // the plan runs only what y needs
}

TEST_CASE("prune keeps control inputs of kept nodes") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {2}, "x");
    Tensor before = exp(x, OpSite("before"));
    ControlDependencies deps({before});
    x * 2.f;
  }
  Graph copy = g.Copy();
  optimize(copy, PassOptions{.passes = {"prune"}, .keep = {"Mul"}});
  CHECK(copy.FindNode("before") != nullptr);
}

TEST_CASE("prune removes dead chains a rewrite leaves") {
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {2}, "x");
    Tensor chain = exp(square(x, OpSite("sq")), OpSite("ex"));
    identity(chain, OpSite("out"));
  }
  Graph copy = g.Copy();
  // Rewire "out" to read x directly: sq and ex are dead now.
  const Node* out = copy.FindNode("out");
  copy.SetInput(out, 0, {copy.FindNode("x"), 0});
  absl::StatusOr<PassReport> report =
      OptimizeKeeping(copy, PassOptions{.passes = {"prune"}, .keep = {"out"}}, {});
  REQUIRE(report.ok());
  CHECK(report->counter("prune.removed") == 2);
  CHECK(copy.FindNode("sq") == nullptr);
  CHECK(copy.FindNode("ex") == nullptr);
  CHECK(testing::OpCounts(copy) == std::map<std::string, int>{{"Identity", 1}, {"Placeholder", 1}});
}

}  // namespace
}  // namespace duet
