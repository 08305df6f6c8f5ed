// The direct convolutions (kernels/common/direct_conv.h), which the CUDA convolution kernels run
// for float64 when cuDNN cannot (Note [float64 convolutions without cuDNN] in
// kernels/cuda/nn/conv_kernels.cc), evaluated here on the host element by element and compared
// with the CPU kernels' outputs and gradients (Conv2D, DepthwiseConv2dNative, Conv3D and their
// backprops, through a tape), over strides, dilations, SAME padding with its uneven sides, VALID
// padding and groups. float64, so only summation order differs: 1e-12.
#include "kernels/common/direct_conv.h"

#include <catch2/catch.hpp>
#include <functional>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

enum class Kind { kConv2D, kDepthwise, kConv3D };

struct Case {
  const char* name;
  Kind kind;
  std::vector<int64_t> input;   // N, spatial..., C
  std::vector<int64_t> filter;  // spatial..., in, out (depthwise: spatial..., in, multiplier)
  std::vector<int64_t> stride, dilation;  // spatial
  std::string padding;
};

// TensorFlow's padding before the data along one dim.
int64_t PadBefore(const std::string& padding, int64_t in, int64_t window, int64_t stride,
                  int64_t dilation) {
  if (padding == "VALID") return 0;
  const int64_t out = (in + stride - 1) / stride;
  const int64_t total = std::max<int64_t>((out - 1) * stride + (window - 1) * dilation + 1 - in, 0);
  return total / 2;
}

// x, the filter, the output and its upstream gradient, and the tape's gradients of x and filter.
struct Reference {
  Tensor x, filter, y, dy, dx, dfilter;
};

Reference Compute(const Case& c) {
  Reference r;
  r.x = random_uniform(Shape(absl::MakeConstSpan(c.input)), 1, kFloat64, -1, 1);
  r.filter = random_uniform(Shape(absl::MakeConstSpan(c.filter)), 2, kFloat64, -1, 1);
  const int rank = static_cast<int>(c.stride.size());
  std::vector<int64_t> strides = {1}, dilations = {1};
  strides.insert(strides.end(), c.stride.begin(), c.stride.end());
  dilations.insert(dilations.end(), c.dilation.begin(), c.dilation.end());
  strides.push_back(1);
  dilations.push_back(1);
  GradientTape tape;
  tape.watch(r.x);
  tape.watch(r.filter);
  switch (c.kind) {
    case Kind::kConv2D:
      r.y = conv2d(r.x, r.filter, strides, c.padding, dilations);
      break;
    case Kind::kDepthwise:
      r.y = depthwise_conv2d(r.x, r.filter, strides, c.padding, dilations);
      break;
    case Kind::kConv3D:
      r.y = conv3d(r.x, r.filter, strides, c.padding, dilations);
      break;
  }
  REQUIRE(r.y.rank() == rank + 2);
  r.dy = random_uniform(r.y.shape(), 3, kFloat64, -1, 1);
  const std::vector<Tensor> grads = tape.gradient({r.y}, {r.x, r.filter}, {r.dy});
  r.dx = grads[0];
  r.dfilter = grads[1];
  return r;
}

DirectConvShape ShapeOf(const Case& c, const Tensor& y) {
  const int rank = static_cast<int>(c.stride.size());
  const int skip = 3 - rank;  // a 2-D convolution has depth 1
  DirectConvShape s;
  s.batch = c.input[0];
  s.in_c = c.input[rank + 1];
  const int64_t filter_in = c.filter[rank], filter_out = c.filter[rank + 1];
  s.out_c = c.kind == Kind::kDepthwise ? filter_in * filter_out : filter_out;
  s.groups = c.kind == Kind::kDepthwise ? s.in_c : s.in_c / filter_in;
  for (int d = 0; d < rank; ++d) {
    s.in[skip + d] = c.input[1 + d];
    s.window[skip + d] = c.filter[d];
    s.out[skip + d] = y.shape()[1 + d];
    s.stride[skip + d] = c.stride[d];
    s.dilation[skip + d] = c.dilation[d];
    s.pad_before[skip + d] =
        PadBefore(c.padding, c.input[1 + d], c.filter[d], c.stride[d], c.dilation[d]);
  }
  return s;
}

void ExpectElements(const char* what, const Tensor& expected, int64_t count,
                    const std::function<double(int64_t)>& at) {
  INFO(what);
  REQUIRE(expected.num_elements() == count);
  const std::vector<double> want = expected.to_vector<double>();
  std::vector<double> got(count);
  for (int64_t i = 0; i < count; ++i) got[i] = at(i);
  testing::ExpectTensorNear(from_vector(got, expected.shape()), expected, 1e-12);
}

TEST_CASE("direct convolutions equal the CPU kernels, forward and both gradients") {
  const std::vector<Case> cases = {
      {"conv2d, stride 2, SAME", Kind::kConv2D, {2, 5, 6, 3}, {3, 2, 3, 4}, {2, 2}, {1, 1}, "SAME"},
      {"conv2d, dilation 2, VALID",
       Kind::kConv2D,
       {1, 7, 6, 2},
       {2, 3, 2, 3},
       {1, 1},
       {2, 2},
       "VALID"},
      {"conv2d, even window, SAME (more padding after)",
       Kind::kConv2D,
       {2, 4, 4, 2},
       {2, 2, 2, 3},
       {1, 1},
       {1, 1},
       "SAME"},
      {"depthwise, multiplier 2, stride 2, SAME",
       Kind::kDepthwise,
       {2, 5, 5, 3},
       {3, 3, 3, 2},
       {2, 2},
       {1, 1},
       "SAME"},
      {"conv3d, SAME",
       Kind::kConv3D,
       {1, 4, 5, 3, 2},
       {2, 3, 2, 2, 3},
       {1, 1, 1},
       {1, 1, 1},
       "SAME"},
      {"conv3d, stride 2, VALID",
       Kind::kConv3D,
       {2, 5, 4, 4, 1},
       {3, 2, 2, 1, 2},
       {2, 1, 2},
       {1, 1, 1},
       "VALID"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Reference r = Compute(c);
    const DirectConvShape s = ShapeOf(c, r.y);
    const std::vector<double> x = r.x.to_vector<double>(), w = r.filter.to_vector<double>(),
                              dy = r.dy.to_vector<double>();
    ExpectElements("output", r.y, s.output_elements(),
                   [&](int64_t i) { return DirectConvOutputAt(s, x.data(), w.data(), i); });
    ExpectElements("input gradient", r.dx, s.input_elements(),
                   [&](int64_t i) { return DirectConvInputGradAt(s, w.data(), dy.data(), i); });
    ExpectElements("filter gradient", r.dfilter, s.filter_elements(),
                   [&](int64_t i) { return DirectConvFilterGradAt(s, x.data(), dy.data(), i); });
  }
}

}  // namespace
}  // namespace duet
