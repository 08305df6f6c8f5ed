// Convolution layers over NHWC (or NCHW: ConvOptions::data_format) images: Conv2D (strides,
// SAME/VALID, dilation, groups), DepthwiseConv2D and Conv2DTranspose, with Keras' kernel layouts
// and defaults.
#pragma once

#include <cstdint>
#include <string>

#include "nn/activation.h"
#include "nn/initializers.h"
#include "nn/layer.h"
#include "ops/nn/nn_ops.h"

namespace duet::nn {

// A height and width: `3` means 3x3, `{3, 1}` 3x1.
struct Size2 {
  Size2(int64_t both) : h(both), w(both) {}  // NOLINT(google-explicit-constructor)
  Size2(int64_t h, int64_t w) : h(h), w(w) {}
  int64_t h, w;
};

struct ConvOptions {
  Size2 strides = 1;
  std::string padding = "valid";  // "valid" or "same" (either case)
  Size2 dilation_rate = 1;
  int64_t groups = 1;  // Conv2D: input channels split into this many groups
  Activation activation = Activation::kLinear;
  bool use_bias = true;
  Initializer kernel_initializer;  // empty: glorot_uniform
  Initializer bias_initializer;    // empty: zeros
  // kChannelsFirst: images (N, C, H, W), the ops' channels-first form (Conv2D and
  // DepthwiseConv2D; Conv2DTranspose is channels-last only).
  DataFormat data_format = DataFormat::kChannelsLast;
};

// What the three convolution layers share: NHWC input of a fixed channel count, a kernel and an
// optional bias, ConvOptions with the padding checked and the initializers filled in.
class ConvLayer : public Layer {
 public:
  const Variable& kernel() const { return kernel_; }
  const Variable& bias() const { return bias_; }

 protected:
  ConvLayer(Module* parent, std::string name, Size2 kernel_size, ConvOptions options);
  InputSpec input_spec() const override { return {.rank = 4, .fixed_last_dim = !channels_first()}; }
  bool channels_first() const { return options_.data_format == DataFormat::kChannelsFirst; }
  // The channel dim of an input: 1 channels-first, else 3.
  int channel_axis() const { return channels_first() ? 1 : 3; }
  // Makes kernel [kh, kw, in, out] and, with use_bias, bias [bias_size].
  void MakeVariables(int64_t in, int64_t out, int64_t bias_size);
  // bias_add (with use_bias), then the activation.
  Tensor Finish(const Tensor& y, const OpSite& site) const;

  Size2 kernel_size_;
  ConvOptions options_;
  Variable kernel_, bias_;
};

// kernel [kh, kw, in_channels / groups, filters], bias [filters]. groups == in_channels runs as
// one DepthwiseConv2dNative; other groups as one Conv2D per group.
class Conv2D : public ConvLayer {
 public:
  Conv2D(Module* parent, std::string name, int64_t filters, Size2 kernel_size,
         ConvOptions options = {});
  Conv2D(int64_t filters, Size2 kernel_size, ConvOptions options = {});

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  int64_t filters_;
};

// kernel [kh, kw, in_channels, depth_multiplier] (op DepthwiseConv2dNative), bias
// [in_channels * depth_multiplier]. ConvOptions::groups is ignored.
class DepthwiseConv2D : public ConvLayer {
 public:
  DepthwiseConv2D(Module* parent, std::string name, Size2 kernel_size, int64_t depth_multiplier = 1,
                  ConvOptions options = {});
  DepthwiseConv2D(Size2 kernel_size, int64_t depth_multiplier = 1, ConvOptions options = {});

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  int64_t depth_multiplier_;
};

// The transpose (gradient) of a Conv2D: kernel [kh, kw, filters, in_channels] (op
// Conv2DBackpropInput). Output size per spatial dim: in * stride (same) or
// (in - 1) * stride + dilated kernel (valid). Needs a known batch size (the op takes the output
// shape as an attr). ConvOptions::groups must be 1.
class Conv2DTranspose : public ConvLayer {
 public:
  Conv2DTranspose(Module* parent, std::string name, int64_t filters, Size2 kernel_size,
                  ConvOptions options = {});
  Conv2DTranspose(int64_t filters, Size2 kernel_size, ConvOptions options = {});

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  int64_t filters_;
};

}  // namespace duet::nn
