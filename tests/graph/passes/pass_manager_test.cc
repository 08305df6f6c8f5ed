// The pass manager: rounds to a fixed point, statistics, options, dumps with diffs, the shadow
// check, and sessions optimizing their own copies.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "graph/passes/pass_context.h"
#include "graph/passes/rewrite.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// x * (2 - 1) + 0, twice: folding, simplification, CSE and pruning all have work.
Graph Example() {
  Graph g;
  GraphScope scope(g);
  Tensor x = placeholder(kFloat32, {2}, "x");
  Tensor a = x * (constant(2.f) - constant(1.f)) + 0.f;
  Tensor b = exp(x) + exp(x);
  identity(a + b, OpSite("out"));
  return g;
}

TEST_CASE("the pipeline runs to a fixed point and reports what fired") {
  Graph g = Example();
  auto result = testing::OptimizeAndCompare(g, {}, {{"x", constant({1.f, -1.f})}}, {"out"});
  const PassReport& report = result.report;
  CHECK(report.counter("constant_folding.folded") == 1);
  CHECK(report.counter("simplify.mul_one") == 1);
  CHECK(report.counter("simplify.add_zero") == 1);
  CHECK(report.counter("cse.merged") == 1);
  CHECK(report.nodes_before == g.num_nodes());
  CHECK(report.nodes_after == result.graph.num_nodes());
  // What is left of the arithmetic, x + (e + e) with e = exp(x), is one elementwise region.
  CHECK(report.counter("fusion.elementwise_ops") == 3);
  CHECK(testing::OpCounts(result.graph) ==
        std::map<std::string, int>{{"_FusedElementwise", 1}, {"Identity", 1}, {"Placeholder", 1}});
  CHECK(report.iterations >= 2);  // the last round changes nothing
  for (const PassRun& run : report.runs) {
    if (run.iteration == report.iterations) CHECK_FALSE(run.changed);
  }
  const std::string text = report.str();
  CHECK_THAT(text, Catch::Contains("cse.merged = 1"));
  CHECK_THAT(text, Catch::Contains("constant_folding"));
}

TEST_CASE("passes can be chosen and disabled by name; unknown names are errors") {
  Graph g = Example();
  Graph copy = g.Copy();
  PassReport report = optimize(copy, PassOptions{.disable = {"cse", "fuse_elementwise"}});
  CHECK(report.counter("cse.merged") == 0);
  CHECK(testing::OpCounts(copy).at("Exp") == 2);
  for (const PassRun& run : report.runs) {
    CHECK(run.pass != "cse");
    CHECK(run.pass != "fuse_elementwise");
  }
  testing::ExpectError([&] { optimize(copy, PassOptions{.passes = {"fold"}}); },
                       {"no pass named 'fold'", "constant_folding"});
  testing::ExpectError([&] { optimize(copy, PassOptions{.keep = {"nope"}}); },
                       {"PassOptions::keep", "nope"});
  CHECK(PassNames().front() == "inline_functions");
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("dump_dir holds the graph after each pass that changed it and a diff with source lines") {
  const std::filesystem::path dir = testing::EmptyTestDir("passes");
  Graph g = Example();
  optimize(g, PassOptions{.dump_dir = dir.string()});
  CHECK(std::filesystem::exists(dir / "00_input.txt"));
  std::string cse_diff;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("_cse.diff") != std::string::npos) cse_diff = ReadFile(entry.path());
  }
  INFO(cse_diff);
  CHECK_THAT(cse_diff, Catch::Contains("- Exp_1 = Exp(x)"));
  CHECK_THAT(cse_diff, Catch::Contains("pass_manager_test.cc:"));  // the user's line
  CHECK_THAT(ReadFile(dir / "00_input.txt"), Catch::Contains("out = Identity("));
}

TEST_CASE("verify runs both graphs and reports that they agree; optimize renames nothing kept") {
  Graph g = Example();
  PassReport report = optimize(g, PassOptions{.verify = true});
  CHECK_THAT(report.verify, Catch::Contains("outputs agree"));
  REQUIRE(g.FindNode("out") != nullptr);
  Variable v(constant(1.f), "v");
  Graph stateful;
  {
    GraphScope scope(stateful);
    v.assign_add(constant(1.f));
  }
  CHECK_THAT(optimize(stateful, PassOptions{.verify = true}).verify,
             Catch::Contains("skipped: the graph updates state"));
  CHECK(v.value().item<float>() == 1.f);
}

const OpRef kAddV2("AddV2");
const OpRef kSub("Sub");

// A deliberately wrong pass: every AddV2 becomes a Sub.
absl::StatusOr<bool> AddBecomesSub(Graph& graph, PassContext& context) {
  bool changed = false;
  const std::vector<Node*> nodes(graph.nodes().begin(), graph.nodes().end());
  for (const Node* node : nodes) {
    if (!kAddV2.is(node->op())) continue;
    DUET_ASSIGN_OR_RETURN(NodeSpec spec,
                          SpecFor(kSub, {node->inputs()[0], node->inputs()[1]}, *node));
    DUET_RETURN_IF_ERROR(graph.Rewrite(node, std::move(spec)));
    context.Count("add_to_sub.rewritten");
    changed = true;
  }
  return changed;
}

TEST_CASE("extra passes run after the pipeline's, with statistics, and can be chosen by name") {
  Graph g = Example();
  int calls = 0;
  const CustomPass counting{"counting", [&](Graph& graph, PassContext& context) {
                              ++calls;
                              context.Count("counting.nodes", graph.num_nodes());
                              return absl::StatusOr<bool>(false);
                            }};
  PassReport report = optimize(g, PassOptions{.extra_passes = {counting}});
  CHECK(calls == report.iterations);
  CHECK(report.runs.back().pass == "counting");
  CHECK(report.counter("counting.nodes") > 0);
  CHECK_THAT(report.str(), Catch::Contains("counting.nodes = "));
  calls = 0;
  optimize(g, PassOptions{.disable = {"counting"}, .extra_passes = {counting}});
  CHECK(calls == 0);
  testing::ExpectError(
      [&] {
        optimize(g, PassOptions{.extra_passes = {{"cse", counting.run}}});
      },
      {"PassOptions::extra_passes", "a pass named 'cse' already"});
  testing::ExpectError(
      [&] {
        optimize(g, PassOptions{.extra_passes = {{"nothing", nullptr}}});
      },
      {"'nothing' has no function"});
}

TEST_CASE("verify fails naming the pass that changed the result") {
  Graph g = Example();
  // fuse_elementwise would fuse the AddV2 before the faulty pass sees it.
  const PassOptions options{.disable = {"fuse_elementwise"},
                            .verify = true,
                            .extra_passes = {{"add_to_sub", AddBecomesSub}}};
  testing::ExpectError([&] { optimize(g, options); },
                       {"computes a different result", "'out' element 0",
                        "disabling pass 'add_to_sub' removes the difference"});
  // Without the shadow check the wrong result goes unnoticed: that is what verify is for.
  Graph unchecked = Example();
  PassOptions no_verify = options;
  no_verify.verify = false;
  CHECK(optimize(unchecked, no_verify).counter("add_to_sub.rewritten") >= 1);
}

TEST_CASE("a session optimizes a copy per signature; the user's graph is untouched") {
  Graph g = Example();
  const int nodes = g.num_nodes();
  Session optimized(g);
  Session plain(g, SessionOptions{.optimize = false});
  const Tensor x = constant({0.5f, 2.f});
  testing::ExpectTensorNear(optimized.run({{"x", x}}, {"out"})[0],
                            plain.run({{"x", x}}, {"out"})[0], 0);
  CHECK(g.num_nodes() == nodes);
  const Session::PlanInfo info = optimized.plan_info({"x"}, {"out"});
  CHECK(info.passes.counter("cse.merged") == 1);
  CHECK(info.steps < plain.plan_info({"x"}, {"out"}).steps);
  // Feeding an intermediate cuts it off before optimizing: Exp_1 no longer merges with it.
  const FeedList feeds = {{"x", x}, {"Exp", constant({1.f, 1.f})}};
  const std::vector<Tensor> fed = optimized.run(feeds, {"out", "Exp"});
  testing::ExpectTensorNear(fed[1], constant({1.f, 1.f}), 0);
  testing::ExpectTensorNear(fed[0], plain.run(feeds, {"out"})[0], 0);
}

TEST_CASE("symbolic tensors of nodes optimize() removed are rejected with a clear error") {
  Graph g;
  Tensor x, dead;
  {
    GraphScope scope(g);
    x = placeholder(kFloat32, {2}, "x");
    dead = x * 1.f;
    identity(dead, OpSite("out"));
  }
  optimize(g);
  testing::ExpectError(
      [&] {
        Session(g).run({{x, constant({1.f, 2.f})}}, {dead});
      },
      {"optimize() removed"});
}

}  // namespace
}  // namespace duet
