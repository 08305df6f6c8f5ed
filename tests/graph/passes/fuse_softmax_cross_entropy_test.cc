// Hand-written softmax cross-entropy -> SoftmaxCrossEntropyWithLogits: both forms of the log
// probabilities and both operand orders fuse, with values equal to the unfused graph within
// rounding; the cases that must not fuse are reported with why; and for logits far apart, where
// the unfused log(softmax(z)) gives inf and NaN, the fused loss is finite and right.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr absl::string_view kFusion = "fusion.softmax_cross_entropy";
const PassOptions kFuseOnly{.passes = {"fuse_softmax_cross_entropy", "prune"}};

// How the user wrote loss = -sum(y * L, axis).
struct Pattern {
  bool log_of_softmax = false;  // L = log(softmax(z)) rather than log_softmax(z)
  bool labels_first = true;     // y * L rather than L * y
  int64_t axis = -1;
  bool keep_dims = false;
  Shape logits_shape = {4, 5};
  Shape labels_shape = {4, 5};
};

// The loss of placeholders "z" and "y" as node "loss" (the Neg); L is node "l", the product
// "prod", the sum "sum". `extra` may add nodes to the graph, e.g. readers of L.
Graph CrossEntropyGraph(DType dtype, const Pattern& p,
                        const std::function<void(const Graph& g, const Tensor& l)>& extra = {}) {
  Graph g;
  GraphScope scope(g);
  const Tensor z = placeholder(dtype, p.logits_shape, "z");
  const Tensor y = placeholder(dtype, p.labels_shape, "y");
  const Tensor l = p.log_of_softmax ? log(softmax(z, OpSite("softmax")), OpSite("l"))
                                    : log_softmax(z, OpSite("l"));
  const Tensor prod =
      p.labels_first ? multiply(y, l, OpSite("prod")) : multiply(l, y, OpSite("prod"));
  negative(reduce_sum(prod, p.axis, p.keep_dims, OpSite("sum")), OpSite("loss"));
  if (extra) extra(g, l);
  return g;
}

// Logits normal(0, 3); labels a distribution per row (summing to 1): random weights normalized,
// except a one-hot last row and an even spread in the row before.
FeedList Inputs(DType dtype, int64_t rows, int64_t classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 3);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> z(rows * classes), y(rows * classes);
  for (double& v : z) v = normal(rng);
  for (int64_t r = 0; r < rows; ++r) {
    double* row = &y[r * classes];
    double total = 0;
    for (int64_t c = 0; c < classes; ++c) total += row[c] = uniform(rng);
    for (int64_t c = 0; c < classes; ++c) {
      if (r == rows - 1) {
        row[c] = c == static_cast<int64_t>(seed % classes) ? 1 : 0;
      } else if (r == rows - 2) {
        row[c] = 1.0 / classes;
      } else {
        row[c] /= total;
      }
    }
  }
  return {{"z", testing::MakeTensor(dtype, {rows, classes}, z)},
          {"y", testing::MakeTensor(dtype, {rows, classes}, y)}};
}

std::string MissedWhy(const PassReport& report) {
  for (const MissedFusion& missed : report.missed) {
    if (missed.fusion == kFusion) return missed.why;
  }
  return "";
}

TEST_CASE("both forms and both operand orders fuse, equal to the unfused graph") {
  for (const auto& [dtype, tol] : {std::pair{kFloat32, 1e-5}, std::pair{kFloat64, 1e-12}}) {
    uint64_t seed = 0;
    for (const bool log_of_softmax : {false, true}) {
      for (const bool labels_first : {false, true}) {
        for (const int64_t axis : {-1, 1}) {
          INFO(DTypeName(dtype) << (log_of_softmax ? " log(softmax(z))" : " log_softmax(z)")
                                << (labels_first ? " y * L" : " L * y") << " axis " << axis);
          const Graph g = CrossEntropyGraph(
              dtype,
              {.log_of_softmax = log_of_softmax, .labels_first = labels_first, .axis = axis});
          const FeedList feeds = Inputs(dtype, 4, 5, ++seed);
          auto result = testing::OptimizeAndCompare(g, kFuseOnly, feeds, {"loss"}, tol);
          INFO(result.report.str());
          CHECK(result.report.counter(std::string(kFusion)) == 1);
          CHECK(
              testing::OpCounts(result.graph) ==
              std::map<std::string, int>{{"Placeholder", 2}, {"SoftmaxCrossEntropyWithLogits", 1}});
          const Node* loss = result.graph.FindNode("loss");
          REQUIRE(loss != nullptr);
          CHECK(loss->op().name == "SoftmaxCrossEntropyWithLogits");
          CHECK(loss->inputs()[0].node->name() == "z");  // features
          CHECK(loss->inputs()[1].node->name() == "y");  // labels
          // And what the op computes eagerly.
          const Tensor fused = testing::RunUnoptimized(result.graph, feeds, {"loss"})[0];
          testing::ExpectTensorNear(
              fused, softmax_cross_entropy_with_logits(feeds[1].second, feeds[0].second), tol);
        }
      }
    }
  }
}

TEST_CASE("the whole pipeline fuses it before fuse_elementwise; a reader of the loss reads it") {
  Graph g = CrossEntropyGraph(kFloat64, {.log_of_softmax = true});
  {
    GraphScope scope(g);
    identity(reduce_mean(g.FindNode("loss")->output(0)), OpSite("mean"));
  }
  auto result = testing::OptimizeAndCompare(g, {}, Inputs(kFloat64, 4, 5, 7), {"mean"}, 1e-12);
  INFO(result.report.str());
  CHECK(result.report.counter(std::string(kFusion)) == 1);
  CHECK(result.report.counter("fusion.elementwise") == 0);
  const std::map<std::string, int> ops = testing::OpCounts(result.graph);
  CHECK(ops.at("SoftmaxCrossEntropyWithLogits") == 1);
  for (const char* op : {"Softmax", "LogSoftmax", "Log", "Mul", "Sum", "Neg"}) {
    CHECK(ops.count(op) == 0);
  }
  const Node* loss = result.graph.FindNode("loss");
  REQUIRE(loss != nullptr);
  CHECK(loss->op().name == "SoftmaxCrossEntropyWithLogits");
}

TEST_CASE("the fused node keeps the source lines and control inputs of the nodes it replaced") {
  Graph g;
  int first_line = 0;
  {
    GraphScope scope(g);
    const Tensor z = placeholder(kFloat32, {2, 3}, "z");
    const Tensor y = placeholder(kFloat32, {2, 3}, "y");
    const Tensor gate = identity(z, OpSite("gate"));
    Tensor l;
    {
      ControlDependencies after_gate({gate});
      first_line = __LINE__ + 1;
      l = log_softmax(z);
    }
    const Tensor prod = multiply(l, y);
    negative(reduce_sum(prod, -1), OpSite("loss"));
  }
  const PassReport report = optimize(g, kFuseOnly);
  CHECK(report.counter(std::string(kFusion)) == 1);
  const Node* fused = g.FindNode("loss");
  REQUIRE(fused != nullptr);
  CHECK(fused->op().name == "SoftmaxCrossEntropyWithLogits");
  const std::string file = "fuse_softmax_cross_entropy_test.cc:";
  std::vector<std::string> lines = fused->fused_sources();
  lines.push_back(fused->source());
  for (int line : {first_line, first_line + 2, first_line + 3}) {
    const std::string want = file + std::to_string(line);
    CHECK(std::count_if(lines.begin(), lines.end(), [&](const std::string& s) {
            return s.find(want) != std::string::npos;
          }) == 1);
  }
  REQUIRE(fused->control_inputs().size() == 1);
  CHECK(fused->control_inputs()[0]->name() == "gate");
}

TEST_CASE("sums that are not over the last axis alone, or keep it, do not fuse") {
  SECTION("axis 0") {
    Graph g = CrossEntropyGraph(kFloat64, {.axis = 0});
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) == "the sum reduces axes (0), not the last axis alone");
    CHECK(testing::OpCounts(g).count("SoftmaxCrossEntropyWithLogits") == 0);
  }
  SECTION("keep_dims") {
    Graph g = CrossEntropyGraph(kFloat32, {.keep_dims = true});
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) == "the sum keeps the reduced axis (keep_dims = true)");
  }
  SECTION("both axes") {
    Graph g;
    {
      GraphScope scope(g);
      const Tensor z = placeholder(kFloat64, {4, 5}, "z");
      negative(reduce_sum(multiply(placeholder(kFloat64, {4, 5}, "y"), log_softmax(z))),
               OpSite("loss"));
    }
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) == "the sum reduces axes (0, 1), not the last axis alone");
  }
}

TEST_CASE("intermediates read elsewhere, kept, or followed by a control edge do not fuse") {
  SECTION("a second reader of log_softmax(z)") {
    Graph g = CrossEntropyGraph(
        kFloat64, {}, [](const Graph&, const Tensor& l) { identity(exp(l), OpSite("probs")); });
    auto result =
        testing::OptimizeAndCompare(g, kFuseOnly, Inputs(kFloat64, 4, 5, 1), {"loss", "probs"}, 0);
    CHECK(result.report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(result.report) ==
          "intermediate LogSoftmax 'l' has other consumers: it is read by 2 nodes");
  }
  SECTION("a second reader of softmax(z)") {
    Graph g =
        CrossEntropyGraph(kFloat32, {.log_of_softmax = true}, [](const Graph& g, const Tensor&) {
          identity(Tensor(g.FindNode("softmax")->output(0)), OpSite("probs"));
        });
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) ==
          "intermediate Softmax 'softmax' has other consumers: it is read by 2 nodes");
  }
  SECTION("the product kept") {
    Graph g = CrossEntropyGraph(kFloat64, {});
    const PassReport report =
        optimize(g, PassOptions{.passes = kFuseOnly.passes, .keep = {"prod"}});
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) == "intermediate Mul 'prod' is fetched or kept");
  }
  SECTION("a control edge leaves the sum") {
    Graph g = CrossEntropyGraph(kFloat64, {}, [](const Graph& g, const Tensor&) {
      ControlDependencies after({Tensor(g.FindNode("sum")->output(0))});
      no_op(OpSite("after_sum"));
    });
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) == "a control edge leaves intermediate Sum 'sum'");
  }
  SECTION("a training graph: the gradient reads the intermediates") {
    Graph g = CrossEntropyGraph(kFloat64, {});
    {
      GraphScope scope(g);
      const Tensor loss = g.FindNode("loss")->output(0);
      const Tensor z = g.FindNode("z")->output(0);
      identity(gradients({reduce_mean(loss)}, {z})[0], OpSite("dz"));
    }
    auto result =
        testing::OptimizeAndCompare(g, kFuseOnly, Inputs(kFloat64, 4, 5, 2), {"loss", "dz"}, 0);
    CHECK(result.report.counter(std::string(kFusion)) == 0);
    CHECK_THAT(MissedWhy(result.report), Catch::Contains("has other consumers"));
  }
}

TEST_CASE("logits and labels of unknown or different shapes do not fuse") {
  SECTION("an unknown batch") {
    Graph g = CrossEntropyGraph(kFloat32, {.logits_shape = {-1, 5}, .labels_shape = {-1, 5}});
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) ==
          "the logits are (None, 5) and the labels (None, 5): the pass needs one static shape");
  }
  SECTION("labels that broadcast") {
    Graph g = CrossEntropyGraph(kFloat64, {.labels_shape = {1, 5}});
    auto result = testing::OptimizeAndCompare(
        g, kFuseOnly,
        {{"z", random_normal({4, 5}, 1, kFloat64)}, {"y", random_uniform({1, 5}, 2, kFloat64)}},
        {"loss"}, 0);
    CHECK(result.report.counter(std::string(kFusion)) == 0);
    CHECK_THAT(MissedWhy(result.report), Catch::Contains("needs one static shape"));
  }
  SECTION("3-D logits") {
    Graph g = CrossEntropyGraph(kFloat64, {.logits_shape = {2, 2, 5}, .labels_shape = {2, 2, 5}});
    const PassReport report = optimize(g, kFuseOnly);
    CHECK(report.counter(std::string(kFusion)) == 0);
    CHECK(MissedWhy(report) == "the logits are (2, 2, 5), not 2-D (batch, classes)");
  }
}

TEST_CASE("logits far apart: the unfused graph gives inf and NaN, the fused one the right loss") {
  // Rows (1000, 0), (1000, 0), (1000, 999). log(softmax) of the first two is (0, -inf): exp(-1000)
  // underflows. The losses, from lse = log(exp(z0) + exp(z1)) = max + log1p(exp(min - max)) and
  // loss = sum_c y_c (lse - z_c):
  //   y = (0.5, 0.5):   lse = 1000 (+ log1p(e^-1000), below rounding); 0.5 * 0 + 0.5 * 1000 = 500
  //   y = (1, 0):       1 * 0 + 0 * 1000 = 0 (unfused: 0 * -inf = NaN)
  //   y = (0.25, 0.75): lse = 1000 + log1p(e^-1); 0.25 * log1p(e^-1) + 0.75 * (1 + log1p(e^-1))
  const double tail = std::log1p(std::exp(-1.0));
  const std::vector<double> expected = {500, 0, tail + 0.75};
  for (const auto& [dtype, tol] : {std::pair{kFloat32, 1e-6}, std::pair{kFloat64, 1e-14}}) {
    INFO(DTypeName(dtype));
    Graph g = CrossEntropyGraph(
        dtype, {.log_of_softmax = true, .logits_shape = {3, 2}, .labels_shape = {3, 2}});
    const FeedList feeds = {
        {"z", testing::MakeTensor(dtype, {3, 2}, {1000, 0, 1000, 0, 1000, 999})},
        {"y", testing::MakeTensor(dtype, {3, 2}, {0.5, 0.5, 1, 0, 0.25, 0.75})}};
    const std::vector<double> unfused =
        testing::ToDoubles(testing::RunUnoptimized(g, feeds, {"loss"})[0]);
    CHECK(std::isinf(unfused[0]));
    CHECK(std::isnan(unfused[1]));
    CHECK(unfused[2] == Approx(expected[2]).epsilon(1e-5));
    Graph fused = g.Copy();
    CHECK(optimize(fused, PassOptions{.passes = kFuseOnly.passes, .keep = {"loss"}})
              .counter(std::string(kFusion)) == 1);
    const Tensor loss = testing::RunUnoptimized(fused, feeds, {"loss"})[0];
    testing::ExpectTensor(loss, dtype, {3}, testing::RoundTo(dtype, expected), tol);
    // LogSoftmax is max-shifted itself: that form is finite and right unfused too (up to the
    // rounding of float32 near 1000: oneDNN's log-sum-exp is off by about 1e-6 there).
    const Graph stable = CrossEntropyGraph(dtype, {.logits_shape = {3, 2}, .labels_shape = {3, 2}});
    testing::ExpectTensor(testing::RunUnoptimized(stable, feeds, {"loss"})[0], dtype, {3},
                          testing::RoundTo(dtype, expected), dtype == kFloat32 ? 1e-5 : tol);
  }
}

}  // namespace
}  // namespace duet
