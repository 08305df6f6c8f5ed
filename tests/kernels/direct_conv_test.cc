// The direct convolutions (kernels/common/direct_conv.h), which the CUDA convolution kernels run
// for float64 when cuDNN cannot (Note [float64 convolutions without cuDNN] in
// kernels/cuda/nn/conv_kernels.cc), evaluated here on the host element by element and compared
// with the CPU kernels' outputs and gradients (Conv2D, DepthwiseConv2dNative, Conv3D and their
// backprops, through a tape), over strides, dilations, SAME padding with its uneven sides, VALID
// and EXPLICIT padding and groups. The sizes come from the op's attrs through
// MakeConvGeometry(...).AsDirect(), the glue the CUDA kernels use, so the glue is checked too
// without a GPU. float64, so only summation order differs: 1e-12.
#include "kernels/common/direct_conv.h"

#include <catch2/catch.hpp>
#include <functional>

#include "duet.h"
#include "kernels/common/conv_geometry.h"
#include "ops/nn/conv_shape.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

struct Case {
  const char* name;
  ConvKind kind;
  std::vector<int64_t> input;   // N, spatial..., C
  std::vector<int64_t> filter;  // spatial..., in, out (depthwise: spatial..., in, multiplier)
  std::vector<int64_t> stride, dilation;  // spatial
  std::string padding;
  std::vector<int64_t> explicit_pads = {};  // with padding EXPLICIT (2-D): top, bottom, left, right
};

// x, the filter, the output and its upstream gradient, and the tape's gradients of x and filter.
struct Reference {
  Tensor x, filter, y, dy, dx, dfilter;
};

// The op's explicit_paddings attr for `c`: [0, 0, top, bottom, left, right, 0, 0].
std::vector<int64_t> Explicit(const Case& c) {
  std::vector<int64_t> pads = {0, 0};
  pads.insert(pads.end(), c.explicit_pads.begin(), c.explicit_pads.end());
  pads.insert(pads.end(), {0, 0});
  return pads;
}

// The attr-form strides or dilations of `c`: 1 for the batch and channels around the spatial ones.
std::vector<int64_t> WithOnes(const std::vector<int64_t>& spatial) {
  std::vector<int64_t> all = {1};
  all.insert(all.end(), spatial.begin(), spatial.end());
  all.push_back(1);
  return all;
}

Reference Compute(const Case& c) {
  Reference r;
  r.x = random_uniform(Shape(absl::MakeConstSpan(c.input)), 1, kFloat64, -1, 1);
  r.filter = random_uniform(Shape(absl::MakeConstSpan(c.filter)), 2, kFloat64, -1, 1);
  const int rank = static_cast<int>(c.stride.size());
  const std::vector<int64_t> strides = WithOnes(c.stride), dilations = WithOnes(c.dilation);
  GradientTape tape;
  tape.watch(r.x);
  tape.watch(r.filter);
  switch (c.kind) {
    case ConvKind::kConv2D:
      r.y = c.padding == "EXPLICIT"
                ? conv2d_explicit_padding(r.x, r.filter, strides, Explicit(c), dilations)
                : conv2d(r.x, r.filter, strides, c.padding, dilations);
      break;
    case ConvKind::kDepthwise:
      r.y = c.padding == "EXPLICIT"
                ? depthwise_conv2d_explicit_padding(r.x, r.filter, strides, Explicit(c), dilations)
                : depthwise_conv2d(r.x, r.filter, strides, c.padding, dilations);
      break;
    case ConvKind::kConv3D:
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

// The sizes the CUDA kernels pass to the direct convolutions: MakeConvGeometry over the op's
// attrs and the forward shapes, AsDirect.
DirectConvShape ShapeOf(const Case& c, const Reference& r) {
  const OpDef* op = OpRegistry::Global().Find(ConvOpName(c.kind));
  REQUIRE(op != nullptr);
  OpCall call(op, {r.x, r.filter}, OpSite());
  call.attrs[op->attr_index("strides")] = WithOnes(c.stride);
  call.attrs[op->attr_index("dilations")] = WithOnes(c.dilation);
  call.attrs[op->attr_index("padding")] = c.padding;
  if (c.padding == "EXPLICIT") call.attrs[op->attr_index("explicit_paddings")] = Explicit(c);
  OutputList outputs;
  const KernelContext ctx(call, outputs, Device::cpu());
  return MakeConvGeometry(ctx, c.kind, r.x.shape(), r.filter.shape(), r.y.shape()).AsDirect();
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
      {"conv2d, stride 2, SAME",
       ConvKind::kConv2D,
       {2, 5, 6, 3},
       {3, 2, 3, 4},
       {2, 2},
       {1, 1},
       "SAME"},
      {"conv2d, dilation 2, VALID",
       ConvKind::kConv2D,
       {1, 7, 6, 2},
       {2, 3, 2, 3},
       {1, 1},
       {2, 2},
       "VALID"},
      {"conv2d, even window, SAME (more padding after)",
       ConvKind::kConv2D,
       {2, 4, 4, 2},
       {2, 2, 2, 3},
       {1, 1},
       {1, 1},
       "SAME"},
      {"conv2d, 2 groups, stride (1, 2), dilation (2, 1), SAME",
       ConvKind::kConv2D,
       {2, 6, 7, 4},
       {3, 2, 2, 6},
       {1, 2},
       {2, 1},
       "SAME"},
      {"conv2d, EXPLICIT padding, stride 2",
       ConvKind::kConv2D,
       {1, 5, 6, 2},
       {3, 3, 2, 2},
       {2, 2},
       {1, 1},
       "EXPLICIT",
       {1, 2, 0, 3}},
      {"depthwise, multiplier 2, stride 2, SAME",
       ConvKind::kDepthwise,
       {2, 5, 5, 3},
       {3, 3, 3, 2},
       {2, 2},
       {1, 1},
       "SAME"},
      {"depthwise, EXPLICIT padding, dilation 2",
       ConvKind::kDepthwise,
       {1, 6, 5, 2},
       {2, 2, 2, 1},
       {1, 1},
       {2, 2},
       "EXPLICIT",
       {2, 0, 1, 1}},
      {"conv3d, SAME",
       ConvKind::kConv3D,
       {1, 4, 5, 3, 2},
       {2, 3, 2, 2, 3},
       {1, 1, 1},
       {1, 1, 1},
       "SAME"},
      {"conv3d, stride 2, VALID",
       ConvKind::kConv3D,
       {2, 5, 4, 4, 1},
       {3, 2, 2, 1, 2},
       {2, 1, 2},
       {1, 1, 1},
       "VALID"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Reference r = Compute(c);
    const DirectConvShape s = ShapeOf(c, r);
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
