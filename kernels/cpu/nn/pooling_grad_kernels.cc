// MaxPoolGrad, AvgPoolGrad and MaxPoolGradGrad on the CPU, and their NDHWC twins MaxPool3DGrad,
// AvgPool3DGrad and MaxPool3DGradGrad (the same kernels). MaxPoolGrad and AvgPoolGrad use
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
#include "kernels/common/channels_last_kernel.h"
#include "kernels/common/pool_geometry.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/nn/pool_dnnl.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

constexpr DnnlPlanKind kPoolGradPlan{"pooling backward"};

// Max: forward pooling with a workspace (its output is scratch), then backward with that
// workspace. Average: backward alone.
void BuildPoolGradPlan(DnnlPlan& p, const PoolGeometry& g, PoolKind kind,
                       dnnl::memory::data_type type) {
  const PoolDescs d(g, kind, type);
  const dnnl::pooling_forward::primitive_desc forward =
      d.Forward(dnnl::prop_kind::forward_training);
  const dnnl::pooling_backward::primitive_desc backward(
      dnnl::pooling_backward::desc(d.algorithm, d.src, d.dst, d.strides, d.kernel, d.pad_before,
                                   d.pad_after),
      DnnlEngine(), forward);
  p.AddBuffer(DNNL_ARG_DIFF_DST, d.dst, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_DIFF_SRC, d.src, DnnlUse::kWrite);
  std::unordered_map<int, dnnl::memory> backward_args = {
      {DNNL_ARG_DIFF_DST, p.buffer(DNNL_ARG_DIFF_DST)},
      {DNNL_ARG_DIFF_SRC, p.buffer(DNNL_ARG_DIFF_SRC)}};
  if (kind == PoolKind::kMax) {
    p.AddBuffer(DNNL_ARG_SRC, d.src, DnnlUse::kRead);
    const dnnl::memory workspace = p.AddScratch(forward.workspace_desc());
    p.AddStep(dnnl::pooling_forward(forward), {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                               {DNNL_ARG_DST, p.AddScratch(d.dst)},
                                               {DNNL_ARG_WORKSPACE, workspace}});
    backward_args[DNNL_ARG_WORKSPACE] = workspace;
  }
  p.AddStep(dnnl::pooling_backward(backward), std::move(backward_args));
}

// `orig_input` is null for average pooling; `grad` is the gradient of the pooling's output.
absl::Status DnnlPoolGrad(KernelContext& ctx, const PoolGeometry& g, PoolKind kind,
                          const Tensor* orig_input, const Tensor& grad) {
  const DType dtype = grad.dtype();
  DUET_ASSIGN_OR_RETURN(DnnlPlan * plan,
                        CachedDnnlPlan(kPoolGradPlan, PoolDnnlKey(dtype, kind, g), dtype,
                                       [&](DnnlPlan& p, dnnl::memory::data_type type) {
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

// Calls fn(out_index, in_index) for each output cell and channel of images [n_begin, n_end) of the
// 3-D pooling `g` (PoolGeometry::As3D), where out_index and in_index are the flat NDHWC offsets of
// the cell and of its window's first maximum in `input` (row-major; only strictly greater values
// replace the running maximum).
template <typename T, typename Fn>
void ForEachArgmax(const T* input, const PoolGeometry& g, int64_t n_begin, int64_t n_end, Fn&& fn) {
  const int64_t c = g.channels;
  std::vector<double> best(c);
  std::vector<int64_t> best_index(c);
  for (int64_t n = n_begin; n < n_end; ++n) {
    const int64_t image = n * g.InCells() * c;
    const int64_t pooled = n * g.OutCells() * c;
    g.ForEachWindow([&](int64_t out_cell, const PoolGeometry::Window& w) {
      // The shape functions keep padding smaller than the window, so it holds an input cell.
      std::fill(best_index.begin(), best_index.end(), -1);
      g.ForEachCell(w, [&](int64_t in_cell) {
        const int64_t cell = image + in_cell * c;
        for (int64_t k = 0; k < c; ++k) {
          const double v = AsDouble(input[cell + k]);
          if (best_index[k] < 0 || v > best[k]) {
            best[k] = v;
            best_index[k] = cell + k;
          }
        }
      });
      for (int64_t k = 0; k < c; ++k) fn(pooled + out_cell * c + k, best_index[k]);
    });
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
  ForEachArgmax(ctx.input(0).data<double>(), g.As3D(), 0, g.batch,
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
  const PoolGeometry g3 = g.As3D();
  const int64_t c = g3.channels;
  const double* dy = grad.data<double>();
  double* dx = out.mutable_data<double>();
  std::fill(dx, dx + out.num_elements(), 0.0);
  for (int64_t n = 0; n < g3.batch; ++n) {
    double* image = dx + n * g3.InCells() * c;
    const double* pooled = dy + n * g3.OutCells() * c;
    g3.ForEachWindow([&](int64_t out_cell, const PoolGeometry::Window& w) {
      const double scale = 1.0 / static_cast<double>(w.Cells());
      const double* from = pooled + out_cell * c;
      g3.ForEachCell(w, [&](int64_t in_cell) {
        double* cell = image + in_cell * c;
        for (int64_t k = 0; k < c; ++k) cell[k] += from[k] * scale;
      });
    });
  }
  return absl::OkStatus();
}

// Inputs: orig_input, orig_output, grad (orig_input's shape); output: orig_output's shape.
template <typename T>
absl::Status MaxPoolGradGradKernel(KernelContext& ctx) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const PoolGeometry g = MakePoolGeometry(ctx, ctx.input(0).shape(), out.shape(), nullptr).As3D();
  const T* input = ctx.input(0).data<T>();
  const T* grad = ctx.input(2).data<T>();
  T* result = out.mutable_data<T>();
  // Images are independent; split them so that each chunk has some 32K comparisons.
  const int64_t per_image =
      g.out[0] * g.out[1] * g.out[2] * g.window[0] * g.window[1] * g.window[2] * g.channels;
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
                                   {ChannelsLast<MaxPoolGradKernel>});
const KernelRegistrar kAvgPoolGrad("AvgPoolGrad", DeviceType::kCpu, {kFloat32, kFloat64, kBFloat16},
                                   {ChannelsLast<AvgPoolGradKernel>});
const KernelRegistrar kMaxPool3DGrad("MaxPool3DGrad", DeviceType::kCpu, {kFloat32, kBFloat16},
                                     {MaxPoolGradKernel});
const KernelRegistrar kAvgPool3DGrad("AvgPool3DGrad", DeviceType::kCpu,
                                     {kFloat32, kFloat64, kBFloat16}, {AvgPoolGradKernel});

const bool kMaxPoolGradGradRegistered = [] {
  for (const char* op : {"MaxPoolGradGrad", "MaxPool3DGradGrad"}) {
    RegisterKernel(op, DeviceType::kCpu, {kFloat32},
                   KernelDef{&ChannelsLast<MaxPoolGradGradKernel<float>>});
    RegisterKernel(op, DeviceType::kCpu, {kFloat64},
                   KernelDef{&ChannelsLast<MaxPoolGradGradKernel<double>>});
    RegisterKernel(op, DeviceType::kCpu, {kBFloat16},
                   KernelDef{&ChannelsLast<MaxPoolGradGradKernel<bfloat16>>});
  }
  return true;
}();

}  // namespace
}  // namespace duet
