// FusedBatchNormV3 on the CPU: oneDNN's batch normalization for float32 and bfloat16 x (float32
// statistics; bfloat16 x in float32 where the CPU lacks bfloat16, Note [Reduced precision without
// oneDNN support] in dnnl_plan.cc), plain loops for float64. See ops/nn/batch_norm_ops.cc for what
// each output holds.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/channels_last_kernel.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// Input and output positions, in the op's signature order.
enum Input { kX, kScale, kOffset, kMean, kVariance };
enum Output { kY, kBatchMean, kBatchVariance, kReserve1, kReserve2, kReserve3 };

struct BatchNormParams {
  int64_t rows = 0;  // N * H * W: the values each channel's statistics run over
  int64_t channels = 0;
  float epsilon = 0;
  float factor = 1;
  bool training = false;
};

constexpr DnnlPlanKind kBatchNormPlan{"FusedBatchNormV3"};

// Normalizes x into y; in training also writes the batch mean and biased variance into reserve
// spaces 1 and 2 (oneDNN's mean/variance outputs).
absl::Status DnnlBatchNorm(KernelContext& ctx, const BatchNormParams& bn) {
  const DType dtype = ctx.input(kX).dtype();
  const Shape& x = ctx.input(kX).shape();
  int32_t epsilon_bits;
  std::memcpy(&epsilon_bits, &bn.epsilon, sizeof epsilon_bits);
  const DnnlKey key = {
      static_cast<int64_t>(dtype), bn.training, epsilon_bits, x[0], x[1], x[2], x[3]};
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(kBatchNormPlan, key, dtype, [&](DnnlPlan& p, dnnl::memory::data_type type) {
        using dnnl::memory;
        const memory::desc data({x[0], x[3], x[1], x[2]}, type, memory::format_tag::nhwc);
        const memory::desc vec({x[3]}, memory::data_type::f32, memory::format_tag::a);
        auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
        if (!bn.training) flags |= dnnl::normalization_flags::use_global_stats;
        const dnnl::batch_normalization_forward::primitive_desc pd(
            {bn.training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference,
             data, bn.epsilon, flags},
            DnnlEngine());
        p.AddBuffer(DNNL_ARG_SRC, data, DnnlUse::kRead);
        p.AddBuffer(DNNL_ARG_DST, data, DnnlUse::kWrite);
        p.AddBuffer(DNNL_ARG_SCALE, vec, DnnlUse::kRead);
        p.AddBuffer(DNNL_ARG_SHIFT, vec, DnnlUse::kRead);
        // Training computes the statistics; inference reads the given ones.
        const DnnlUse statistics = bn.training ? DnnlUse::kWrite : DnnlUse::kRead;
        p.AddBuffer(DNNL_ARG_MEAN, vec, statistics);
        p.AddBuffer(DNNL_ARG_VARIANCE, vec, statistics);
        std::unordered_map<int, memory> args;
        for (int arg : {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN,
                        DNNL_ARG_VARIANCE}) {
          args.emplace(arg, p.buffer(arg));
        }
        p.AddStep(dnnl::batch_normalization_forward(pd), std::move(args));
      }));
  plan->Bind(DNNL_ARG_SRC, ctx.input(kX));
  plan->Bind(DNNL_ARG_DST, ctx.output(kY));
  plan->Bind(DNNL_ARG_SCALE, ctx.input(kScale));
  plan->Bind(DNNL_ARG_SHIFT, ctx.input(kOffset));
  const bool t = bn.training;
  plan->Bind(DNNL_ARG_MEAN, t ? ctx.output(kReserve1) : ctx.input(kMean));
  plan->Bind(DNNL_ARG_VARIANCE, t ? ctx.output(kReserve2) : ctx.input(kVariance));
  return plan->Run(absl::StrCat("batch normalization ", DTypeName(dtype)));
}

// float64: two passes (mean, then squared deviations) for accuracy, then normalizes.
void LoopBatchNorm(KernelContext& ctx, const BatchNormParams& bn) {
  const int64_t c = bn.channels;
  const double* x = ctx.input(kX).data<double>();
  double* mean = ctx.output(kReserve1).mutable_data<double>();
  double* var = ctx.output(kReserve2).mutable_data<double>();
  if (bn.training) {
    std::vector<double> sum(c, 0.0), sq(c, 0.0);
    for (int64_t r = 0; r < bn.rows; ++r) {
      for (int64_t k = 0; k < c; ++k) sum[k] += x[r * c + k];
    }
    for (int64_t k = 0; k < c; ++k) mean[k] = sum[k] / bn.rows;
    for (int64_t r = 0; r < bn.rows; ++r) {
      for (int64_t k = 0; k < c; ++k) sq[k] += (x[r * c + k] - mean[k]) * (x[r * c + k] - mean[k]);
    }
    for (int64_t k = 0; k < c; ++k) var[k] = sq[k] / bn.rows;
  } else {
    std::memcpy(mean, ctx.input(kMean).raw_data(), c * sizeof(double));
    std::memcpy(var, ctx.input(kVariance).raw_data(), c * sizeof(double));
  }
  const double* scale = ctx.input(kScale).data<double>();
  const double* offset = ctx.input(kOffset).data<double>();
  std::vector<double> mul(c), add(c);
  for (int64_t k = 0; k < c; ++k) {
    mul[k] = scale[k] / std::sqrt(var[k] + bn.epsilon);
    add[k] = offset[k] - mean[k] * mul[k];
  }
  double* y = ctx.output(kY).mutable_data<double>();
  for (int64_t r = 0; r < bn.rows; ++r) {
    for (int64_t k = 0; k < c; ++k) y[r * c + k] = x[r * c + k] * mul[k] + add[k];
  }
}

// Fills batch_mean, batch_variance and reserve_space_3 from reserve spaces 1 and 2 (the
// statistics y was normalized with), as TensorFlow does: Bessel correction n / (n - 1) and
// blending with the given statistics by exponential_avg_factor in training, a copy in inference.
template <typename U>
void FinishStatistics(KernelContext& ctx, const BatchNormParams& bn) {
  const int64_t c = bn.channels;
  const U* mean = ctx.output(kReserve1).data<U>();
  const U* var = ctx.output(kReserve2).data<U>();
  U* batch_mean = ctx.output(kBatchMean).mutable_data<U>();
  U* batch_var = ctx.output(kBatchVariance).mutable_data<U>();
  U* inv_std = ctx.output(kReserve3).mutable_data<U>();
  const double bessel = bn.rows > 1 ? static_cast<double>(bn.rows) / (bn.rows - 1) : 1.0;
  const bool blend = bn.training && bn.factor != 1.0f;
  const U* old_mean = blend ? ctx.input(kMean).data<U>() : nullptr;
  const U* old_var = blend ? ctx.input(kVariance).data<U>() : nullptr;
  for (int64_t k = 0; k < c; ++k) {
    inv_std[k] = static_cast<U>(1.0 / std::sqrt(static_cast<double>(var[k]) + bn.epsilon));
    const double m = mean[k];
    const double v = bn.training ? var[k] * bessel : var[k];
    batch_mean[k] = static_cast<U>(blend ? (1 - bn.factor) * old_mean[k] + bn.factor * m : m);
    batch_var[k] = static_cast<U>(blend ? (1 - bn.factor) * old_var[k] + bn.factor * v : v);
  }
}

// Training on an empty batch has no statistics: NaN, as in TensorFlow.
template <typename U>
void FillNanStatistics(KernelContext& ctx) {
  for (int i = kBatchMean; i <= kReserve3; ++i) {
    Tensor& t = ctx.output(i);
    std::fill_n(t.mutable_data<U>(), t.num_elements(), std::numeric_limits<U>::quiet_NaN());
  }
}

absl::Status FusedBatchNormKernel(KernelContext& ctx) {
  const Shape& x = ctx.input(kX).shape();
  BatchNormParams bn;
  bn.rows = x[0] * x[1] * x[2];
  bn.channels = x[3];
  bn.epsilon = ctx.attr(FusedBatchNormAttrs::kEpsilon);
  bn.factor = ctx.attr(FusedBatchNormAttrs::kExponentialAvgFactor);
  bn.training = ctx.attr(FusedBatchNormAttrs::kIsTraining);
  const bool f64 = ctx.input(kX).dtype() == kFloat64;
  if (bn.channels == 0) return absl::OkStatus();
  if (bn.rows == 0 && bn.training) {
    f64 ? FillNanStatistics<double>(ctx) : FillNanStatistics<float>(ctx);
    return absl::OkStatus();
  }
  if (f64) {
    LoopBatchNorm(ctx, bn);
    FinishStatistics<double>(ctx, bn);
    return absl::OkStatus();
  }
  if (bn.rows > 0) DUET_RETURN_IF_ERROR(DnnlBatchNorm(ctx, bn));
  if (!bn.training) {
    std::memcpy(ctx.output(kReserve1).raw_data(), ctx.input(kMean).raw_data(), bn.channels * 4);
    std::memcpy(ctx.output(kReserve2).raw_data(), ctx.input(kVariance).raw_data(), bn.channels * 4);
  }
  FinishStatistics<float>(ctx, bn);
  return absl::OkStatus();
}

const KernelRegistrar kFusedBatchNorm("FusedBatchNormV3", DeviceType::kCpu,
                                      {kFloat32, kFloat64, kBFloat16},
                                      {ChannelsLast<FusedBatchNormKernel>});

}  // namespace
}  // namespace duet
