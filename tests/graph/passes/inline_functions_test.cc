// Function inlining: a nested duet::function becomes a call node, which inline_functions replaces
// by the function's ops (then optimized with the caller's), keeping values, order of updates and
// control edges; fetched calls stay.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kInlineOnly{.passes = {"inline_functions", "prune"}};

TEST_CASE("a duet::function called in a graph is a call node, and inlining removes it") {
  auto layer = duet::function([](const Tensor& x, const Tensor& w) { return tanh(matmul(x, w)); });
  const Tensor w = random_normal({4, 4}, 1, kFloat64);
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat64, {-1, 4}, "x");
    identity(layer(layer(x, w), w), OpSite("out"));
  }
  CHECK(testing::OpCounts(g).at("PartitionedCall") == 2);
  auto result = testing::OptimizeAndCompare(g, kInlineOnly,
                                            {{"x", random_normal({3, 4}, 2, kFloat64)}}, {"out"});
  CHECK(result.report.counter("inline_functions.calls") == 2);
  const auto ops = testing::OpCounts(result.graph);
  CHECK(ops.count("PartitionedCall") == 0);
  CHECK(ops.at("MatMul") == 2);
  CHECK(ops.at("Tanh") == 2);
}

TEST_CASE("inlined variable updates run once per run, ordered by the call's control edges") {
  Variable counter(constant(0.0), "counter");
  auto bump = duet::function([&](const Tensor& by) {
    counter.assign_add(by);
    return by * 2.0;
  });
  Graph g;
  {
    GraphScope scope(g);
    const Tensor by = placeholder(kFloat64, {}, "by");
    const Tensor twice = bump(by);
    ControlDependencies after({twice});
    identity(counter.value() + twice, OpSite("out"));
  }
  CHECK(testing::OpCounts(g).at("StatefulPartitionedCall") == 1);
  Session session(g);  // optimizes, inlining the call
  CHECK(session.run({{"by", constant(1.0)}}, {"out"})[0].item<double>() == 3.0);  // 1 + 2
  CHECK(session.run({{"by", constant(1.0)}}, {"out"})[0].item<double>() == 4.0);  // 2 + 2
  CHECK(counter.value().item<double>() == 2.0);
  const Session::PlanInfo info = session.plan_info({"by"}, {"out"});
  CHECK(info.passes.counter("inline_functions.calls") == 1);
}

TEST_CASE("a fetched call is not inlined, and the report says why") {
  auto square = duet::function([](const Tensor& x) { return x * x; });
  Graph g;
  Tensor y;
  {
    GraphScope scope(g);
    y = square(placeholder(kFloat32, {2}, "x"));
  }
  Graph copy = g.Copy();
  const PassReport report = optimize(
      copy, PassOptions{.passes = {"inline_functions"}, .keep = {SymbolicOutput(y)->node->name()}});
  CHECK(report.counter("inline_functions.calls") == 0);
  REQUIRE(report.missed.size() == 1);
  CHECK(report.missed[0].why == "its outputs are fetched or kept");
}

}  // namespace
}  // namespace duet
