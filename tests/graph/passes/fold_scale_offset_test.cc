// Scale and offset folding: Keras' frozen batch norm (Mul and AddV2/Sub of constant per-channel
// vectors) after a Conv2D, DepthwiseConv2dNative or MatMul goes into the filter and a bias; the
// values stay those of the unfolded graph (float32 within rounding, float64 almost exactly), and
// what must not fold does not, with a reason where it was a candidate.
#include <catch2/catch.hpp>

#include "tests/graph/passes/pass_test_util.h"
#include "tests/test_util.h"

namespace duet {
namespace {

constexpr int64_t kChannels = 4;

Tensor Random(const Shape& shape, uint64_t seed, DType dtype) {
  return cast(random_normal(shape, seed), dtype);
}

Tensor Input(DType dtype) { return Random({2, 5, 5, 2}, 3, dtype); }

// The reasons the report gives for `fold` ("fold.scale" or "fold.offset").
std::string MissedReasons(const PassReport& report, absl::string_view fold) {
  std::string whys;
  for (const MissedFusion& m : report.missed) {
    if (m.fusion == fold) whys += m.node + ": " + m.why + "\n";
  }
  return whys;
}

// relu(conv2d(x, w) + b) * m + a, as Keras freezes Conv2D + BatchNormalization + ReLU.
testing::Optimized KerasConvBlock(DType dtype) {
  const Tensor filter = Random({3, 3, 2, kChannels}, 10, dtype),
               bias = Random({kChannels}, 11, dtype), m = Random({kChannels}, 12, dtype),
               a = Random({kChannels}, 13, dtype);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(dtype, {-1, 5, 5, 2}, "x");
    Tensor y = bias_add(conv2d(x, filter, {1, 1, 1, 1}, "SAME", OpSite("conv")), bias);
    y = add(multiply(y, m, OpSite("bn/mul")), a, OpSite("bn/add"));
    identity(relu(y), OpSite("out"));
  }
  return testing::OptimizeAndCompare(g, {}, {{"x", Input(dtype)}}, {"out"},
                                     dtype == kFloat64 ? 1e-12 : 1e-5);
}

TEST_CASE("Conv2D + bias + Keras batch norm + Relu become one _FusedConv2D (float32)") {
  auto result = KerasConvBlock(kFloat32);
  CHECK(result.report.counter("fold.scale") == 1);
  CHECK(result.report.counter("fold.offset") == 1);
  CHECK(testing::OpCounts(result.graph) ==
        std::map<std::string, int>{
            {"Const", 2}, {"Identity", 1}, {"Placeholder", 1}, {"_FusedConv2D", 1}});
}

TEST_CASE("float64 folds into Conv2D + BiasAdd, almost exactly") {
  auto result = KerasConvBlock(kFloat64);
  CHECK(result.report.counter("fold.scale") == 1);
  CHECK(result.report.counter("fold.offset") == 1);
  const auto ops = testing::OpCounts(result.graph);
  CHECK(ops.count("Mul") == 0);
  CHECK(ops.count("AddV2") == 0);
  CHECK(ops.at("Conv2D") == 1);
  CHECK(ops.at("BiasAdd") == 1);
}

TEST_CASE("a depthwise convolution takes a [1, 1, 1, C] scale and a subtracted offset") {
  // Multiplier 2: output channel c * 2 + k reads filter[..., c, k].
  const Tensor filter = Random({3, 3, 2, 2}, 20, kFloat32), m = Random({1, 1, 1, 4}, 21, kFloat32),
               a = Random({4}, 22, kFloat32);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5, 5, 2}, "x");
    Tensor y = depthwise_conv2d(x, filter, {1, 1, 1, 1}, "SAME", OpSite("dw"));
    identity(relu6(subtract(multiply(m, y), a)), OpSite("out"));
  }
  auto result = testing::OptimizeAndCompare(g, {}, {{"x", Input(kFloat32)}}, {"out"}, 1e-5);
  CHECK(result.report.counter("fold.scale") == 1);
  CHECK(result.report.counter("fold.offset") == 1);
  const auto ops = testing::OpCounts(result.graph);
  CHECK(ops.count("Mul") == 0);
  CHECK(ops.count("Sub") == 0);
  // MobileNet's block end to end: fuse_bias_activation then makes the folded depthwise
  // convolution, its BiasAdd and the Relu6 one op.
  CHECK(ops.at("_FusedDepthwiseConv2dNative") == 1);
  CHECK(result.report.counter("fusion.depthwise_conv2d_bias_relu6") == 1);
}

TEST_CASE("a transposed MatMul takes a scalar scale and an offset added on the left") {
  const Tensor w = Random({kChannels, 3}, 30, kFloat64), a = Random({kChannels}, 31, kFloat64);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat64, {-1, 3}, "x");
    Tensor y = matmul(x, w, false, true, OpSite("mm"));
    identity(add(a, multiply(y, constant(2.5))), OpSite("out"));
  }
  auto result =
      testing::OptimizeAndCompare(g, {}, {{"x", Random({5, 3}, 32, kFloat64)}}, {"out"}, 1e-12);
  CHECK(result.report.counter("fold.scale") == 1);
  CHECK(result.report.counter("fold.offset") == 1);
  const auto ops = testing::OpCounts(result.graph);
  CHECK(ops.count("Mul") == 0);
  CHECK(ops.count("AddV2") == 0);
  CHECK(ops.at("MatMul") == 1);
}

TEST_CASE("what is not one value per channel, or not after a constant filter, does not fold") {
  const Tensor filter = Random({3, 3, 2, kChannels}, 40, kFloat32);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5, 5, 2}, "x");
    Tensor conv = conv2d(x, filter, {1, 1, 1, 1}, "SAME");
    // Varies along the width: not a per-channel scale.
    identity(multiply(conv, Random({1, 1, 5, kChannels}, 41, kFloat32)), OpSite("out1"));
    Tensor conv2 =
        conv2d(x, placeholder(kFloat32, {3, 3, 2, kChannels}, "filter"), {1, 1, 1, 1}, "SAME");
    identity(multiply(conv2, Random({kChannels}, 42, kFloat32)), OpSite("out2"));
    Tensor conv3 = conv2d(x, Random({3, 3, 2, kChannels}, 43, kFloat32), {1, 1, 1, 1}, "SAME");
    identity(subtract(Random({kChannels}, 44, kFloat32), conv3), OpSite("out3"));  // c - conv
  }
  const FeedList feeds = {{"x", Input(kFloat32)},
                          {"filter", Random({3, 3, 2, kChannels}, 45, kFloat32)}};
  auto result = testing::OptimizeAndCompare(g, {}, feeds, {"out1", "out2", "out3"}, 1e-5);
  CHECK(result.report.counter("fold.scale") == 0);
  CHECK(result.report.counter("fold.offset") == 0);
  const auto ops = testing::OpCounts(result.graph);
  CHECK(ops.at("Mul") == 2);
  CHECK(ops.at("Sub") == 1);
  CHECK(MissedReasons(result.report, "fold.scale").empty());  // none was a candidate
}

TEST_CASE("a shared convolution or a kept Mul stops the fold, with reasons") {
  const Tensor f1 = Random({3, 3, 2, kChannels}, 50, kFloat32),
               f2 = Random({3, 3, 2, kChannels}, 51, kFloat32),
               m = Random({kChannels}, 52, kFloat32);
  Graph g;
  {
    GraphScope scope(g);
    Tensor x = placeholder(kFloat32, {-1, 5, 5, 2}, "x");
    Tensor conv = conv2d(x, f1, {1, 1, 1, 1}, "SAME", OpSite("conv1"));
    identity(multiply(conv, m, OpSite("scale1")) + conv, OpSite("out1"));  // conv read twice
    multiply(conv2d(x, f2, {1, 1, 1, 1}, "SAME"), m, OpSite("scale2"));    // fetched itself
  }
  auto result =
      testing::OptimizeAndCompare(g, {}, {{"x", Input(kFloat32)}}, {"out1", "scale2"}, 1e-5);
  CHECK(result.report.counter("fold.scale") == 0);
  const std::string whys = MissedReasons(result.report, "fold.scale");
  INFO(whys);
  CHECK_THAT(whys,
             Catch::Contains("scale1: the output of node 'conv1' (Conv2D) is read by 2 nodes"));
  CHECK_THAT(whys, Catch::Contains("scale2: it is fetched or kept"));
}

}  // namespace
}  // namespace duet
