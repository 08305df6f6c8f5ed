// merge_loop_twins: the forward While and the accumulating twin of its gradient (Note [Merging loop
// twins]) become one loop with the same values; a fetched forward loop is left alone.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

const PassOptions kMergeOnly{.passes = {"merge_loop_twins", "prune"}};

int Loops(const Graph& g) {
  const std::map<std::string, int> ops = testing::OpCounts(g);
  return (ops.contains("While") ? ops.at("While") : 0) +
         (ops.contains("StatelessWhile") ? ops.at("StatelessWhile") : 0);
}

// y = loop of tanh(y * w) four times; loss = sum(y^2); its gradient with respect to w.
Graph LoopAndGradient() {
  Graph g;
  GraphScope scope(g);
  const Tensor x = placeholder(kFloat64, {3}, "x");
  const Tensor w = placeholder(kFloat64, {3}, "w");
  const std::vector<Tensor> out =
      while_loop([](const std::vector<Tensor>& v) { return v[0] < 4; },
                 [&](const std::vector<Tensor>& v) {
                   return std::vector<Tensor>{v[0] + 1, duet::tanh(v[1] * w)};
                 },
                 {constant(0), x});
  const Tensor loss = identity(reduce_sum(out[1] * out[1]), OpSite("loss"));
  identity(gradients({loss}, {w})[0], OpSite("dw"));
  return g;
}

TEST_CASE("a forward While and its gradient's accumulating twin merge into one loop") {
  const Graph g = LoopAndGradient();
  REQUIRE(Loops(g) == 3);  // forward, twin, backward
  const FeedList feeds = {{"x", constant({0.5, -1.0, 2.0})}, {"w", constant({0.3, 0.7, -1.1})}};
  auto result = testing::OptimizeAndCompare(g, kMergeOnly, feeds, {"loss", "dw"}, 1e-15);
  CHECK(result.report.counter("merge_loop_twins.merged") == 1);
  CHECK(Loops(result.graph) == 2);
}

TEST_CASE("a forward While that is fetched keeps its own loop") {
  const Graph g = LoopAndGradient();
  std::string fetched;
  for (const Node* node : g.nodes()) {
    if (node->op().name == "StatelessWhile" && fetched.empty()) fetched = node->name();
  }
  PassOptions options = kMergeOnly;
  options.keep = {fetched};
  const FeedList feeds = {{"x", constant({0.5, -1.0, 2.0})}, {"w", constant({0.3, 0.7, -1.1})}};
  auto result = testing::OptimizeAndCompare(g, options, feeds, {"loss", "dw"}, 1e-15);
  CHECK(result.report.counter("merge_loop_twins.merged") == 0);
  CHECK(Loops(result.graph) == 3);
}

}  // namespace
}  // namespace duet
