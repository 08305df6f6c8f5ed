// Vectorized bulk conversions between float32 and the 16-bit float types, the building blocks of
// every Cast to or from float16/bfloat16 (other dtypes are staged through float32), of the 16-bit
// elementwise kernels, and of oneDNN plans that compute 16-bit data in float32 (dnnl_plan.h).
#pragma once

#include <cstdint>

#include "core/half.h"

namespace duet {

// y[i] = float(x[i]) for i < n, exactly (F16C instructions).
void HalfToFloat(const float16* x, float* y, int64_t n);
// y[i] = float16(x[i]), rounding to nearest even; overflow gives inf.
void FloatToHalf(const float* x, float16* y, int64_t n);
// y[i] = float(x[i]) for i < n, exactly.
void BFloat16ToFloat(const bfloat16* x, float* y, int64_t n);
// y[i] = bfloat16(x[i]), rounding to nearest even; NaN stays a quiet NaN.
void FloatToBFloat16(const float* x, bfloat16* y, int64_t n);

}  // namespace duet
