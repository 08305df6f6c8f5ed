// Channels-first (NCHW) Conv2D, pooling, BiasAdd and FusedBatchNormV3 (Note [Channels-first] in
// ops/channels_first.cc): values against direct NCHW loops written here, 4-entry attrs in NCHW
// order, shape errors. Graphs: tests/graph/passes/convert_layout_test.cc; layers:
// tests/nn/channels_first_layers_test.cc; gradients: tests/gradients/channels_first_grads_test.cc.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensorNear;
using testing::MakeTensor;
using testing::ToDoubles;

constexpr DataFormat kNCHW = DataFormat::kNCHW;

// float64 values of `shape` without ties (a deterministic pattern over [-1, 1) from `seed`).
Tensor Values(const Shape& shape, int seed) {
  const int64_t n = shape.num_elements();
  return MakeTensor(kFloat64, shape,
                    testing::ModPattern(n, 7919 + 2 * seed, 10007, 5003 + seed, 5003.5));
}

// Element (n, c, h, w) of an NCHW tensor's values.
struct Nchw {
  std::vector<double> v;
  int64_t n, c, h, w;
  explicit Nchw(const Tensor& t)
      : v(ToDoubles(t)),
        n(t.shape().dim(0)),
        c(t.shape().dim(1)),
        h(t.shape().dim(2)),
        w(t.shape().dim(3)) {}
  double at(int64_t i, int64_t k, int64_t y, int64_t x) const {
    return v[((i * c + k) * h + y) * w + x];
  }
};

// TensorFlow's SAME padding before the first window: total / 2.
int64_t SamePadBefore(int64_t in, int64_t window, int64_t stride) {
  const int64_t out = (in + stride - 1) / stride;
  return std::max<int64_t>((out - 1) * stride + window - in, 0) / 2;
}

// Direct SAME convolution of NCHW x with an HWIO filter, strides (sh, sw): the definition.
std::vector<double> DirectConv(const Tensor& x, const Tensor& filter, int64_t sh, int64_t sw) {
  const Nchw in(x);
  const std::vector<double> f = ToDoubles(filter);
  const int64_t kh = filter.shape().dim(0), kw = filter.shape().dim(1), o = filter.shape().dim(3);
  const int64_t oh = (in.h + sh - 1) / sh, ow = (in.w + sw - 1) / sw;
  const int64_t ph = SamePadBefore(in.h, kh, sh), pw = SamePadBefore(in.w, kw, sw);
  std::vector<double> out;
  for (int64_t i = 0; i < in.n; ++i) {
    for (int64_t m = 0; m < o; ++m) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double sum = 0;
          for (int64_t a = 0; a < kh; ++a) {
            for (int64_t b = 0; b < kw; ++b) {
              const int64_t iy = y * sh + a - ph, ix = xx * sw + b - pw;
              if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) continue;
              for (int64_t k = 0; k < in.c; ++k) {
                sum += in.at(i, k, iy, ix) * f[((a * kw + b) * in.c + k) * o + m];
              }
            }
          }
          out.push_back(sum);
        }
      }
    }
  }
  return out;
}

TEST_CASE("conv2d NCHW equals the direct convolution, and NCHW-ordered 4-entry strides") {
  const Tensor x = Values({2, 3, 5, 6}, 1);
  const Tensor f = Values({3, 2, 3, 4}, 2);
  const Tensor y = conv2d(x, f, {2, 1}, "SAME", kNCHW);
  REQUIRE(y.shape() == Shape{2, 4, 3, 6});
  ExpectTensorNear(y, MakeTensor(kFloat64, y.shape(), DirectConv(x, f, 2, 1)), 1e-12);
  ExpectTensorNear(conv2d(x, f, {1, 1, 2, 1}, "SAME", kNCHW), y, 0);
  // The same numbers channels-last.
  const Tensor y_nhwc = conv2d(transpose(x, {0, 2, 3, 1}), f, {2, 1}, "SAME");
  ExpectTensorNear(transpose(y_nhwc, {0, 3, 1, 2}), y, 1e-12);
}

TEST_CASE("max_pool and avg_pool NCHW pool each channel's plane") {
  const Tensor x = Values({1, 2, 4, 5}, 3);
  const Nchw in(x);
  const Tensor mx = max_pool(x, {2, 2}, {2, 2}, "VALID", kNCHW);
  const Tensor av = avg_pool(x, {2, 2}, {2, 2}, "VALID", kNCHW);
  REQUIRE(mx.shape() == Shape{1, 2, 2, 2});
  std::vector<double> want_max, want_avg;
  for (int64_t k = 0; k < 2; ++k) {
    for (int64_t y = 0; y < 2; ++y) {
      for (int64_t w = 0; w < 2; ++w) {
        double m = -std::numeric_limits<double>::infinity(), s = 0;
        for (int64_t a = 0; a < 2; ++a) {
          for (int64_t b = 0; b < 2; ++b) {
            m = std::max(m, in.at(0, k, 2 * y + a, 2 * w + b));
            s += in.at(0, k, 2 * y + a, 2 * w + b);
          }
        }
        want_max.push_back(m);
        want_avg.push_back(s / 4);
      }
    }
  }
  ExpectTensorNear(mx, MakeTensor(kFloat64, mx.shape(), want_max), 0);
  ExpectTensorNear(av, MakeTensor(kFloat64, av.shape(), want_avg), 1e-15);
  // SAME with a 3x3 window in NCHW order [1, 1, 3, 3].
  CHECK(max_pool(x, {1, 1, 3, 3}, {1, 1, 2, 2}, "SAME", kNCHW).shape() == Shape{1, 2, 2, 3});
}

TEST_CASE("bias_add NCHW adds along dim 1, for rank 3 to 5") {
  const Tensor bias = MakeTensor(kFloat32, {2}, {10, 20});
  const Tensor y = bias_add(zeros({1, 2, 2, 1}, kFloat32), bias, kNCHW);
  CHECK(ToDoubles(y) == std::vector<double>{10, 10, 20, 20});
  CHECK(ToDoubles(bias_add(zeros({1, 2, 3}, kFloat32), bias, kNCHW)) ==
        std::vector<double>{10, 10, 10, 20, 20, 20});
  CHECK(bias_add(zeros({1, 2, 1, 1, 3}, kFloat32), bias, kNCHW).shape() == Shape{1, 2, 1, 1, 3});
}

TEST_CASE("fused_batch_norm NCHW normalizes per channel over N, H, W") {
  const Tensor x = Values({2, 3, 2, 2}, 4);
  const Tensor scale = MakeTensor(kFloat64, {3}, {1, 2, 0.5});
  const Tensor offset = MakeTensor(kFloat64, {3}, {0, 1, -1});
  const Tensor none = MakeTensor(kFloat64, {3}, {0, 0, 0});
  const FusedBatchNormResult r =
      fused_batch_norm(x, scale, offset, none, none, 1e-3f, /*is_training=*/true, kNCHW);
  const Nchw in(x);
  std::vector<double> mean(3, 0), var(3, 0);
  for (int64_t k = 0; k < 3; ++k) {
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t y = 0; y < 2; ++y) {
        for (int64_t w = 0; w < 2; ++w) mean[k] += in.at(i, k, y, w) / 8;
      }
    }
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t y = 0; y < 2; ++y) {
        for (int64_t w = 0; w < 2; ++w)
          var[k] += (in.at(i, k, y, w) - mean[k]) * (in.at(i, k, y, w) - mean[k]) / 8;
      }
    }
  }
  const std::vector<double> s = ToDoubles(scale), o = ToDoubles(offset);
  std::vector<double> want;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t k = 0; k < 3; ++k) {
      for (int64_t j = 0; j < 4; ++j) {
        want.push_back((in.v[(i * 3 + k) * 4 + j] - mean[k]) / std::sqrt(var[k] + 1e-3) * s[k] +
                       o[k]);
      }
    }
  }
  ExpectTensorNear(r.y, MakeTensor(kFloat64, x.shape(), want), 1e-9);
  ExpectTensorNear(r.batch_mean, MakeTensor(kFloat64, {3}, mean), 1e-12);
}

TEST_CASE("channels-first shape errors name the format") {
  const Tensor x = zeros({1, 3, 5, 5}, kFloat32);
  ExpectError(
      [&] {
        conv2d(x, zeros({3, 3, 4, 2}, kFloat32), {1}, "SAME", kNCHW);
      },
      {"Conv2D", "data_format NCHW", "channels-last twin"});
  ExpectError([&] { bias_add(x, zeros({5}, kFloat32), kNCHW); }, {"BiasAdd", "NCHW"});
}

}  // namespace
}  // namespace duet
