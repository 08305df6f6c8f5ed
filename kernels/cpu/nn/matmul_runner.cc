#include "kernels/cpu/nn/matmul_runner.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/matmul_geometry.h"
#include "kernels/cpu/common/dnnl_engine.h"
#include "kernels/cpu/common/dnnl_plan.h"
#include "kernels/cpu/math/elementwise.h"
#include "kernels/cpu/math/functors.h"
#include "kernels/cpu/nn/fused_epilogue.h"

namespace duet {
namespace {

// oneDNN's view of a stored operand: logical dims [batch..., rows, cols] of op(stored), with
// row-major strides of the stored layout, the last two swapped when transposed.
dnnl::memory::desc OperandDesc(const MatMulDims& stored, bool transposed,
                               dnnl::memory::data_type type) {
  const int r = static_cast<int>(stored.size());
  dnnl::memory::dims dims(stored.begin(), stored.end());
  dnnl::memory::dims strides(r);
  int64_t stride = 1;
  for (int i = r - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= std::max<int64_t>(stored[i], 1);
  }
  if (transposed) {
    std::swap(dims[r - 1], dims[r - 2]);
    std::swap(strides[r - 1], strides[r - 2]);
  }
  return dnnl::memory::desc(dims, type, strides);
}

constexpr DnnlPlanKind kMatMulPlan{"MatMul"};
constexpr DnnlPlanKind kFusedMatMulPlan{"_FusedMatMul"};
constexpr DnnlPlanKind kSubtractScaledPlan{"MatMulSubtractScaled"};

// The matmul primitive, with the epilogue's bias (broadcast over all but the last dim) and
// activation post-op when there is one; with `accumulate`, a sum post-op adds the product to dst's
// old value instead of overwriting it.
void BuildMatMulPlan(DnnlPlan& p, const MatMulGeometry& g, dnnl::memory::data_type type,
                     const FusedEpilogue* epilogue, bool accumulate = false) {
  const auto x = OperandDesc(g.x, g.adj_x, type);
  const auto y = OperandDesc(g.y, g.adj_y, type);
  const auto out = OperandDesc(g.out, false, type);
  p.AddBuffer(DNNL_ARG_SRC, x, DnnlUse::kRead);
  p.AddBuffer(DNNL_ARG_WEIGHTS, y, DnnlUse::kRead);
  const bool reads_dst = accumulate || (epilogue != nullptr && epilogue->add_residual);
  p.AddBuffer(DNNL_ARG_DST, out, reads_dst ? DnnlUse::kReadWrite : DnnlUse::kWrite);
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, p.buffer(DNNL_ARG_SRC)},
                                                {DNNL_ARG_WEIGHTS, p.buffer(DNNL_ARG_WEIGHTS)},
                                                {DNNL_ARG_DST, p.buffer(DNNL_ARG_DST)}};
  if (epilogue == nullptr) {
    dnnl::primitive_attr attr;
    if (accumulate) {
      dnnl::post_ops ops;
      ops.append_sum(1.0f);
      attr.set_post_ops(ops);
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, y, out), attr, DnnlEngine());
    p.AddStep(dnnl::matmul(pd), std::move(args));
    return;
  }
  MatMulDims bias_dims(g.rank(), 1);
  bias_dims.back() = g.n;
  const auto bias = OperandDesc(bias_dims, false, type);
  p.AddBuffer(DNNL_ARG_BIAS, bias, DnnlUse::kRead);
  args.emplace(DNNL_ARG_BIAS, p.buffer(DNNL_ARG_BIAS));
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x, y, bias, out), EpilogueDnnlAttr(*epilogue),
                                  DnnlEngine());
  p.AddStep(dnnl::matmul(pd), std::move(args));
}

absl::Status DnnlMatMul(KernelContext& ctx, const MatMulGeometry& g,
                        const FusedEpilogue* epilogue) {
  const DType dtype = ctx.input(0).dtype();
  if (g.rank() > DNNL_MAX_NDIMS) {
    return absl::UnimplementedError(
        absl::StrCat("matmul of rank ", g.rank(), " (oneDNN handles up to ", DNNL_MAX_NDIMS, ")"));
  }
  DnnlKey key = {static_cast<int64_t>(dtype), g.rank(), g.adj_x, g.adj_y};
  key.insert(key.end(), g.x.begin(), g.x.end());
  key.insert(key.end(), g.y.begin(), g.y.end());
  if (epilogue != nullptr) AppendEpilogueKey(*epilogue, key);
  DUET_ASSIGN_OR_RETURN(DnnlPlan * plan,
                        CachedDnnlPlan(epilogue ? kFusedMatMulPlan : kMatMulPlan, key, dtype,
                                       [&](DnnlPlan& p, dnnl::memory::data_type type) {
                                         BuildMatMulPlan(p, g, type, epilogue);
                                       }));
  if (epilogue != nullptr && epilogue->add_residual) MoveResidualIntoOutput(ctx);
  plan->Bind(DNNL_ARG_SRC, ctx.input(0));
  plan->Bind(DNNL_ARG_WEIGHTS, ctx.input(1));
  plan->Bind(DNNL_ARG_DST, ctx.output(0));
  if (epilogue != nullptr) plan->Bind(DNNL_ARG_BIAS, ctx.input(2));
  return plan->Run(absl::StrCat(epilogue ? "fused matmul " : "matmul ", DTypeName(dtype)));
}

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

absl::Status EigenMatMul(KernelContext& ctx, const MatMulGeometry& g) {
  const int r = g.rank();
  const int64_t batch = g.batch();
  const std::vector<int64_t> x_offsets = BatchOffsets(g.x, g.out, batch);
  const std::vector<int64_t> y_offsets = BatchOffsets(g.y, g.out, batch);
  const double* x = ctx.input(0).data<double>();
  const double* y = ctx.input(1).data<double>();
  double* out = ctx.output(0).mutable_data<double>();
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      Eigen::Map<const RowMajorMatrix> a(x + x_offsets[b], g.x[r - 2], g.x[r - 1]);
      Eigen::Map<const RowMajorMatrix> c(y + y_offsets[b], g.y[r - 2], g.y[r - 1]);
      Eigen::Map<RowMajorMatrix> o(out + b * g.m * g.n, g.m, g.n);
      if (g.adj_x && g.adj_y) {
        o.noalias() = a.transpose() * c.transpose();
      } else if (g.adj_x) {
        o.noalias() = a.transpose() * c;
      } else if (g.adj_y) {
        o.noalias() = a * c.transpose();
      } else {
        o.noalias() = a * c;
      }
    }
  };
  // Parallel over batches only when each chunk carries enough multiply-adds to pay for a thread.
  const int64_t flops = std::max<int64_t>(g.m * g.n * g.k, 1);
  ctx.pool().ParallelFor(batch, std::max<int64_t>(1, (1 << 16) / flops), run);
  return absl::OkStatus();
}

// value -= alpha x y: the matmul plan with a sum post-op (dst += x y, reading dst's old value).
// No output scale: oneDNN 2.6 serves a runtime one only with its packing sgemm (gemm:jit), whose
// per-call packing buffers (megabytes) raise peak memory more than the gradient this saves, and a
// constant one would need a plan per learning rate. -alpha is folded into an operand instead (see
// MatMulSubtractScaled); this plan (brgemm) is cached per shape alone.
absl::Status DnnlSubtractScaled(const Tensor& a, const Tensor& b, const MatMulGeometry& g,
                                float alpha, Tensor& value, bool a_is_scratch, bool b_is_scratch) {
  DnnlKey key = {static_cast<int64_t>(a.dtype()), g.adj_x, g.adj_y};
  key.insert(key.end(), g.x.begin(), g.x.end());
  key.insert(key.end(), g.y.begin(), g.y.end());
  DUET_ASSIGN_OR_RETURN(DnnlPlan * plan,
                        CachedDnnlPlan(kSubtractScaledPlan, key, a.dtype(),
                                       [&](DnnlPlan& p, dnnl::memory::data_type type) {
                                         BuildMatMulPlan(p, g, type, nullptr, /*accumulate=*/true);
                                       }));
  // The operand to scale: the smaller of those the caller gives up, scaled where it lies; else the
  // smaller, copied into a per-thread buffer that only grows (for a 784x256 weight gradient from a
  // batch of 64: 64 KB instead of the 784 KB gradient), reused every step.
  const bool a_smaller = a.num_elements() <= b.num_elements();
  const bool scale_a = a_is_scratch == b_is_scratch ? a_smaller : a_is_scratch;
  const Tensor& operand = scale_a ? a : b;
  const int64_t n = operand.num_elements();
  float* scaled = nullptr;
  if (scale_a ? a_is_scratch : b_is_scratch) {
    scaled = static_cast<float*>(const_cast<void*>(operand.raw_data()));
    const simd::VecT<float> factor = simd::Set1<simd::VecT<float>>(-alpha);
    simd::Map(scaled, scaled, n, [&](auto v) { return v * factor; });  // loads before it stores
  } else {
    thread_local std::vector<float> copy;
    copy.resize(std::max<size_t>(copy.size(), n));
    MapSV(-alpha, operand.data<float>(), copy.data(), n, MulFn{});  // vectorized
    scaled = copy.data();
  }
  plan->Bind(DNNL_ARG_SRC, scale_a ? scaled : a.raw_data(), kFloat32);
  plan->Bind(DNNL_ARG_WEIGHTS, scale_a ? b.raw_data() : scaled, kFloat32);
  plan->Bind(DNNL_ARG_DST, value);
  return plan->Run(absl::StrCat("matmul gradient update ", DTypeName(a.dtype())));
}

void EigenSubtractScaled(const Tensor& a, const Tensor& b, const MatMulGeometry& g, double alpha,
                         Tensor& value) {
  Eigen::Map<const RowMajorMatrix> x(a.data<double>(), g.x[0], g.x[1]);
  Eigen::Map<const RowMajorMatrix> y(b.data<double>(), g.y[0], g.y[1]);
  Eigen::Map<RowMajorMatrix> o(value.mutable_data<double>(), g.m, g.n);
  if (g.adj_x && g.adj_y) {
    o.noalias() -= alpha * (x.transpose() * y.transpose());
  } else if (g.adj_x) {
    o.noalias() -= alpha * (x.transpose() * y);
  } else if (g.adj_y) {
    o.noalias() -= alpha * (x * y.transpose());
  } else {
    o.noalias() -= alpha * (x * y);
  }
}

}  // namespace

absl::Status MatMulSubtractScaled(const Tensor& a, const Tensor& b, bool adj_a, bool adj_b,
                                  double alpha, Tensor& value, bool a_is_scratch,
                                  bool b_is_scratch) {
  const MatMulGeometry g = MakeMatMulGeometry(a.shape(), b.shape(), value.shape(), adj_a, adj_b);
  if (value.num_elements() == 0 || g.k == 0) return absl::OkStatus();  // subtracts zeros
  if (value.dtype() == kFloat64) {
    EigenSubtractScaled(a, b, g, alpha, value);
    return absl::OkStatus();
  }
  return DnnlSubtractScaled(a, b, g, static_cast<float>(alpha), value, a_is_scratch, b_is_scratch);
}

absl::Status RunMatMul(KernelContext& ctx, bool adj_x, bool adj_y, const FusedEpilogue* epilogue) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const MatMulGeometry g =
      MakeMatMulGeometry(ctx.input(0).shape(), ctx.input(1).shape(), out.shape(), adj_x, adj_y);
  if (g.k > 0 && out.dtype() != kFloat64) return DnnlMatMul(ctx, g, epilogue);
  Tensor residual;
  if (epilogue != nullptr && epilogue->add_residual) residual = ResidualBeforeOverwrite(ctx);
  if (g.k == 0) {  // an empty sum: zeros (all-zero bits are 0 in every float type)
    std::memset(out.raw_data(), 0, out.nbytes());
  } else {
    DUET_RETURN_IF_ERROR(EigenMatMul(ctx, g));
  }
  if (epilogue != nullptr) {
    ApplyFusedEpilogue(*epilogue, ctx.input(2), residual.defined() ? &residual : nullptr, out,
                       ctx.pool());
  }
  return absl::OkStatus();
}

}  // namespace duet
