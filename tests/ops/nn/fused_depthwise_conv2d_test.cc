// _FusedDepthwiseConv2dNative through fused_depthwise_conv2d(): equal to DepthwiseConv2dNative ->
// BiasAdd (-> residual add) -> activation run op by op, for every supported fused_ops, channel
// multipliers 1 and 2, SAME/VALID padding, strides, dilations and dtypes; empty sums; shape and
// attr errors. (Eager equals graph: tests/graph/eager_graph_test.cc.)
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/ops/nn/fusion_reference.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

// One depthwise problem: NHWC input and [k_h, k_w, in_channels, multiplier] filter shapes.
struct DepthwiseCase {
  Shape input, filter;
};

Tensor Input(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 7, 17, 8, 7));
}
Tensor Filter(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 5, 13, 6, 5));
}
Tensor Bias(DType dt, int64_t n) { return MakeTensor(dt, {n}, ModPattern(n, 5, 11, 5, 2)); }

// Checks fused_depthwise_conv2d against the unfused ops for one problem.
void ExpectMatchesUnfused(DType dt, const DepthwiseCase& c, int64_t stride, const char* padding,
                          int64_t dilation, const std::vector<std::string>& fused_ops, double tol) {
  INFO(DTypeName(dt) << " input " << c.input.str() << " filter " << c.filter.str() << " stride "
                     << stride << " " << padding << " dilation " << dilation << " fused_ops "
                     << fused_ops.back());
  const Tensor x = Input(dt, c.input), f = Filter(dt, c.filter);
  const Tensor product = depthwise_conv2d(x, f, {stride}, padding, {dilation});
  const auto args =
      testing::FusionArgs(fused_ops, Bias(dt, c.filter[2] * c.filter[3]), product.shape());
  testing::ExpectTensorNear(
      fused_depthwise_conv2d(x, f, args, fused_ops, {stride}, padding, {dilation}),
      testing::UnfusedEpilogue(product, args, fused_ops), tol);
}

// Multipliers 1 (MobileNet's) and 2.
const std::vector<DepthwiseCase> kCases = {{{1, 5, 4, 3}, {3, 3, 3, 1}},
                                           {{2, 9, 8, 5}, {3, 3, 5, 2}}};

TEST_CASE("_FusedDepthwiseConv2dNative equals the depthwise convolution, BiasAdd and activation") {
  for (DType dt : {kFloat32, kFloat64}) {
    const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
    for (const auto& fused_ops : testing::SupportedFusedOps()) {
      for (const DepthwiseCase& c : kCases) {
        for (const char* padding : {"SAME", "VALID"}) {
          for (int64_t stride : {1, 2})
            ExpectMatchesUnfused(dt, c, stride, padding, 1, fused_ops, tol);
        }
      }
      ExpectMatchesUnfused(dt, {{1, 7, 6, 3}, {2, 2, 3, 2}}, 1, "SAME", 2, fused_ops, tol);
    }
  }
}

TEST_CASE("bfloat16 _FusedDepthwiseConv2dNative rounds once where the unfused ops round 3 times") {
  for (const auto& fused_ops : testing::SupportedFusedOps()) {
    ExpectMatchesUnfused(kBFloat16, kCases[1], 1, "SAME", 1, fused_ops, 2e-2);
    ExpectMatchesUnfused(kBFloat16, kCases[1], 2, "VALID", 1, fused_ops, 2e-2);
  }
}

TEST_CASE("_FusedDepthwiseConv2dNative with no input channels is empty") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor x = MakeTensor(dt, {1, 2, 1, 0}, {}), f = MakeTensor(dt, {1, 1, 0, 3}, {});
    const Tensor y =
        fused_depthwise_conv2d(x, f, {MakeTensor(dt, {0}, {})}, {"BiasAdd", "Relu"}, {1}, "VALID");
    CHECK(y.shape() == Shape{1, 2, 1, 0});
  }
}

TEST_CASE("_FusedDepthwiseConv2dNative rejects fusions, biases, arg counts and attrs it lacks") {
  const Tensor x = Input(kFloat32, {1, 5, 4, 2}), f = Filter(kFloat32, {3, 3, 2, 2});
  const Tensor bias = Bias(kFloat32, 4);
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{},
                                             {"Relu6"},
                                             {"BiasAdd", "Softplus"},
                                             {"FusedBatchNorm"},
                                             {"BiasAdd", "Relu", "Relu"}}) {
    testing::ExpectError([&] { fused_depthwise_conv2d(x, f, {bias}, bad, {1}, "SAME"); },
                         {"_FusedDepthwiseConv2dNative", "fused_ops", "is not supported", "Sigmoid",
                          "(1, 5, 4, 2)", "(3, 3, 2, 2)"});
  }
  // The output has in_channels * multiplier = 4 channels, not the filter's last dim.
  testing::ExpectError(
      [&] { fused_depthwise_conv2d(x, f, {Bias(kFloat32, 2)}, {"BiasAdd"}, {1}, "SAME"); },
      {"_FusedDepthwiseConv2dNative", "bias", "(1, 5, 4, 4)", "got shape (2,)"});
  testing::ExpectError(
      [&] {
        fused_depthwise_conv2d(x, f, {}, {"BiasAdd", "Relu"}, {1}, "SAME");
      },
      {"_FusedDepthwiseConv2dNative", "takes 1 arg (the bias)", "num_args=0"});
  testing::ExpectError(
      [&] {
        fused_depthwise_conv2d(x, f, {bias, bias}, {"BiasAdd", "Relu"}, {1}, "SAME");
      },
      {"_FusedDepthwiseConv2dNative", "takes 1 arg (the bias)", "num_args=2"});
  // TensorFlow's op has no explicit_paddings.
  testing::ExpectError([&] { fused_depthwise_conv2d(x, f, {bias}, {"BiasAdd"}, {1}, "EXPLICIT"); },
                       {"_FusedDepthwiseConv2dNative", "attr 'padding' is \"EXPLICIT\""});
  testing::ExpectError(
      [&] {
        fused_depthwise_conv2d(x, Filter(kFloat32, {3, 3, 3, 2}), {bias}, {"BiasAdd"}, {1}, "SAME");
      },
      {"_FusedDepthwiseConv2dNative", "has 2 channels but filter (3, 3, 3, 2) expects 3"});
  testing::ExpectError(
      [&] {
        fused_depthwise_conv2d(x, f, {bias}, {"BiasAdd"}, {2, 1, 1, 1}, "SAME");
      },
      {"_FusedDepthwiseConv2dNative", "strides must be [1, height, width, 1]"});
}

TEST_CASE("_FusedDepthwiseConv2dNative accepts only NHWC data") {
  const OpDef* op = OpRegistry::Global().Find("_FusedDepthwiseConv2dNative");
  REQUIRE(op != nullptr);
  OpCall call(op,
              {Input(kFloat32, {1, 5, 4, 2}), Filter(kFloat32, {3, 3, 2, 1}), Bias(kFloat32, 2)},
              OpSite());
  call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1};
  call.attrs[op->attr_index("padding")] = std::string("SAME");
  call.attrs[op->attr_index("fused_ops")] = std::vector<std::string>{"BiasAdd"};
  call.attrs[op->attr_index("data_format")] = std::string("NCHW");
  testing::ExpectError([&] { RunSingleOutputOp(call); },
                       {"_FusedDepthwiseConv2dNative", "attr 'data_format' is \"NCHW\"", "NHWC"});
}

}  // namespace
}  // namespace duet
