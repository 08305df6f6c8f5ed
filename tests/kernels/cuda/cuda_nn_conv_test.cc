// CUDA Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D, DepthwiseConv2dNative,
// _FusedDepthwiseConv2dNative and its backprops (cuDNN; grouped convolutions for the depthwise
// ops), Conv3D and its backprops (cuDNN's Nd descriptors) against the CPU kernels.
//
// Tolerances: float32 1e-4 (cuDNN's algorithms, FMA math only, sum in a different order than
// oneDNN over windows of up to a few hundred terms); float64 1e-10; bfloat16 5e-2.
#include <catch2/catch.hpp>

#include "absl/strings/str_join.h"
#include "duet.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_backprop_ops.h"
#include "tests/cuda_test_util.h"
#include "tests/ops/nn/fusion_reference.h"

namespace duet {
namespace {

Tensor Random(const Shape& shape, int seed, DType dtype) {
  const Tensor t = random_uniform(shape, seed, dtype == kFloat64 ? kFloat64 : kFloat32, -1, 1);
  return dtype == kBFloat16 ? cast(t, kBFloat16) : t;
}

double Tol(DType dtype) { return dtype == kFloat64 ? 1e-10 : dtype == kBFloat16 ? 5e-2 : 1e-4; }

struct ConvCase {
  Shape input, filter;
  std::vector<int64_t> strides, dilations;
  std::string padding;
  std::vector<int64_t> explicit_paddings;  // for EXPLICIT
};

// SAME with symmetric and asymmetric (odd total) padding, VALID, strides, dilations, EXPLICIT
// with unequal sides, a large case, an empty batch and an empty image padded to a non-empty one.
std::vector<ConvCase> Cases() {
  return {
      {{2, 7, 9, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{2, 8, 8, 3}, {2, 2, 3, 5}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},  // pads 0 before, 1
                                                                             // after
      {{1, 10, 11, 2}, {3, 2, 2, 3}, {1, 2, 3, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{3, 9, 9, 4}, {3, 3, 4, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", {}},
      {{1, 12, 12, 2}, {3, 3, 2, 3}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME", {}},
      {{2, 6, 7, 3},
       {3, 3, 3, 2},
       {1, 1, 1, 1},
       {1, 1, 1, 1},
       "EXPLICIT",
       {0, 0, 2, 0, 1, 3, 0, 0}},
      {{4, 32, 32, 16}, {3, 3, 16, 32}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{0, 5, 5, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      // No rows, padded to two: zeros (cuDNN rejects an empty dim, so the kernel must not ask it).
      {{2, 0, 3, 2},
       {1, 1, 2, 3},
       {1, 1, 1, 1},
       {1, 1, 1, 1},
       "EXPLICIT",
       {0, 0, 1, 1, 0, 0, 0, 0}},
      // Grouped (issue 37): 4 input channels over the filter's 2, 2 groups of 3 and of 2 outputs.
      {{2, 7, 9, 4}, {3, 3, 2, 6}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{1, 9, 8, 6}, {2, 3, 2, 6}, {1, 2, 1, 1}, {1, 1, 1, 1}, "VALID", {}},
  };
}

// One convolution family's three ops, as the cases call them.
struct ConvOps {
  Tensor (*forward)(const ConvCase& c, const Tensor& x, const Tensor& w);
  Tensor (*backprop_input)(const ConvCase& c, const Tensor& w, const Tensor& dy);
  Tensor (*backprop_filter)(const ConvCase& c, const Tensor& x, const Tensor& dy);
};

// The forward op and both gradients on the GPU against the CPU, for every case and dtype.
void ExpectConvOpsOnDeviceMatchCpu(const ConvOps& ops, const std::vector<ConvCase>& cases,
                                   int seed) {
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const ConvCase& c : cases) {
      INFO(DTypeName(dtype) << " input " << c.input.str() << " filter " << c.filter.str() << " "
                            << c.padding);
      const Tensor x = Random(c.input, seed++, dtype);
      const Tensor w = Random(c.filter, seed++, dtype);
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{ops.forward(c, in[0], in[1])};
          },
          {x, w}, Tol(dtype));
      const Tensor dy = Random(ops.forward(c, x, w).shape(), seed++, dtype);
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{ops.backprop_input(c, in[0], in[1])};
          },
          {w, dy}, Tol(dtype));
      testing::ExpectDeviceMatchesCpu(
          [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{ops.backprop_filter(c, in[0], in[1])};
          },
          {x, dy}, Tol(dtype) * 4);  // filter gradients sum over batch and positions
    }
  }
}

TEST_CASE("CUDA Conv2D and its gradients match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  const ConvOps ops = {
      [](const ConvCase& c, const Tensor& x, const Tensor& w) {
        if (c.padding == "EXPLICIT")
          return conv2d_explicit_padding(x, w, c.strides, c.explicit_paddings, c.dilations);
        return conv2d(x, w, c.strides, c.padding, c.dilations);
      },
      [](const ConvCase& c, const Tensor& w, const Tensor& dy) {
        return conv2d_backprop_input(c.input, w, dy, c.strides, c.padding, c.dilations,
                                     c.explicit_paddings);
      },
      [](const ConvCase& c, const Tensor& x, const Tensor& dy) {
        return conv2d_backprop_filter(x, c.filter, dy, c.strides, c.padding, c.dilations,
                                      c.explicit_paddings);
      },
  };
  ExpectConvOpsOnDeviceMatchCpu(ops, Cases(), 1);
}

// Depthwise: multipliers 1 to 3, one input channel (cuDNN's plain convolution), SAME with an odd
// padding total, unequal strides, dilation, EXPLICIT, a larger case, an empty batch and an empty
// image padded to a non-empty one. Filters are [h, w, in_c, multiplier].
std::vector<ConvCase> DepthwiseCases() {
  return {
      {{2, 7, 9, 3}, {3, 3, 3, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{2, 8, 8, 4}, {2, 2, 4, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{1, 10, 11, 1}, {3, 2, 1, 3}, {1, 2, 3, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{3, 9, 9, 4}, {3, 3, 4, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", {}},
      {{1, 12, 12, 2}, {3, 3, 2, 3}, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME", {}},
      {{2, 6, 7, 3},
       {3, 3, 3, 2},
       {1, 1, 1, 1},
       {1, 1, 1, 1},
       "EXPLICIT",
       {0, 0, 2, 0, 1, 3, 0, 0}},
      {{4, 32, 32, 32}, {3, 3, 32, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{0, 5, 5, 2}, {3, 3, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME", {}},
      {{2, 3, 0, 2},
       {1, 1, 2, 2},
       {1, 1, 1, 1},
       {1, 1, 1, 1},
       "EXPLICIT",
       {0, 0, 0, 0, 1, 1, 0, 0}},
  };
}

TEST_CASE("CUDA DepthwiseConv2dNative and its gradients match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  const ConvOps ops = {
      [](const ConvCase& c, const Tensor& x, const Tensor& w) {
        if (c.padding == "EXPLICIT") {
          return depthwise_conv2d_explicit_padding(x, w, c.strides, c.explicit_paddings,
                                                   c.dilations);
        }
        return depthwise_conv2d(x, w, c.strides, c.padding, c.dilations);
      },
      [](const ConvCase& c, const Tensor& w, const Tensor& dy) {
        return depthwise_conv2d_backprop_input(c.input, w, dy, c.strides, c.padding, c.dilations,
                                               c.explicit_paddings);
      },
      [](const ConvCase& c, const Tensor& x, const Tensor& dy) {
        return depthwise_conv2d_backprop_filter(x, c.filter, dy, c.strides, c.padding, c.dilations,
                                                c.explicit_paddings);
      },
  };
  ExpectConvOpsOnDeviceMatchCpu(ops, DepthwiseCases(), 300);
}

// Conv3D: SAME with symmetric and asymmetric padding, VALID with strides, dilations, a larger case
// and an empty batch. Filters are DHWIO.
std::vector<ConvCase> Conv3DCases() {
  return {
      {{2, 5, 7, 6, 3}, {3, 3, 3, 3, 4}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME", {}},
      {{2, 6, 5, 6, 2}, {2, 2, 3, 2, 3}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME", {}},
      {{1, 7, 8, 9, 2}, {3, 2, 2, 2, 3}, {1, 2, 1, 3, 1}, {1, 1, 1, 1, 1}, "SAME", {}},
      {{3, 7, 7, 7, 4}, {3, 3, 3, 4, 2}, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID", {}},
      {{1, 9, 8, 8, 2}, {2, 3, 3, 2, 3}, {1, 1, 1, 1, 1}, {1, 2, 1, 2, 1}, "SAME", {}},
      {{2, 16, 16, 16, 8}, {3, 3, 3, 8, 16}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME", {}},
      {{0, 4, 4, 4, 2}, {3, 3, 3, 2, 2}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME", {}},
  };
}

TEST_CASE("CUDA Conv3D and its gradients match the CPU") {
  if (testing::SkipWithoutTestDevice()) return;
  const ConvOps ops = {
      [](const ConvCase& c, const Tensor& x, const Tensor& w) {
        return conv3d(x, w, c.strides, c.padding, c.dilations);
      },
      [](const ConvCase& c, const Tensor& w, const Tensor& dy) {
        return conv3d_backprop_input(c.input, w, dy, c.strides, c.padding, c.dilations);
      },
      [](const ConvCase& c, const Tensor& x, const Tensor& dy) {
        return conv3d_backprop_filter(x, c.filter, dy, c.strides, c.padding, c.dilations);
      },
  };
  ExpectConvOpsOnDeviceMatchCpu(ops, Conv3DCases(), 700);
}

// A fused convolution of (input, filter, args, fused_ops), stride 2, SAME padding.
using FusedConvFn = Tensor (*)(const Tensor& x, const Tensor& filter, absl::Span<const Tensor> args,
                               const std::vector<std::string>& fused_ops);

// Checks `conv` on the GPU against the CPU for a bias alone, a bias and a residual, and every
// activation after them; the input is (2, 9, 8, 3), so the output is (2, 5, 4, out_channels).
void ExpectFusedConvMatchesCpu(FusedConvFn conv, const Shape& filter, int64_t out_channels,
                               int seed) {
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const std::vector<std::string>& ops : testing::SupportedFusedOps()) {
      INFO(DTypeName(dtype) << " " << absl::StrJoin(ops, ", "));
      std::vector<Tensor> inputs = {Random({2, 9, 8, 3}, seed++, dtype),
                                    Random(filter, seed++, dtype)};
      for (const Tensor& arg : testing::FusionArgs(ops, Random({out_channels}, seed++, dtype),
                                                   {2, 5, 4, out_channels})) {
        inputs.push_back(arg);
      }
      testing::ExpectDeviceMatchesCpu(
          [conv, ops](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{conv(in[0], in[1], absl::MakeConstSpan(in).subspan(2), ops)};
          },
          inputs, Tol(dtype));
    }
  }
}

TEST_CASE("CUDA _FusedConv2D matches the CPU for every fusion") {
  if (testing::SkipWithoutTestDevice()) return;
  ExpectFusedConvMatchesCpu(
      [](const Tensor& x, const Tensor& f, absl::Span<const Tensor> args,
         const std::vector<std::string>& ops) {
        return fused_conv2d(x, f, args, ops, {1, 2, 2, 1}, "SAME");
      },
      {3, 3, 3, 5}, 5, 500);
}

TEST_CASE("CUDA _FusedDepthwiseConv2dNative matches the CPU for every fusion") {
  if (testing::SkipWithoutTestDevice()) return;
  ExpectFusedConvMatchesCpu(
      [](const Tensor& x, const Tensor& f, absl::Span<const Tensor> args,
         const std::vector<std::string>& ops) {
        return fused_depthwise_conv2d(x, f, args, ops, {1, 2, 2, 1}, "SAME");
      },
      {3, 3, 3, 2}, 6, 600);
}

}  // namespace
}  // namespace duet
