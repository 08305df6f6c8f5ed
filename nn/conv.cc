#include "nn/conv.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "ops/array/array_ops.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"

namespace duet::nn {
namespace {

std::string Padding(const std::string& padding) {
  const std::string upper = absl::AsciiStrToUpper(padding);
  if (upper != "SAME" && upper != "VALID") {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("padding must be \"valid\" or \"same\", got \"", padding, "\"")));
  }
  return upper;
}

std::vector<int64_t> Strides(const ConvOptions& o) { return {o.strides.h, o.strides.w}; }
std::vector<int64_t> Dilations(const ConvOptions& o) {
  return {o.dilation_rate.h, o.dilation_rate.w};
}

}  // namespace

ConvLayer::ConvLayer(Module* parent, std::string name, Size2 kernel_size, ConvOptions options)
    : Layer(parent, std::move(name)), kernel_size_(kernel_size), options_(std::move(options)) {
  options_.padding = Padding(options_.padding);
  if (!options_.kernel_initializer) options_.kernel_initializer = initializers::glorot_uniform();
  if (!options_.bias_initializer) options_.bias_initializer = initializers::zeros();
}

void ConvLayer::MakeVariables(int64_t in, int64_t out, int64_t bias_size) {
  kernel_ = add_variable("kernel", Shape{kernel_size_.h, kernel_size_.w, in, out}, dtype(),
                         options_.kernel_initializer);
  if (options_.use_bias) {
    bias_ = add_variable("bias", Shape{bias_size}, dtype(), options_.bias_initializer);
  }
}

Tensor ConvLayer::Finish(const Tensor& y, const OpSite& site) const {
  const Tensor biased = options_.use_bias ? bias_add(y, bias_, options_.data_format, site) : y;
  return activate(options_.activation, biased, site);
}

Conv2D::Conv2D(Module* parent, std::string name, int64_t filters, Size2 kernel_size,
               ConvOptions options)
    : ConvLayer(parent, std::move(name), kernel_size, std::move(options)), filters_(filters) {
  if (options_.groups < 1 || filters_ % options_.groups != 0) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "Conv2D: filters (", filters_, ") must be a multiple of groups (", options_.groups, ")")));
  }
}

Conv2D::Conv2D(int64_t filters, Size2 kernel_size, ConvOptions options)
    : Conv2D(nullptr, "conv2d", filters, kernel_size, std::move(options)) {}

void Conv2D::build(const Shape& input_shape) {
  const int64_t in = input_shape.dim(channel_axis());
  if (in % options_.groups != 0) {
    Fail(absl::StrCat("has groups = ", options_.groups, ", which does not divide the input's ", in,
                      " channels (input shape ", input_shape.str(), ")"),
         OpSite());
  }
  MakeVariables(in / options_.groups, filters_, filters_);
}

Tensor Conv2D::call(const Tensor& x, bool, OpSite site) {
  const int64_t in = x.shape().dim(channel_axis()), groups = options_.groups;
  const DataFormat format = options_.data_format;
  Tensor y;
  if (groups == 1) {
    y = conv2d(x, kernel_, Strides(options_), options_.padding, format, Dilations(options_), site);
  } else if (groups == in) {
    // One group per channel is a depthwise convolution; Keras' grouped kernel
    // [kh, kw, 1, filters] is the depthwise filter [kh, kw, in, filters / in] in memory.
    const Tensor filter = reshape(kernel_.value(site),
                                  Shape{kernel_size_.h, kernel_size_.w, in, filters_ / in}, site);
    y = depthwise_conv2d(x, filter, Strides(options_), options_.padding, format,
                         Dilations(options_), site);
  } else {
    const std::vector<Tensor> xs = split(x, groups, channel_axis(), site);
    const std::vector<Tensor> ks = split(kernel_.value(site), groups, 3, site);
    std::vector<Tensor> ys;
    for (int64_t g = 0; g < groups; ++g) {
      ys.push_back(conv2d(xs[g], ks[g], Strides(options_), options_.padding, format,
                          Dilations(options_), site));
    }
    y = concat(ys, channel_axis(), site);
  }
  return Finish(y, site);
}

DepthwiseConv2D::DepthwiseConv2D(Module* parent, std::string name, Size2 kernel_size,
                                 int64_t depth_multiplier, ConvOptions options)
    : ConvLayer(parent, std::move(name), kernel_size, std::move(options)),
      depth_multiplier_(depth_multiplier) {}

DepthwiseConv2D::DepthwiseConv2D(Size2 kernel_size, int64_t depth_multiplier, ConvOptions options)
    : DepthwiseConv2D(nullptr, "depthwise_conv2d", kernel_size, depth_multiplier,
                      std::move(options)) {}

void DepthwiseConv2D::build(const Shape& input_shape) {
  const int64_t in = input_shape.dim(channel_axis());
  MakeVariables(in, depth_multiplier_, in * depth_multiplier_);
}

Tensor DepthwiseConv2D::call(const Tensor& x, bool, OpSite site) {
  const Tensor y = depthwise_conv2d(x, kernel_, Strides(options_), options_.padding,
                                    options_.data_format, Dilations(options_), site);
  return Finish(y, site);
}

Conv2DTranspose::Conv2DTranspose(Module* parent, std::string name, int64_t filters,
                                 Size2 kernel_size, ConvOptions options)
    : ConvLayer(parent, std::move(name), kernel_size, std::move(options)), filters_(filters) {
  if (options_.groups != 1) {
    throw Error(absl::InvalidArgumentError("Conv2DTranspose: groups must be 1"));
  }
  if (channels_first()) {
    throw Error(absl::UnimplementedError(
        "Conv2DTranspose: data_format channels-first is not supported; transpose the input to "
        "channels-last"));
  }
}

Conv2DTranspose::Conv2DTranspose(int64_t filters, Size2 kernel_size, ConvOptions options)
    : Conv2DTranspose(nullptr, "conv2d_transpose", filters, kernel_size, std::move(options)) {}

void Conv2DTranspose::build(const Shape& input_shape) {
  MakeVariables(filters_, input_shape.dim(3), filters_);
}

Tensor Conv2DTranspose::call(const Tensor& x, bool, OpSite site) {
  const Shape& s = x.shape();
  for (int i = 0; i < 3; ++i) {
    if (s.dim(i) < 0) Fail("needs the input's batch, height and width known, got " + s.str(), site);
  }
  const auto out_size = [&](int64_t in, int64_t stride, int64_t k, int64_t dilation) {
    const int64_t dilated = (k - 1) * dilation + 1;
    return options_.padding == "SAME" ? in * stride : (in - 1) * stride + dilated;
  };
  const Shape output{
      s.dim(0), out_size(s.dim(1), options_.strides.h, kernel_size_.h, options_.dilation_rate.h),
      out_size(s.dim(2), options_.strides.w, kernel_size_.w, options_.dilation_rate.w), filters_};
  const Tensor y = conv2d_backprop_input(output, kernel_, x, Strides(options_), options_.padding,
                                         Dilations(options_), {}, site);
  return Finish(y, site);
}

}  // namespace duet::nn
