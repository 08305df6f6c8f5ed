// Batch norm folding: an inference FusedBatchNormV3 after a Conv2D (and bias) becomes the
// convolution's filter and a bias, which fuse_bias_activation then fuses; the values stay equal
// to the unfolded graph (float32 within rounding, float64 almost exactly), and every case that
// must not fold is reported with why.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr int64_t kChannels = 4;

// The constants of one convolution + batch norm layer, made eagerly (inside a GraphScope,
// random_normal would add nodes). The variance is positive.
struct Weights {
  Tensor filter, bias, scale, offset, mean, variance;

  explicit Weights(DType dtype, DType stats_dtype, uint64_t seed = 10)
      : filter(cast(random_normal({3, 3, 2, kChannels}, seed), dtype)),
        bias(cast(random_normal({kChannels}, seed + 1), dtype)),
        scale(cast(random_normal({kChannels}, seed + 2), stats_dtype)),
        offset(cast(random_normal({kChannels}, seed + 3), stats_dtype)),
        mean(cast(random_normal({kChannels}, seed + 4), stats_dtype)),
        variance(cast(abs(random_normal({kChannels}, seed + 5)) + 0.5f, stats_dtype)) {}
  explicit Weights(DType dtype) : Weights(dtype, dtype) {}
};

// How the test graph varies: what sits between the convolution and the batch norm, the mode,
// and whether a Relu follows.
struct Layer {
  DType dtype = kFloat32;
  enum Bias { kNone, kBiasAdd, kAddV2 } bias = kNone;
  bool is_training = false;
  bool relu = true;
};

// bn(conv2d(x, filter) [+ bias]); the nodes are "conv", "bias" and "bn".
FusedBatchNormResult BuildLayer(const Layer& layer, const Tensor& x, const Weights& w) {
  Tensor conv = conv2d(x, w.filter, {1, 1, 1, 1}, "SAME", {1, 1, 1, 1}, OpSite("conv"));
  if (layer.bias == Layer::kBiasAdd) conv = bias_add(conv, w.bias, OpSite("bias"));
  if (layer.bias == Layer::kAddV2) conv = add(w.bias, conv, OpSite("bias"));
  return fused_batch_norm(conv, w.scale, w.offset, w.mean, w.variance, 1e-3f, layer.is_training,
                          OpSite("bn"));
}

Tensor Input(DType dtype) { return cast(random_normal({2, 5, 5, 2}, 3), dtype); }

// out = [relu](layer(x)) with x: (-1, 5, 5, 2), optimized and compared with the original.
testing::Optimized FoldLayer(const Layer& layer, PassOptions options = {}) {
  const Weights weights(layer.dtype);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(layer.dtype, {-1, 5, 5, 2}, "x");
    Tensor y = BuildLayer(layer, x, weights).y;
    identity(layer.relu ? relu(y) : y, OpSite("out"));
  }
  const double tolerance = layer.dtype == kFloat64 ? 1e-12 : 1e-5;
  return testing::OptimizeAndCompare(g, std::move(options), {{"x", Input(layer.dtype)}}, {"out"},
                                     tolerance);
}

// The reasons the report gives, one line per candidate that did not fold.
std::string MissedReasons(const PassReport& report) {
  std::string whys;
  for (const MissedFusion& m : report.missed) {
    if (m.fusion == "fusion.conv2d_batch_norm") whys += m.node + ": " + m.why + "\n";
  }
  return whys;
}

TEST_CASE("Conv2D + inference batch norm + Relu become one _FusedConv2D (float32)") {
  auto result = FoldLayer(Layer{});
  CHECK(result.report.counter("fusion.conv2d_batch_norm") == 1);
  CHECK(result.report.counter("fusion.conv2d_bias_relu") == 1);
  CHECK(testing::OpCounts(result.graph) ==
        std::map<std::string, int>{
            {"Const", 2}, {"Identity", 1}, {"Placeholder", 1}, {"_FusedConv2D", 1}});
}

TEST_CASE("float64 folds into Conv2D + BiasAdd, almost exactly") {
  auto result = FoldLayer(Layer{.dtype = kFloat64, .relu = false});
  CHECK(result.report.counter("fusion.conv2d_batch_norm") == 1);
  CHECK(testing::OpCounts(result.graph) ==
        std::map<std::string, int>{
            {"BiasAdd", 1}, {"Const", 2}, {"Conv2D", 1}, {"Identity", 1}, {"Placeholder", 1}});
  // The batch norm keeps its name: it is the BiasAdd now.
  REQUIRE(result.graph.FindNode("bn") != nullptr);
  CHECK(result.graph.FindNode("bn")->op().name == "BiasAdd");
}

TEST_CASE("a bias between the convolution and the batch norm folds too") {
  for (DType dtype : {kFloat32, kFloat64}) {
    for (Layer::Bias bias : {Layer::kBiasAdd, Layer::kAddV2}) {
      INFO(DTypeName(dtype) << " bias " << bias);
      auto result = FoldLayer(Layer{.dtype = dtype, .bias = bias});
      CHECK(result.report.counter("fusion.conv2d_batch_norm") == 1);
      const auto ops = testing::OpCounts(result.graph);
      CHECK(ops.count("FusedBatchNormV3") == 0);
      CHECK(ops.count("AddV2") == 0);
      CHECK(ops.at(dtype == kFloat32 ? "_FusedConv2D" : "Conv2D") == 1);
    }
  }
}

TEST_CASE("statistics computed from constants fold once constant folding has run") {
  Weights w(kFloat32);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5, 5, 2}, "x");
    w.variance = square(w.variance) + constant(0.25f);  // nodes, not Consts, until folded
    identity(relu(BuildLayer(Layer{}, x, w).y), OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(g, {}, {{"x", Input(kFloat32)}}, {"out"}, 1e-5);
  CHECK(result.report.counter("fusion.conv2d_batch_norm") == 1);
  CHECK(testing::OpCounts(result.graph).at("_FusedConv2D") == 1);
}

TEST_CASE("training mode, variable statistics and a variable filter do not fold, with reasons") {
  auto training = FoldLayer(Layer{.is_training = true});
  CHECK(training.report.counter("fusion.conv2d_batch_norm") == 0);
  CHECK_THAT(MissedReasons(training.report), Catch::Contains("bn: is_training"));

  Weights w(kFloat32);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5, 5, 2}, "x");
    const Tensor variance = w.variance;
    w.mean = placeholder(kFloat32, {kChannels}, "mean");
    Tensor y = BuildLayer(Layer{}, x, w).y;
    identity(y, OpSite("out1"));
    Tensor filter = placeholder(kFloat32, {3, 3, 2, kChannels}, "filter");
    y = fused_batch_norm(conv2d(x, filter, {1, 1, 1, 1}, "SAME"), w.scale, w.offset, variance,
                         variance, 1e-3f, false, OpSite("bn2"))
            .y;
    identity(y, OpSite("out2"));
  }
  const FeedList feeds = {{"x", Input(kFloat32)},
                          {"mean", random_normal({kChannels}, 7)},
                          {"filter", Weights(kFloat32).filter}};
  auto result = testing::OptimizeAndCompare(g, {}, feeds, {"out1", "out2"}, 1e-5);
  CHECK(result.report.counter("fusion.conv2d_batch_norm") == 0);
  CHECK(testing::OpCounts(result.graph).at("FusedBatchNormV3") == 2);
  const std::string whys = MissedReasons(result.report);
  CHECK_THAT(whys, Catch::Contains("bn: its mean is not a constant (node 'mean', op Placeholder)"));
  CHECK_THAT(whys, Catch::Contains("bn2: its convolution's filter is not a constant"));
}

TEST_CASE("other batch norm outputs read, a kept batch norm or a shared convolution stop it") {
  // Three layers with different weights, so that CSE merges none of them.
  const Weights p(kFloat32), p2(kFloat32, kFloat32, 20), p3(kFloat32, kFloat32, 30);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5, 5, 2}, "x");
    FusedBatchNormResult r = BuildLayer(Layer{}, x, p);
    identity(r.y, OpSite("out1"));
    identity(r.batch_mean, OpSite("stats"));  // output 1 is read
    Tensor conv = conv2d(x, p2.filter, {1, 1, 1, 1}, "SAME", {1, 1, 1, 1}, OpSite("conv2"));
    Tensor y = fused_batch_norm(conv, p2.scale, p2.offset, p2.mean, p2.variance, 1e-3f, false,
                                OpSite("bn2"))
                   .y;
    identity(y + conv, OpSite("out2"));  // the convolution is read twice
    fused_batch_norm(conv2d(x, p3.filter, {1, 1, 1, 1}, "SAME"), p3.scale, p3.offset, p3.mean,
                     p3.variance, 1e-3f, false, OpSite("bn3"));  // fetched itself
  }
  auto result = testing::OptimizeAndCompare(g, {}, {{"x", Input(kFloat32)}},
                                            {"out1", "stats", "out2", "bn3"}, 1e-5);
  CHECK(result.report.counter("fusion.conv2d_batch_norm") == 0);
  CHECK(testing::OpCounts(result.graph).at("FusedBatchNormV3") == 3);
  const std::string whys = MissedReasons(result.report);
  INFO(whys);
  CHECK_THAT(whys, Catch::Contains("bn: its output 1 (batch_mean) is read by node 'stats'"));
  CHECK_THAT(whys, Catch::Contains("bn2: the output of node 'conv2' (Conv2D) is read by 2 nodes"));
  CHECK_THAT(whys, Catch::Contains("bn3: it is fetched or kept"));
}

TEST_CASE("bfloat16 does not fold, and the report says why") {
  const Weights w(kBFloat16, kFloat32);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kBFloat16, {-1, 5, 5, 2}, "x");
    identity(BuildLayer(Layer{.dtype = kBFloat16}, x, w).y, OpSite("out"));
  }
  PassReport report = optimize(g, PassOptions{.passes = {"fold_batch_norm"}});
  CHECK(report.counter("fusion.conv2d_batch_norm") == 0);
  CHECK_THAT(MissedReasons(report), Catch::Contains("bn: dtype bfloat16"));
}

}  // namespace
}  // namespace duet
