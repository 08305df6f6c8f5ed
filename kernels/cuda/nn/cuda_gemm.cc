#include "kernels/cuda/nn/cuda_gemm.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "core/device.h"
#include "core/error.h"
#include "kernels/cuda/cuda_context.h"

namespace duet::cuda {
namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

absl::StatusOr<GemmTypes> TypesOf(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return GemmTypes{CUDA_R_32F,
                       allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
    case kFloat64:
      return GemmTypes{CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case kFloat16:
      return GemmTypes{CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case kBFloat16:
      return GemmTypes{CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no cuBLAS matmul for dtype ", DTypeName(dtype)));
  }
}

bool FitsInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }

}  // namespace

absl::Status RunRowMajorGemm(cublasHandle_t handle, const RowMajorGemm& g) {
  DUET_ASSIGN_OR_RETURN(const GemmTypes types, TypesOf(g.dtype));
  // Column-major view (see the header): C^T [n, m] = op(y)^T [n, k] x op(x)^T [k, m]. A row-major
  // [r, c] matrix is a column-major [c, r] one with leading dimension c.
  const int64_t ld_y = g.adj_y ? g.k : g.n;
  const int64_t ld_x = g.adj_x ? g.m : g.k;
  const int64_t ld_out = g.n;
  for (int64_t v : {g.m, g.n, g.k, ld_x, ld_y, ld_out, g.batch}) {
    if (!FitsInt(v)) {
      return absl::InvalidArgumentError(absl::StrCat("matmul of [", g.m, ", ", g.k, "] x [", g.k,
                                                     ", ", g.n, "] (batch ", g.batch,
                                                     ") exceeds cuBLAS's 32-bit sizes"));
    }
  }
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const bool f64 = g.dtype == kFloat64;
  const void* alpha = g.alpha ? g.alpha : (f64 ? static_cast<const void*>(&one_d) : &one_f);
  const void* beta = g.beta ? g.beta : (f64 ? static_cast<const void*>(&zero_d) : &zero_f);
  const cublasOperation_t op_y = g.adj_y ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_x = g.adj_x ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (g.batch == 1) {
    DUET_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(
        handle, op_y, op_x, static_cast<int>(g.n), static_cast<int>(g.m), static_cast<int>(g.k),
        alpha, g.y, types.data, static_cast<int>(ld_y), g.x, types.data, static_cast<int>(ld_x),
        beta, g.out, types.data, static_cast<int>(ld_out), types.compute, CUBLAS_GEMM_DEFAULT));
    return absl::OkStatus();
  }
  DUET_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
      handle, op_y, op_x, static_cast<int>(g.n), static_cast<int>(g.m), static_cast<int>(g.k),
      alpha, g.y, types.data, static_cast<int>(ld_y), g.stride_y, g.x, types.data,
      static_cast<int>(ld_x), g.stride_x, beta, g.out, types.data, static_cast<int>(ld_out),
      g.stride_out, static_cast<int>(g.batch), types.compute, CUBLAS_GEMM_DEFAULT));
  return absl::OkStatus();
}

}  // namespace duet::cuda
