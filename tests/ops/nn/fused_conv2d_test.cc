// _FusedConv2D through fused_conv2d(): equal to Conv2D -> BiasAdd (-> residual add) -> activation
// run op by op, for every supported fused_ops, SAME/VALID/EXPLICIT padding, strides, dilations,
// several shapes and dtypes; empty sums; shape and attr errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/ops/nn/fusion_reference.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

// One convolution problem: NHWC input and HWIO filter shapes.
struct ConvCase {
  Shape input, filter;
};

Tensor Input(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 7, 17, 8, 7));
}
Tensor Filter(DType dt, const Shape& s) {
  return MakeTensor(dt, s, ModPattern(s.num_elements(), 5, 13, 6, 5));
}
Tensor Bias(DType dt, int64_t n) { return MakeTensor(dt, {n}, ModPattern(n, 5, 11, 5, 2)); }

// Checks fused_conv2d against the unfused ops for one problem.
void ExpectMatchesUnfused(DType dt, const ConvCase& c, int64_t stride, const char* padding,
                          int64_t dilation, const std::vector<std::string>& fused_ops, double tol) {
  INFO(DTypeName(dt) << " input " << c.input.str() << " filter " << c.filter.str() << " stride "
                     << stride << " " << padding << " dilation " << dilation << " fused_ops "
                     << fused_ops.back());
  const Tensor x = Input(dt, c.input), f = Filter(dt, c.filter);
  const Tensor product = conv2d(x, f, {stride}, padding, {dilation});
  const auto args = testing::FusionArgs(fused_ops, Bias(dt, c.filter[3]), product.shape());
  testing::ExpectTensorNear(fused_conv2d(x, f, args, fused_ops, {stride}, padding, {dilation}),
                            testing::UnfusedEpilogue(product, args, fused_ops), tol);
}

const std::vector<ConvCase> kCases = {{{1, 5, 4, 2}, {3, 3, 2, 2}}, {{2, 9, 8, 5}, {3, 3, 5, 7}}};

TEST_CASE("_FusedConv2D equals Conv2D, BiasAdd, the residual add and activation for every fusion") {
  for (DType dt : {kFloat32, kFloat64}) {
    const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
    for (const auto& fused_ops : testing::SupportedFusedOps()) {
      for (const ConvCase& c : kCases) {
        for (const char* padding : {"SAME", "VALID"}) {
          for (int64_t stride : {1, 2})
            ExpectMatchesUnfused(dt, c, stride, padding, 1, fused_ops, tol);
        }
      }
      ExpectMatchesUnfused(dt, {{1, 7, 6, 3}, {2, 2, 3, 4}}, 1, "SAME", 2, fused_ops, tol);
      ExpectMatchesUnfused(dt, {{3, 4, 4, 8}, {1, 1, 8, 16}}, 1, "VALID", 1, fused_ops, tol);
    }
  }
}

TEST_CASE("bfloat16 _FusedConv2D rounds once where the unfused ops round three times") {
  for (const auto& fused_ops : testing::SupportedFusedOps()) {
    ExpectMatchesUnfused(kBFloat16, kCases[1], 1, "SAME", 1, fused_ops, 2e-2);
    ExpectMatchesUnfused(kBFloat16, kCases[1], 2, "VALID", 1, fused_ops, 2e-2);
  }
}

TEST_CASE("_FusedConv2D with EXPLICIT padding equals Conv2D with the same padding") {
  const std::vector<int64_t> pads = {0, 0, 2, 0, 1, 3, 0, 0};
  for (DType dt : {kFloat32, kFloat64}) {
    INFO(DTypeName(dt));
    const Tensor x = Input(dt, {1, 5, 4, 2}), f = Filter(dt, {3, 3, 2, 2}), bias = Bias(dt, 2);
    const std::vector<std::string> fused_ops = {"BiasAdd", "Elu"};
    testing::ExpectTensorNear(
        fused_conv2d(x, f, {bias}, fused_ops, {1}, "EXPLICIT", {1}, pads),
        testing::UnfusedEpilogue(conv2d_explicit_padding(x, f, {1, 1, 1, 1}, pads), {bias},
                                 fused_ops),
        1e-5);
  }
}

TEST_CASE("_FusedConv2D with no input channels is the activation of the bias") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor x = MakeTensor(dt, {1, 2, 1, 0}, {}), f = MakeTensor(dt, {1, 1, 0, 3}, {});
    const Tensor bias = MakeTensor(dt, {3}, {-1.5, 0.5, 7});
    testing::ExpectTensor(fused_conv2d(x, f, {bias}, {"BiasAdd", "Relu"}, {1}, "VALID"), dt,
                          {1, 2, 1, 3}, {0, 0.5, 7, 0, 0.5, 7});
  }
}

TEST_CASE("_FusedConv2D with no input channels adds the residual to the bias") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO(DTypeName(dt));
    const Tensor x = MakeTensor(dt, {1, 2, 1, 0}, {}), f = MakeTensor(dt, {1, 1, 0, 3}, {});
    const Tensor bias = MakeTensor(dt, {3}, {-1.5, 0.5, 7});
    const Tensor residual = MakeTensor(dt, {1, 2, 1, 3}, {1, -1, 2, 3, 0.5, -8});
    testing::ExpectTensor(
        fused_conv2d(x, f, {bias, residual}, {"BiasAdd", "Add", "Relu"}, {1}, "VALID"), dt,
        {1, 2, 1, 3}, {0, 0, 9, 1.5, 1, 0});
  }
}

TEST_CASE("_FusedConv2D rejects fusions, biases, arg counts and attrs it does not run") {
  const Tensor x = Input(kFloat32, {1, 5, 4, 2}), f = Filter(kFloat32, {3, 3, 2, 2});
  const Tensor bias = Bias(kFloat32, 2);
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{},
                                             {"Relu"},
                                             {"BiasAdd", "Softplus"},
                                             {"FusedBatchNorm"},
                                             {"BiasAdd", "Relu", "Relu"},
                                             {"Add"},
                                             {"BiasAdd", "Relu", "Add"},
                                             {"BiasAdd", "Add", "Add"}}) {
    testing::ExpectError([&] { fused_conv2d(x, f, {bias}, bad, {1}, "SAME"); },
                         {"_FusedConv2D", "fused_ops", "is not supported", "Sigmoid",
                          "(1, 5, 4, 2)", "(3, 3, 2, 2)"});
  }
  testing::ExpectError([&] { fused_conv2d(x, f, {Bias(kFloat32, 3)}, {"BiasAdd"}, {1}, "SAME"); },
                       {"_FusedConv2D", "bias", "(1, 5, 4, 2)", "got shape (3,)"});
  testing::ExpectError(
      [&] {
        fused_conv2d(x, f, {}, {"BiasAdd", "Relu"}, {1}, "SAME");
      },
      {"_FusedConv2D", "takes 1 arg (the bias)", "num_args=0"});
  testing::ExpectError(
      [&] {
        fused_conv2d(x, f, {bias, bias}, {"BiasAdd", "Relu"}, {1}, "SAME");
      },
      {"_FusedConv2D", "takes 1 arg (the bias)", "num_args=2"});
  testing::ExpectError(
      [&] {
        fused_conv2d(x, f, {bias}, {"BiasAdd", "Add", "Relu"}, {1}, "SAME");
      },
      {"_FusedConv2D", "takes 2 args (the bias and the residual)", "num_args=1"});
  testing::ExpectError(
      [&] {
        fused_conv2d(x, f, {bias, Input(kFloat32, {1, 5, 4, 1})}, {"BiasAdd", "Add"}, {1}, "SAME");
      },
      {"_FusedConv2D", "residual", "output's shape (1, 5, 4, 2)", "got shape (1, 5, 4, 1)"});
  testing::ExpectError([&] { fused_conv2d(x, f, {bias}, {"BiasAdd"}, {1}, "FULL"); },
                       {"_FusedConv2D", "attr 'padding' is \"FULL\""});
  testing::ExpectError(
      [&] {
        fused_conv2d(x, Filter(kFloat32, {3, 3, 3, 2}), {bias}, {"BiasAdd"}, {1}, "SAME");
      },
      {"_FusedConv2D", "has 2 channels but filter (3, 3, 3, 2) expects a multiple of 3"});
  testing::ExpectError(
      [&] {
        fused_conv2d(x, f, {bias}, {"BiasAdd"}, {2, 1, 1, 1}, "SAME");
      },
      {"_FusedConv2D", "strides must be [1, height, width, 1]"});
}

TEST_CASE("_FusedConv2D accepts only NHWC data") {
  const OpDef* op = OpRegistry::Global().Find("_FusedConv2D");
  REQUIRE(op != nullptr);
  OpCall call(op,
              {Input(kFloat32, {1, 5, 4, 2}), Filter(kFloat32, {3, 3, 2, 2}), Bias(kFloat32, 2)},
              OpSite());
  call.attrs[op->attr_index("strides")] = std::vector<int64_t>{1, 1, 1, 1};
  call.attrs[op->attr_index("padding")] = std::string("SAME");
  call.attrs[op->attr_index("fused_ops")] = std::vector<std::string>{"BiasAdd"};
  call.attrs[op->attr_index("data_format")] = std::string("NCHW");
  testing::ExpectError([&] { RunSingleOutputOp(call); },
                       {"_FusedConv2D", "attr 'data_format' is \"NCHW\"", "NHWC"});
}

}  // namespace
}  // namespace duet
