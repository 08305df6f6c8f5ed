// Note [Reduced precision without oneDNN support] (kernels/cpu/common/dnnl_plan.cc): every
// oneDNN-backed bfloat16 kernel, forced onto its float32 fallback so that the path runs on every
// CPU (AVX2-only machines take it anyway, AVX-512 ones only when forced or under
// ONEDNN_MAX_CPU_ISA=AVX2), gives the float32 result on the same values rounded to bfloat16.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <vector>

#include "core/constant.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "ops/math/math_ops.h"
#include "ops/nn/fused_nn_ops.h"
#include "ops/nn/nn_backprop_ops.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// Forces the float32 fallback for the plans built while it lives (they are cached apart from the
// native ones, so the other tests in this binary are unaffected).
struct ForceFloat32 {
  ForceFloat32() { ForceDnnlFloat32ForTesting(true); }
  ~ForceFloat32() { ForceDnnlFloat32ForTesting(false); }
};

// Values in about [-2, 2] without a pattern that could hide a misplaced element; `seed` varies
// them.
Tensor Values(const Shape& shape, int seed) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = 2 * std::sin(0.7 * i + 1.3 * seed + 0.1);
  return testing::MakeTensor(kFloat32, shape, v);
}

using Op = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Runs `op` on `inputs` rounded to bfloat16 and, on the same (exactly converted) values, in
// float32, and checks each bfloat16 output against the float32 one rounded to bfloat16, within
// bfloat16's rounding (2^-8 relative: less than the gap to either neighbour, so a result rounded
// the wrong way fails); float32 outputs (batch norm's statistics) within float32's rounding.
void ExpectFloat32Rounded(const std::vector<Tensor>& inputs, const Op& op) {
  std::vector<Tensor> half, single;
  for (const Tensor& x : inputs) {
    half.push_back(cast(x, kBFloat16));
    single.push_back(cast(half.back(), kFloat32));
  }
  std::vector<Tensor> got;
  {
    ForceFloat32 force;
    got = op(half);
  }
  const std::vector<Tensor> want = op(single);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output " << i);
    const bool rounded = got[i].dtype() == kBFloat16;
    const Tensor expected = rounded ? cast(want[i], kBFloat16) : want[i];
    REQUIRE(got[i].dtype() == expected.dtype());
    REQUIRE(got[i].shape() == expected.shape());
    const std::vector<double> a = testing::ToDoubles(got[i]), b = testing::ToDoubles(expected);
    const double unit = rounded ? std::ldexp(1.0, -8) : std::ldexp(1.0, -24);
    for (size_t k = 0; k < a.size(); ++k) {
      INFO("element " << k << ": " << a[k] << " vs " << b[k]);
      CHECK(std::abs(a[k] - b[k]) <= unit * std::abs(b[k]));
    }
  }
}

TEST_CASE("bfloat16 MatMul and BatchMatMulV2 in float32 round the float32 product once") {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      INFO("transpose_a=" << ta << " transpose_b=" << tb);
      const Tensor a = Values(ta ? Shape{33, 17} : Shape{17, 33}, 1);
      const Tensor b = Values(tb ? Shape{9, 33} : Shape{33, 9}, 2);
      ExpectFloat32Rounded({a, b}, [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{matmul(in[0], in[1], ta, tb)};
      });
    }
  }
  ExpectFloat32Rounded({Values({2, 1, 7, 9}, 3), Values({3, 9, 6}, 4)},
                       [](const std::vector<Tensor>& in) {
                         return std::vector<Tensor>{matmul(in[0], in[1])};  // batch broadcast
                       });
}

TEST_CASE("bfloat16 _FusedMatMul in float32 rounds the fused float32 result once") {
  for (const char* activation : {"Relu", "Tanh", "LeakyRelu"}) {
    INFO(activation);
    ExpectFloat32Rounded(
        {Values({8, 16}, 5), Values({24, 16}, 6), Values({24}, 7)},
        [&](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{fused_matmul(in[0], in[1], {in[2]}, {"BiasAdd", activation},
                                                  /*transpose_a=*/false, /*transpose_b=*/true)};
        });
  }
}

TEST_CASE("bfloat16 Conv2D, _FusedConv2D and their backprops in float32 round once") {
  const Tensor x = Values({2, 7, 6, 3}, 8), w = Values({3, 3, 3, 4}, 9);
  const Tensor bias = Values({4}, 10), dy = Values({2, 4, 3, 4}, 11);
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    const Tensor grad = std::string(padding) == "SAME" ? dy : Values({2, 3, 2, 4}, 11);
    ExpectFloat32Rounded({x, w}, [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{conv2d(in[0], in[1], {2, 2}, padding)};
    });
    ExpectFloat32Rounded({x, w, bias}, [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{
          fused_conv2d(in[0], in[1], {in[2]}, {"BiasAdd", "Relu"}, {2, 2}, padding)};
    });
    ExpectFloat32Rounded({w, grad}, [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{
          conv2d_backprop_input({2, 7, 6, 3}, in[0], in[1], {2, 2}, padding)};
    });
    ExpectFloat32Rounded({x, grad}, [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{
          conv2d_backprop_filter(in[0], {3, 3, 3, 4}, in[1], {2, 2}, padding)};
    });
  }
}

TEST_CASE("bfloat16 pooling and its gradients in float32 round once") {
  const Tensor x = Values({2, 5, 4, 3}, 12);
  for (const char* padding : {"SAME", "VALID"}) {
    INFO(padding);
    const Shape out = std::string(padding) == "SAME" ? Shape{2, 3, 2, 3} : Shape{2, 2, 1, 3};
    const Tensor dy = Values(out, 13);
    ExpectFloat32Rounded({x}, [&](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{max_pool(in[0], {3, 3}, {2, 2}, padding),
                                 avg_pool(in[0], {3, 3}, {2, 2}, padding)};
    });
    ExpectFloat32Rounded({x, dy}, [&](const std::vector<Tensor>& in) {
      const Tensor y = max_pool(in[0], {3, 3}, {2, 2}, padding);
      return std::vector<Tensor>{max_pool_grad(in[0], y, in[1], {3, 3}, {2, 2}, padding),
                                 avg_pool_grad(x.shape(), in[1], {3, 3}, {2, 2}, padding)};
    });
  }
}

TEST_CASE("bfloat16 FusedBatchNormV3 in float32 rounds y once, statistics as in float32") {
  const Tensor x = Values({2, 3, 4, 5}, 14);
  const Tensor scale = Values({5}, 15), offset = Values({5}, 16), mean = Values({5}, 17);
  const Tensor variance = abs(Values({5}, 18)) + 0.5f;
  for (bool training : {false, true}) {
    INFO("is_training=" << training);
    ExpectFloat32Rounded({x}, [&](const std::vector<Tensor>& in) {
      const FusedBatchNormResult r =
          fused_batch_norm(in[0], scale, offset, mean, variance, 1e-3f, training);
      return std::vector<Tensor>{r.y,
                                 r.batch_mean,
                                 r.batch_variance,
                                 r.reserve_space_1,
                                 r.reserve_space_2,
                                 r.reserve_space_3};
    });
  }
}

TEST_CASE("bfloat16 Softmax and LogSoftmax in float32 round once") {
  ExpectFloat32Rounded({Values({3, 4, 19}, 19) * 4.0f}, [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{softmax(in[0]), log_softmax(in[0])};
  });
}

}  // namespace
}  // namespace duet
