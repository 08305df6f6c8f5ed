// MatMul, BatchMatMulV2, _FusedMatMul and _ResourceApplyMatMulGradientDescent on CUDA: cuBLAS
// (cuda_gemm.h), then for _FusedMatMul the bias + activation epilogue as one elementwise kernel
// in place on the product. float32 products are exact float32 unless set_allow_tf32(true).
//
// Not cublasLt's fused epilogues: they cover Relu/GELU but not Relu6, Elu, Tanh, Sigmoid or
// LeakyRelu, and the extra pass over [m, n] is small next to the product; one path serves all.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "core/resource.h"
#include "kernels/common/fused_epilogue.h"
#include "kernels/common/matmul_geometry.h"
#include "kernels/common/variable_update.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/nn/activation_launchers.h"
#include "kernels/cuda/nn/cuda_gemm.h"
#include "kernels/cuda/nn/fused_activation.h"
#include "kernels/cuda/nn/nn_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "ops/nn/nn_attrs.h"

namespace duet {
namespace {

// The common stride of `offsets` (offsets[b] == b * stride), or -1 when there is none.
int64_t UniformStride(const std::vector<int64_t>& offsets) {
  if (offsets.size() < 2) return 0;
  const int64_t stride = offsets[1] - offsets[0];
  if (offsets[0] != 0) return -1;
  for (size_t b = 1; b < offsets.size(); ++b) {
    if (offsets[b] != static_cast<int64_t>(b) * stride) return -1;
  }
  return stride;
}

// out = op(input 0) x op(input 1) over the last two dims with batch dims broadcast, into the
// allocated output 0. One strided-batched call when each operand's batches are evenly spaced
// (full batches or one broadcast matrix); otherwise one call per run of the innermost batch dim,
// inside which the spacing is always even.
absl::Status RunMatMul(KernelContext& ctx, bool adj_x, bool adj_y, cuda::DeviceContext* device) {
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const MatMulGeometry mm =
      MakeMatMulGeometry(ctx.input(0).shape(), ctx.input(1).shape(), out.shape(), adj_x, adj_y);
  const int rank = mm.rank();
  const MatMulDims& x = mm.x;
  const MatMulDims& y = mm.y;
  cuda::RowMajorGemm g;
  g.dtype = out.dtype();
  g.adj_x = adj_x;
  g.adj_y = adj_y;
  g.m = mm.m;
  g.n = mm.n;
  g.k = mm.k;
  if (g.k == 0) {  // an empty sum: zeros (all-zero bits are 0 in every float type)
    return cuda::CudaStatus(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), device->stream()),
                            "cudaMemsetAsync");
  }
  DUET_ASSIGN_OR_RETURN(cublasHandle_t handle, device->cublas());
  const int64_t batch = mm.batch();
  const size_t elem = DTypeSize(g.dtype);
  const char* x_data = static_cast<const char*>(ctx.input(0).raw_data());
  const char* y_data = static_cast<const char*>(ctx.input(1).raw_data());
  char* out_data = static_cast<char*>(out.raw_data());
  g.stride_out = g.m * g.n;
  if (batch == 1) {
    g.x = x_data;
    g.y = y_data;
    g.out = out_data;
    return cuda::RunRowMajorGemm(handle, g);
  }
  const std::vector<int64_t> x_offsets = BatchOffsets(x, mm.out, batch);
  const std::vector<int64_t> y_offsets = BatchOffsets(y, mm.out, batch);
  const int64_t x_stride = UniformStride(x_offsets), y_stride = UniformStride(y_offsets);
  if (x_stride >= 0 && y_stride >= 0) {
    g.x = x_data;
    g.y = y_data;
    g.out = out_data;
    g.stride_x = x_stride;
    g.stride_y = y_stride;
    g.batch = batch;
    return cuda::RunRowMajorGemm(handle, g);
  }
  const int64_t inner = mm.out[rank - 3];  // > 1 here: else the spacing would be even
  g.batch = inner;
  g.stride_x = x[rank - 3] == 1 ? 0 : x[rank - 2] * x[rank - 1];
  g.stride_y = y[rank - 3] == 1 ? 0 : y[rank - 2] * y[rank - 1];
  for (int64_t b = 0; b < batch; b += inner) {
    g.x = x_data + x_offsets[b] * elem;
    g.y = y_data + y_offsets[b] * elem;
    g.out = out_data + b * g.stride_out * elem;
    DUET_RETURN_IF_ERROR(cuda::RunRowMajorGemm(handle, g));
  }
  return absl::OkStatus();
}

absl::Status MatMulKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return RunMatMul(ctx, ctx.attr(MatMulAttrs::kTransposeA), ctx.attr(MatMulAttrs::kTransposeB),
                   device);
}

absl::Status BatchMatMulKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  return RunMatMul(ctx, ctx.attr(BatchMatMulAttrs::kAdjX), ctx.attr(BatchMatMulAttrs::kAdjY),
                   device);
}

// Inputs: a, b, bias[, residual] (fused_ops as kernels/common/fused_epilogue.h reads them; the
// shape function checked the args).
absl::Status FusedMatMulKernel(KernelContext& ctx) {
  DUET_ASSIGN_OR_RETURN(const FusedEpilogue epilogue,
                        ReadFusedEpilogue(ctx.attr(FusedMatMulAttrs::kFusedOps),
                                          ctx.attr(FusedMatMulAttrs::kLeakyReluAlpha)));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  DUET_RETURN_IF_ERROR(RunMatMul(ctx, ctx.attr(MatMulAttrs::kTransposeA),
                                 ctx.attr(MatMulAttrs::kTransposeB), device));
  return cuda::ApplyFusedEpilogue(ctx, epilogue, ctx.output(0), device->stream(),
                                  "fused matmul epilogue");
}

// Inputs: var (resource), alpha (scalar), a, b: var -= alpha * op(a) x op(b), accumulated by
// cuBLAS into the variable's buffer (beta = 1), so the gradient is never stored.
absl::Status MatMulApplyGradientDescentKernel(KernelContext& ctx) {
  VariableResource* variable = VariableOf(ctx.input(0));
  if (variable == nullptr) return absl::InvalidArgumentError("input 0 is not a variable handle");
  const Tensor& alpha = ctx.input(1);
  const Tensor& a = ctx.input(2);
  const Tensor& b = ctx.input(3);
  const bool ta = ctx.attr(MatMulAttrs::kTransposeA), tb = ctx.attr(MatMulAttrs::kTransposeB);
  DUET_ASSIGN_OR_RETURN(const Shape product, MatrixProductShape(a.shape(), b.shape(), ta, tb));
  DUET_RETURN_IF_ERROR(CheckAssignable(*variable, a.dtype(), product));
  DUET_ASSIGN_OR_RETURN(cuda::DeviceContext * device, cuda::CurrentContext(ctx.device()));
  std::lock_guard<std::mutex> lock(variable->mu);
  DUET_RETURN_IF_ERROR(CheckUpdateMatchesValue(*variable, "the product", a.dtype(), product));
  DUET_ASSIGN_OR_RETURN(Tensor result, WritableValue(*variable, ctx.device(), /*copy_value=*/true));
  const int64_t k = a.shape()[ta ? 0 : 1];
  if (result.num_elements() > 0 && k > 0) {
    cuda::RowMajorGemm g;
    g.dtype = a.dtype();
    g.adj_x = ta;
    g.adj_y = tb;
    g.m = product[0];
    g.n = product[1];
    g.k = k;
    g.x = a.raw_data();
    g.y = b.raw_data();
    g.out = result.raw_data();
    const bool f64 = a.dtype() == kFloat64;
    if (alpha.device().is_cpu()) {
      DUET_ASSIGN_OR_RETURN(cublasHandle_t handle, device->cublas());
      const double a_value = f64 ? *alpha.data<double>() : *alpha.data<float>();
      const double minus_d = -a_value, one_d = 1.0;
      const float minus_f = static_cast<float>(-a_value), one_f = 1.0f;
      g.alpha = f64 ? static_cast<const void*>(&minus_d) : &minus_f;
      g.beta = f64 ? static_cast<const void*>(&one_d) : &one_f;
      DUET_RETURN_IF_ERROR(cuda::RunRowMajorGemm(handle, g));
    } else {
      // alpha stays on the device: -alpha and 1 are written there and read by cuBLAS in device
      // pointer mode, so the update never waits for the stream.
      DUET_ASSIGN_OR_RETURN(Tensor scalars, Tensor::TryEmpty(a.dtype(), Shape{2}, ctx.device()));
      DUET_ASSIGN_OR_RETURN(const cuda::NnType type, cuda::ToNnType(a.dtype()));
      DUET_RETURN_IF_ERROR(
          cuda::CudaStatus(cuda::LaunchNegatedScalarAndOne(type, alpha.raw_data(),
                                                           scalars.raw_data(), device->stream()),
                           "gradient descent scalars"));
      const char* base = static_cast<const char*>(scalars.raw_data());
      g.alpha = base;
      g.beta = base + DTypeSize(a.dtype());
      DUET_ASSIGN_OR_RETURN(cublasHandle_t handle, device->cublas_device_scalars());
      DUET_RETURN_IF_ERROR(cuda::RunRowMajorGemm(handle, g));
    }
  }
  variable->value = std::move(result);
  return absl::OkStatus();
}

const bool kRegistered = [] {
  for (DType dtype : {kFloat32, kFloat64, kBFloat16}) {
    RegisterKernel("MatMul", DeviceType::kCuda, {dtype}, KernelDef{&MatMulKernel});
    RegisterKernel("BatchMatMulV2", DeviceType::kCuda, {dtype}, KernelDef{&BatchMatMulKernel});
    RegisterKernel("_FusedMatMul", DeviceType::kCuda, {dtype}, KernelDef{&FusedMatMulKernel});
  }
  RegisterKernel("_ResourceApplyMatMulGradientDescent", DeviceType::kCuda, {kFloat32, kFloat64},
                 KernelDef{&MatMulApplyGradientDescentKernel});
  return true;
}();

}  // namespace
}  // namespace duet
