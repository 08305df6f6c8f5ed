// MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad on the CPU. MaxPoolGrad and AvgPoolGrad use
// oneDNN's pooling backward for float32 and bfloat16 (in float32 where the CPU lacks bfloat16, Note
// [Reduced precision without oneDNN support] in dnnl_plan.cc) and plain loops for float64 (oneDNN
// 2.6 has no f64); MaxPoolGradGrad, which oneDNN lacks, is a plain loop for every dtype.
//
// Max pooling routes each window's gradient to the window's first maximum in row-major order, as
// TensorFlow does: oneDNN's forward pass records that argmax in its workspace (it replaces the
// running maximum only on a strictly greater value), and the loops here compare the same way.
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

enum class PoolKind { kMax, kAvg };

constexpr DnnlPlanKind kPoolGradPlan{"pooling backward"};

// Max: forward pooling with a workspace (its output is scratch), then backward with that
// workspace. Average: backward alone.
void BuildPoolGradPlan(DnnlPlan& p, const PoolGeometry& g, PoolKind kind,
                       dnnl::memory::data_type type) {
  using dnnl::memory;
  const memory::desc src({g.batch, g.channels, g.in[0], g.in[1]}, type, memory::format_tag::nhwc);
  const memory::desc dst({g.batch, g.channels, g.out[0], g.out[1]}, type, memory::format_tag::nhwc);
  // TensorFlow's AvgPool divides by the number of cells inside the input.
  const auto algorithm = kind == PoolKind::kMax ? dnnl::algorithm::pooling_max
                                                : dnnl::algorithm::pooling_avg_exclude_padding;
  const memory::dims strides = {g.stride[0], g.stride[1]}, kernel = {g.window[0], g.window[1]};
  const memory::dims pad_before = {g.pad[0].before, g.pad[1].before};
  const memory::dims pad_after = {g.pad[0].after, g.pad[1].after};
  const dnnl::pooling_forward::primitive_desc forward(
      dnnl::pooling_forward::desc(dnnl::prop_kind::forward_training, algorithm, src, dst, strides,
                                  kernel, pad_before, pad_after),
      DnnlEngine());
  const dnnl::pooling_backward::primitive_desc backward(
      dnnl::pooling_backward::desc(algorithm, src, dst, strides, kernel, pad_before, pad_after),
      DnnlEngine(), forward);
  p.AddBuffer(DNNL_ARG_DIFF_DST, dst, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_DIFF_SRC, src, DnnlUse::kWrite);
  std::unordered_map<int, dnnl::memory> backward_args = {
      {DNNL_ARG_DIFF_DST, p.buffer(DNNL_ARG_DIFF_DST)},
      {DNNL_ARG_DIFF_SRC, p.buffer(DNNL_ARG_DIFF_SRC)}};
  if (kind == PoolKind::kMax) {
    p.AddBuffer(DNNL_ARG_SRC, src, DnnlUse::kRead);
    const dnnl::memory workspace = p.AddScratch(forward.workspace_desc());
    p.AddStep(dnnl::pooling_forward(forward), {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                               {DNNL_ARG_DST, p.AddScratch(dst)},
                                               {DNNL_ARG_WORKSPACE, workspace}});
    backward_args[DNNL_ARG_WORKSPACE] = workspace;
  }
  p.AddStep(dnnl::pooling_backward(backward), std::move(backward_args));
}

// `orig_input` is null for average pooling; `grad` is the gradient of the pooling's output.
absl::Status DnnlPoolGrad(KernelContext& ctx, const PoolGeometry& g, PoolKind kind,
                          const Tensor* orig_input, const Tensor& grad) {
  const DType dtype = grad.dtype();
  const DnnlKey key = {static_cast<int64_t>(dtype),
                       static_cast<int64_t>(kind),
                       g.batch,
                       g.channels,
                       g.in[0],
                       g.in[1],
                       g.out[0],
                       g.out[1],
                       g.window[0],
                       g.window[1],
                       g.stride[0],
                       g.stride[1],
                       g.pad[0].before,
                       g.pad[0].after,
                       g.pad[1].before,
                       g.pad[1].after};
  DUET_ASSIGN_OR_RETURN(
      DnnlPlan * plan,
      CachedDnnlPlan(kPoolGradPlan, key, dtype, [&](DnnlPlan& p, dnnl::memory::data_type type) {
        BuildPoolGradPlan(p, g, kind, type);
      }));
  if (orig_input != nullptr) plan->Bind(DNNL_ARG_SRC, *orig_input);
  plan->Bind(DNNL_ARG_DIFF_DST, grad);
  plan->Bind(DNNL_ARG_DIFF_SRC, ctx.output(0));
  return plan->Run(absl::StrCat(kind == PoolKind::kMax ? "max" : "average", " pooling backward ",
                                DTypeName(dtype)));
}

template <typename T>
double AsDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double AsDouble(double v) {
  return v;
}

// Calls fn(out_index, in_index) for each output cell and channel of images [n_begin, n_end), where
// out_index and in_index are the flat NHWC offsets of the cell and of its window's first maximum
// in `input` (row-major; only strictly greater values replace the running maximum).
template <typename T, typename Fn>
void ForEachArgmax(const T* input, const PoolGeometry& g, int64_t n_begin, int64_t n_end, Fn&& fn) {
  const int64_t c = g.channels;
  std::vector<double> best(c);
  std::vector<int64_t> best_index(c);
  for (int64_t n = n_begin; n < n_end; ++n) {
    const int64_t image = n * g.in[0] * g.in[1] * c;
    for (int64_t oh = 0; oh < g.out[0]; ++oh) {
      for (int64_t ow = 0; ow < g.out[1]; ++ow) {
        const PoolGeometry::Window w = g.At(oh, ow);
        // The shape functions keep padding smaller than the window, so it holds an input cell.
        const int64_t first = image + (w.h_begin * g.in[1] + w.w_begin) * c;
        for (int64_t k = 0; k < c; ++k) {
          best[k] = AsDouble(input[first + k]);
          best_index[k] = first + k;
        }
        for (int64_t h = w.h_begin; h < w.h_end; ++h) {
          for (int64_t x = w.w_begin; x < w.w_end; ++x) {
            const int64_t cell = image + (h * g.in[1] + x) * c;
            for (int64_t k = 0; k < c; ++k) {
              const double v = AsDouble(input[cell + k]);
              if (v > best[k]) {
                best[k] = v;
                best_index[k] = cell + k;
              }
            }
          }
        }
        const int64_t out_cell = ((n * g.out[0] + oh) * g.out[1] + ow) * c;
        for (int64_t k = 0; k < c; ++k) fn(out_cell + k, best_index[k]);
      }
    }
  }
}

// Inputs: orig_input, orig_output, grad.
absl::Status MaxPoolGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& grad = ctx.input(2);
  if (grad.num_elements() == 0) {
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  const PoolGeometry g = MakePoolGeometry(ctx, out.shape(), grad.shape(), MaxPoolExplicitPads(ctx));
  if (out.dtype() != kFloat64) return DnnlPoolGrad(ctx, g, PoolKind::kMax, &ctx.input(0), grad);
  const double* dy = grad.data<double>();
  double* dx = out.mutable_data<double>();
  std::fill(dx, dx + out.num_elements(), 0.0);
  ForEachArgmax(ctx.input(0).data<double>(), g, 0, g.batch,
                [&](int64_t out_index, int64_t in_index) { dx[in_index] += dy[out_index]; });
  return absl::OkStatus();
}

// Inputs: orig_input_shape, grad.
absl::Status AvgPoolGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const Tensor& grad = ctx.input(1);
  if (grad.num_elements() == 0) {
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  const PoolGeometry g = MakePoolGeometry(ctx, out.shape(), grad.shape(), nullptr);
  if (out.dtype() != kFloat64) return DnnlPoolGrad(ctx, g, PoolKind::kAvg, nullptr, grad);
  const int64_t c = g.channels;
  const double* dy = grad.data<double>();
  double* dx = out.mutable_data<double>();
  std::fill(dx, dx + out.num_elements(), 0.0);
  for (int64_t n = 0; n < g.batch; ++n) {
    double* image = dx + n * g.in[0] * g.in[1] * c;
    for (int64_t oh = 0; oh < g.out[0]; ++oh) {
      for (int64_t ow = 0; ow < g.out[1]; ++ow, dy += c) {
        const PoolGeometry::Window w = g.At(oh, ow);
        const double scale =
            1.0 / static_cast<double>((w.h_end - w.h_begin) * (w.w_end - w.w_begin));
        for (int64_t h = w.h_begin; h < w.h_end; ++h) {
          for (int64_t x = w.w_begin; x < w.w_end; ++x) {
            double* cell = image + (h * g.in[1] + x) * c;
            for (int64_t k = 0; k < c; ++k) cell[k] += dy[k] * scale;
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

// Inputs: orig_input, orig_output, grad (orig_input's shape); output: orig_output's shape.
template <typename T>
absl::Status MaxPoolGradGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const PoolGeometry g = MakePoolGeometry(ctx, ctx.input(0).shape(), out.shape(), nullptr);
  const T* input = ctx.input(0).data<T>();
  const T* grad = ctx.input(2).data<T>();
  T* result = out.mutable_data<T>();
  // Images are independent; split them so that each chunk has some 32K comparisons.
  const int64_t per_image = g.out[0] * g.out[1] * g.window[0] * g.window[1] * g.channels;
  ctx.pool().ParallelFor(g.batch, std::max<int64_t>(1, 32768 / std::max<int64_t>(per_image, 1)),
                         [&](int64_t begin, int64_t end) {
                           ForEachArgmax(input, g, begin, end,
                                         [&](int64_t out_index, int64_t in_index) {
                                           result[out_index] = grad[in_index];
                                         });
                         });
  return absl::OkStatus();
}

const KernelRegistrar kMaxPoolGrad("MaxPoolGrad", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                                   {MaxPoolGradKernel});
const KernelRegistrar kAvgPoolGrad("AvgPoolGrad", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                                   {AvgPoolGradKernel});
const KernelRegistrar kMaxPoolGradGradF32("MaxPoolGradGrad", DeviceType::kCpu, {kFloat32},
                                          {MaxPoolGradGradKernel<float>});
const KernelRegistrar kMaxPoolGradGradF64("MaxPoolGradGrad", DeviceType::kCpu, {kFloat64},
                                          {MaxPoolGradGradKernel<double>});
const KernelRegistrar kMaxPoolGradGradBF16("MaxPoolGradGrad", DeviceType::kCpu, {kBFloat16},
                                           {MaxPoolGradGradKernel<bfloat16>});

}  // namespace
}  // namespace duet
