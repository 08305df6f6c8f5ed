// The layout pass: a channels-first network runs channels-last between one Transpose at each end
// (Note [Channels-first] in ops/channels_first.cc), fused as a channels-last one would be, with
// the values of the unoptimized graph.
#include <catch2/catch.hpp>

#include "ops/channels_first.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::OpCounts;
using testing::OptimizeAndCompare;

constexpr DataFormat kNCHW = DataFormat::kNCHW;

int ChannelsFirstNodes(const Graph& graph) {
  int n = 0;
  for (const Node* node : graph.nodes()) n += IsChannelsFirst(node->op(), node->attrs());
  return n;
}

TEST_CASE("an NCHW conv-bias-relu-pool-conv-bn-residual network keeps two Transposes") {
  const Tensor f1 = random_normal({3, 3, 3, 4}, 1), f2 = random_normal({3, 3, 4, 4}, 2);
  const Tensor b = random_normal({4}, 3);
  const Tensor scale = abs(random_normal({4}, 4)) + 0.5f, offset = random_normal({4}, 5);
  const Tensor mean = random_normal({4}, 6), variance = abs(random_normal({4}, 7)) + 0.5f;
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {2, 3, 8, 8}, "x");
    Tensor y = relu(bias_add(conv2d(x, f1, {1}, "SAME", kNCHW), b, kNCHW));
    y = max_pool(y, {2}, {2}, "VALID", kNCHW);
    Tensor z = conv2d(y, f2, {1}, "SAME", kNCHW);
    z = fused_batch_norm(z, scale, offset, mean, variance, 1e-3f, false, kNCHW).y;
    identity(relu(z + y), OpSite("out"));
  }
  REQUIRE(ChannelsFirstNodes(g) == 5);
  const FeedList feeds = {{"x", random_normal({2, 3, 8, 8}, 8)}};
  testing::Optimized opt = OptimizeAndCompare(g, PassOptions{}, feeds, {"out"}, 1e-4);
  CHECK(ChannelsFirstNodes(opt.graph) == 0);
  const auto counts = OpCounts(opt.graph);
  CHECK(counts.at("Transpose") == 2);
  CHECK(counts.at("_FusedConv2D") == 2);  // bias + relu, and the folded batch norm
  CHECK(opt.report.counter("layout.converted") == 5);
}

TEST_CASE("eager, Session and optimized Session agree on an NCHW conv-bn-relu-pool block") {
  const Tensor x = random_normal({2, 3, 6, 6}, 5);
  const Tensor f = random_normal({3, 3, 3, 4}, 6);
  const Tensor b = random_normal({4}, 7);
  const Tensor scale = abs(random_normal({4}, 8)) + 0.5f, offset = random_normal({4}, 9);
  const Tensor mean = random_normal({4}, 10), variance = abs(random_normal({4}, 11)) + 0.5f;
  auto block = [&](const Tensor& in) {
    Tensor y = bias_add(conv2d(in, f, {1}, "SAME", kNCHW), b, kNCHW);
    y = fused_batch_norm(y, scale, offset, mean, variance, 1e-3f, false, kNCHW).y;
    return max_pool(relu(y), {2}, {2}, "VALID", kNCHW);
  };
  const Tensor eager = block(x);
  REQUIRE(eager.shape() == Shape{2, 4, 3, 3});
  Graph g;
  {
    GraphScope scope(g);
    identity(block(placeholder(kFloat32, {2, 3, 6, 6}, "x")), OpSite("out"));
  }
  Session plain(g, SessionOptions{.optimize = false});
  testing::ExpectTensorNear(plain.run({{"x", x}}, {"out"})[0], eager, 1e-5);
  Session optimized(g);
  testing::ExpectTensorNear(optimized.run({{"x", x}}, {"out"})[0], eager, 1e-5);
}

TEST_CASE("a fetched channels-first node keeps its name and value") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {1, 2, 4, 4}, "x");
    max_pool(x, {2}, {2}, "VALID", kNCHW, OpSite("pool"));
  }
  const FeedList feeds = {{"x", random_normal({1, 2, 4, 4}, 9)}};
  testing::Optimized opt = OptimizeAndCompare(g, PassOptions{}, feeds, {"pool"});
  CHECK(ChannelsFirstNodes(opt.graph) == 0);
  CHECK(opt.graph.FindNode("pool")->output_shape(0) == Shape{1, 2, 2, 2});
}

TEST_CASE("a channels-first node with an unknown-rank input stays, and the report says why") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, Shape::UnknownRank(), "x");
    identity(bias_add(x, random_normal({2}, 10), kNCHW), OpSite("out"));
  }
  PassReport report = optimize(g, PassOptions{.passes = {"convert_layout"}});
  CHECK(ChannelsFirstNodes(g) == 1);
  bool found = false;
  for (const MissedFusion& m : report.missed)
    found |= m.why.find("unknown rank") != std::string::npos;
  CHECK(found);
}

TEST_CASE("a channels-first node that others wait for through control edges stays") {
  Graph g;
  {
    GraphScope scope(g);
    const Tensor x = placeholder(kFloat32, {1, 2, 4, 4}, "x");
    const Tensor pooled = max_pool(x, {2}, {2}, "VALID", kNCHW);
    identity(pooled, OpSite("pooled"));
    ControlDependencies after({pooled});
    identity(x, OpSite("out"));
  }
  const FeedList feeds = {{"x", random_normal({1, 2, 4, 4}, 11)}};
  testing::Optimized opt = OptimizeAndCompare(g, PassOptions{}, feeds, {"pooled", "out"});
  CHECK(ChannelsFirstNodes(opt.graph) == 1);
  CHECK(opt.report.counter("layout.converted") == 0);
}

}  // namespace
}  // namespace duet
