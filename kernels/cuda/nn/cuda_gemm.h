// Row-major (batched) matrix products on cuBLAS, the core of MatMul, BatchMatMulV2, _FusedMatMul
// and _ResourceApplyMatMulGradientDescent. cuBLAS is column-major: a row-major C = op(A) op(B) is
// the column-major C^T = op(B)^T op(A)^T, so the operands go in swapped and nothing is copied.
#pragma once

#include <cublas_v2.h>

#include <cstdint>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/error.h"

namespace duet::cuda {

// One (strided-batched) product out[b] = alpha * op(x[b]) op(y[b]) + beta * out[b] for b in
// [0, batch): op(x) is [m, k] (x stored [k, m] when adj_x), op(y) [k, n], out [m, n], all
// row-major; operand b starts stride_* elements after operand b - 1 (0 broadcasts one matrix).
struct RowMajorGemm {
  DType dtype = kFloat32;  // of x, y and out: float32, float64, float16 or bfloat16
  bool adj_x = false, adj_y = false;
  int64_t m = 0, n = 0, k = 0;
  const void* x = nullptr;
  const void* y = nullptr;
  void* out = nullptr;
  int64_t stride_x = 0, stride_y = 0, stride_out = 0;
  int64_t batch = 1;
  // In the compute type (double for float64, float otherwise), host memory unless the handle's
  // pointer mode is CUBLAS_POINTER_MODE_DEVICE. Null means 1 and 0.
  const void* alpha = nullptr;
  const void* beta = nullptr;
};

// Runs `gemm` on `handle` (bound to the device's stream). float32 computes in float32 unless
// allow_tf32() (core/device.h); the 16-bit types accumulate in float32. m, n, k > 0.
// InvalidArgument when a dim or leading dimension exceeds cuBLAS's 32-bit int.
absl::Status RunRowMajorGemm(cublasHandle_t handle, const RowMajorGemm& gemm);

}  // namespace duet::cuda
