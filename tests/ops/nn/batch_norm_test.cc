// FusedBatchNormV3 through fused_batch_norm(): inference and training forms vs NumPy
// (testdata/gen_expected.py), every output, exponential_avg_factor, every dtype, and errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_call.h"
#include "ops/op_registry.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;
using testing::ModPattern;

// Statistics are float64 for float64 x, float32 otherwise.
DType StatType(DType x) { return x == kFloat64 ? kFloat64 : kFloat32; }

struct Inputs {
  Tensor x, scale, offset, mean, variance;
};

Inputs MakeInputs(DType dt) {
  const DType u = StatType(dt);
  return {MakeTensor(dt, {2, 2, 3, 3}, ModPattern(36, 7, 11, 5, 4)),
          MakeTensor(u, {3}, {1.5, 0.5, -1.0}), MakeTensor(u, {3}, {0.25, -0.5, 1.0}),
          MakeTensor(u, {3}, {0.1, -0.2, 0.3}), MakeTensor(u, {3}, {0.5, 1.5, 2.0})};
}

const std::vector<double> kInferenceY = {
    -2.61092297, -0.214321407, 1.56554406,  2.68708253,  -0.316349476,  1.74227657,
    2.15728198,  -0.418377545, 1.91900909,  1.62748143,  -0.520405614,  2.09574161,
    1.09768088,  -0.622433683, 0.328416433, 0.56788033,  -0.724461752,  0.50514895,
    0.03807978,  -0.826489821, 0.681881468, -0.49172077, -0.928517889,  0.858613986,
    -1.02152132, 0.0917627998, 1.0353465,   -1.55132187, -0.0102652692, 1.21207902,
    -2.08112242, -0.112293338, 1.38881154,  -2.61092297, -0.214321407,  1.56554406};
const std::vector<double> kTrainingY = {
    -1.81423986,  -0.202409533,  1.59518093,    2.68955619,    -0.364731606, 1.91982508,
    2.23917659,   -0.527053679,  2.24446923,    1.78879698,    -0.689375752, 2.56911337,
    1.33841738,   -0.851697825,  -0.677328088,  0.888037773,   -1.0140199,   -0.352683942,
    0.437658169,  -1.17634197,   -0.0280397959, -0.0127214361, -1.33866404,  0.29660435,
    -0.463101041, 0.284556686,   0.621248496,   -0.913480646,  0.122234613,  0.945892642,
    -1.36386025,  -0.0400874597, 1.27053679,    -1.81423986,   -0.202409533, 1.59518093};

TEST_CASE("FusedBatchNormV3 inference normalizes with the given statistics") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    const double tol = dt == kBFloat16 ? 1e-2 : 1e-5;
    const Inputs in = MakeInputs(dt);
    const FusedBatchNormResult r =
        fused_batch_norm(in.x, in.scale, in.offset, in.mean, in.variance, 1e-3f, false);
    const DType u = StatType(dt);
    testing::ExpectTensor(r.y, dt, {2, 2, 3, 3}, kInferenceY, tol);
    testing::ExpectTensor(r.batch_mean, u, {3}, {0.1, -0.2, 0.3}, 1e-6);
    testing::ExpectTensor(r.batch_variance, u, {3}, {0.5, 1.5, 2.0}, 1e-6);
    testing::ExpectTensor(r.reserve_space_1, u, {3}, {0.1, -0.2, 0.3}, 1e-6);
    testing::ExpectTensor(r.reserve_space_2, u, {3}, {0.5, 1.5, 2.0}, 1e-6);
    testing::ExpectTensor(r.reserve_space_3, u, {3},
                          {1 / std::sqrt(0.501), 1 / std::sqrt(1.501), 1 / std::sqrt(2.001)}, 1e-6);
  }
}

TEST_CASE("FusedBatchNormV3 training uses batch statistics, Bessel-corrected in batch_variance") {
  for (DType dt : {kFloat32, kFloat64, kBFloat16}) {
    INFO("dtype " << DTypeName(dt));
    const double tol = dt == kBFloat16 ? 1e-2 : 1e-5;
    const Inputs in = MakeInputs(dt);
    const DType u = StatType(dt);
    // Training may omit mean and variance (nothing to blend with at factor 1).
    const Tensor empty = MakeTensor(u, {0}, {});
    const FusedBatchNormResult r =
        fused_batch_norm(in.x, in.scale, in.offset, empty, empty, 1e-3f, true);
    testing::ExpectTensor(r.y, dt, {2, 2, 3, 3}, kTrainingY, tol);
    testing::ExpectTensor(r.batch_mean, u, {3}, {-0.104166667, 0.0416666667, -0.0416666667}, 1e-5);
    testing::ExpectTensor(r.batch_variance, u, {3}, {0.755208333, 0.645833333, 0.645833333}, 1e-5);
    testing::ExpectTensor(r.reserve_space_1, u, {3}, {-0.104166667, 0.0416666667, -0.0416666667},
                          1e-5);
    testing::ExpectTensor(r.reserve_space_2, u, {3}, {0.692274306, 0.592013889, 0.592013889}, 1e-5);
    testing::ExpectTensor(r.reserve_space_3, u, {3}, {1.20101228, 1.29857658, 1.29857658}, 1e-5);
  }
}

TEST_CASE("FusedBatchNormV3 training blends statistics by exponential_avg_factor") {
  const OpDef* op = OpRegistry::Global().Find("FusedBatchNormV3");
  for (DType dt : {kFloat32, kFloat64}) {
    INFO("dtype " << DTypeName(dt));
    const Inputs in = MakeInputs(dt);
    OpCall call(op, {in.x, in.scale, in.offset, in.mean, in.variance}, OpSite());
    call.attrs[op->attr_index("epsilon")] = 1e-3f;
    call.attrs[op->attr_index("exponential_avg_factor")] = 0.25f;
    const OutputList out = RunOp(call);  // is_training defaults to true, as in TensorFlow
    testing::ExpectTensor(out[0], dt, {2, 2, 3, 3}, kTrainingY, 1e-5);
    testing::ExpectTensor(out[1], dt, {3}, {0.0489583333, -0.139583333, 0.214583333}, 1e-5);
    testing::ExpectTensor(out[2], dt, {3}, {0.563802083, 1.28645833, 1.66145833}, 1e-5);
  }
}

TEST_CASE("FusedBatchNormV3 float32 and float64 agree on a larger input") {
  const std::vector<double> x = ModPattern(4 * 5 * 3 * 16, 7, 17, 8, 7);
  std::vector<double> scale(16), offset(16);
  for (int c = 0; c < 16; ++c) scale[c] = 0.5 + c * 0.1, offset[c] = c * 0.05 - 0.3;
  for (bool training : {false, true}) {
    INFO("training " << training);
    const FusedBatchNormResult r64 =
        fused_batch_norm(MakeTensor(kFloat64, {4, 5, 3, 16}, x), MakeTensor(kFloat64, {16}, scale),
                         MakeTensor(kFloat64, {16}, offset), MakeTensor(kFloat64, {16}, offset),
                         MakeTensor(kFloat64, {16}, scale), 1e-3f, training);
    const FusedBatchNormResult r32 =
        fused_batch_norm(MakeTensor(kFloat32, {4, 5, 3, 16}, x), MakeTensor(kFloat32, {16}, scale),
                         MakeTensor(kFloat32, {16}, offset), MakeTensor(kFloat32, {16}, offset),
                         MakeTensor(kFloat32, {16}, scale), 1e-3f, training);
    testing::ExpectTensor(r32.y, kFloat32, r64.y.shape(), testing::ToDoubles(r64.y), 1e-5);
    testing::ExpectTensor(r32.batch_variance, kFloat32, {16},
                          testing::ToDoubles(r64.batch_variance), 1e-5);
  }
}

TEST_CASE("FusedBatchNormV3 reports bad shapes and dtypes") {
  const Inputs in = MakeInputs(kFloat32);
  const Tensor two = MakeTensor(kFloat32, {2}, {1, 2});
  testing::ExpectError([&] { fused_batch_norm(in.x, two, in.offset, in.mean, in.variance); },
                       {"FusedBatchNormV3", "scale must be 1-D with 3 elements", "(2, 2, 3, 3)",
                        "(2,)", "batch_norm_test.cc"});
  testing::ExpectError([&] { fused_batch_norm(in.x, in.scale, in.offset, two, in.variance); },
                       {"FusedBatchNormV3", "mean must be 1-D with 3 elements"});
  testing::ExpectError(
      [&] {
        fused_batch_norm(MakeTensor(kFloat32, {1, 3}, {1, 2, 3}), in.scale, in.offset, in.mean,
                         in.variance);
      },
      {"FusedBatchNormV3", "x must be 4-D", "(1, 3)"});
  const Inputs f64 = MakeInputs(kFloat64);
  testing::ExpectError(
      [&] { fused_batch_norm(in.x, f64.scale, f64.offset, f64.mean, f64.variance); },
      {"FusedBatchNormV3", "scale, offset, mean and variance must be float32 for float32 x"});
  testing::ExpectError(
      [&] { fused_batch_norm(in.x, in.scale, in.offset, in.mean, in.variance, -1.f); },
      {"FusedBatchNormV3", "epsilon must be >= 0"});
}

}  // namespace
}  // namespace duet
