// oneDNN's f32 matmul called directly on raw pointers, without duet's op dispatch or plan cache:
// the baseline benchmarks compare duet's matmul against.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace duet {

// A oneDNN f32 matmul primitive for fixed sizes, built once and run many times:
// c[m, n] = op(a) * op(b), all row-major, op(a) = a^T when transpose_a (a then stored k x m).
class DirectDnnlMatMul {
 public:
  // Builds the primitive; throws dnnl::error when oneDNN cannot.
  DirectDnnlMatMul(int64_t m, int64_t k, int64_t n, bool transpose_a = false,
                   bool transpose_b = false);
  // Runs c = op(a) * op(b) on the calling thread's stream and waits.
  void Run(const float* a, const float* b, float* c);

 private:
  dnnl::matmul primitive_;
  dnnl::memory a_, b_, c_;
};

// One-shot c[m, n] = a[m, k] * b[k, n] (row-major f32): builds the primitive and runs it once.
absl::Status DnnlMatMulF32(const float* a, const float* b, float* c, int64_t m, int64_t k,
                           int64_t n);

}  // namespace duet
