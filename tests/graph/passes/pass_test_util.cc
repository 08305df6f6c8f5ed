#include "tests/graph/passes/pass_test_util.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "tests/test_util.h"

namespace duet::testing {

std::map<std::string, int> OpCounts(const Graph& graph) {
  std::map<std::string, int> counts;
  for (const Node* node : graph.nodes()) ++counts[node->op().name];
  return counts;
}

std::vector<Tensor> RunUnoptimized(const Graph& graph, const FeedList& feeds,
                                   const std::vector<std::string>& fetches) {
  Session session(graph, SessionOptions{.optimize = false});
  std::vector<GraphTensor> names(fetches.begin(), fetches.end());
  return session.run(feeds, names);
}

Optimized OptimizeAndCompare(const Graph& graph, PassOptions options, const FeedList& feeds,
                             const std::vector<std::string>& fetches, double tolerance) {
  Optimized result{graph.Copy(), {}};
  for (const std::string& fetch : fetches) options.keep.push_back(fetch.substr(0, fetch.find(':')));
  result.report = optimize(result.graph, options);
  const std::vector<Tensor> before = RunUnoptimized(graph, feeds, fetches);
  const std::vector<Tensor> after = RunUnoptimized(result.graph, feeds, fetches);
  REQUIRE(before.size() == after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    INFO("fetch " << fetches[i] << "\n" << result.report.str());
    REQUIRE(after[i].dtype() == before[i].dtype());
    ExpectTensorNear(after[i], before[i], tolerance);
  }
  return result;
}

std::filesystem::path EmptyTestDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / name;
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace duet::testing
