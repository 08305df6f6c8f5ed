// The 50-op elementwise chain of the benchmarks (issue "duet::function" case (a), issue "Graph
// passes"): adds, multiplies and maxes with scalars and two same-shape tensors, a tanh every tenth
// op, as duet ops (ChainStep) and as the hand-written AVX2 loop that is its floor (HandChain).
// Shared by passes_bench and function_bench so both measure the same chain.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "duet.h"
#include "kernels/cpu/math/simd.h"

namespace duet {

// Op i of a chain: y = step(y), with scalars and the same-shape tensors p and q.
enum class ChainOp {
  kMulScalar,
  kAddTensor,
  kMaxTensor,
  kMulTensor,
  kAddScalar,
  kMaxScalar,
  kTanh
};
constexpr int kChainOps = 50;
using Cycle = ChainOp[10];  // op i is cycle[i % 10]
constexpr Cycle kTanhCycle = {ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kMaxTensor,
                              ChainOp::kMulTensor, ChainOp::kAddScalar, ChainOp::kMaxScalar,
                              ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kAddScalar,
                              ChainOp::kTanh};
constexpr Cycle kPlainCycle = {ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kMaxTensor,
                               ChainOp::kMulTensor, ChainOp::kAddScalar, ChainOp::kMaxScalar,
                               ChainOp::kMulScalar, ChainOp::kAddTensor, ChainOp::kAddScalar,
                               ChainOp::kMulScalar};
constexpr float kScale = 0.9f, kShift = 0.1f, kFloor = -0.5f;

Tensor ChainStep(ChainOp op, const Tensor& y, const Tensor& p, const Tensor& q) {
  switch (op) {
    case ChainOp::kMulScalar:
      return y * kScale;
    case ChainOp::kAddTensor:
      return y + p;
    case ChainOp::kMaxTensor:
      return maximum(y, q);
    case ChainOp::kMulTensor:
      return y * q;
    case ChainOp::kAddScalar:
      return y + kShift;
    case ChainOp::kMaxScalar:
      return maximum(y, constant(kFloor));
    case ChainOp::kTanh:
      return tanh(y);
  }
  return y;
}

// One op of the chain on a vector, chosen at compile time.
template <ChainOp kOp>
[[gnu::always_inline]] inline __m256 HandStep(__m256 y, __m256 p, __m256 q) {
  if constexpr (kOp == ChainOp::kMulScalar) return _mm256_mul_ps(y, _mm256_set1_ps(kScale));
  if constexpr (kOp == ChainOp::kAddTensor) return _mm256_add_ps(y, p);
  if constexpr (kOp == ChainOp::kMaxTensor) return _mm256_max_ps(y, q);
  if constexpr (kOp == ChainOp::kMulTensor) return _mm256_mul_ps(y, q);
  if constexpr (kOp == ChainOp::kAddScalar) return _mm256_add_ps(y, _mm256_set1_ps(kShift));
  if constexpr (kOp == ChainOp::kMaxScalar) return _mm256_max_ps(y, _mm256_set1_ps(kFloor));
  if constexpr (kOp == ChainOp::kTanh) return simd::Tanh(y);
}

// The 50 ops written out in sequence (a fold over the op indices) on kVectors independent
// vectors. The chain is one long dependency chain per vector: across SLEEF's calls one vector at
// a time waits on every op's latency, eight keep the pipelines full (without calls, the core
// overlaps consecutive vectors of the one-vector loop by itself). Inlined: as references into a
// call, the vectors would round-trip through memory at every op.
template <const Cycle& kCycle, int kVectors, size_t... kI>
[[gnu::always_inline]] inline void HandBody(__m256* y, const __m256* p, const __m256* q,
                                            std::index_sequence<kI...>) {
  auto step = [&]<ChainOp kOp>() {
    for (int v = 0; v < kVectors; ++v) y[v] = HandStep<kOp>(y[v], p[v], q[v]);
  };
  (step.template operator()<kCycle[kI % 10]>(), ...);
}

// out = the chain of x, p, q over [begin, end), kVectors vectors at a time: what a person writes
// for exactly this expression (SLEEF's tanh, as duet's kernels use; the hardware max). A tail
// shorter than a block goes through zero-padded buffers.
template <const Cycle& kCycle, int kVectors>
void HandChain(const float* x, const float* p, const float* q, float* out, int64_t begin,
               int64_t end) {
  constexpr int64_t kBlock = 8 * kVectors;
  auto block = [](const float* bx, const float* bp, const float* bq, float* bo) {
    __m256 y[kVectors], vp[kVectors], vq[kVectors];
    for (int v = 0; v < kVectors; ++v) {
      y[v] = _mm256_loadu_ps(bx + 8 * v);
      vp[v] = _mm256_loadu_ps(bp + 8 * v);
      vq[v] = _mm256_loadu_ps(bq + 8 * v);
    }
    HandBody<kCycle, kVectors>(y, vp, vq, std::make_index_sequence<kChainOps>());
    for (int v = 0; v < kVectors; ++v) _mm256_storeu_ps(bo + 8 * v, y[v]);
  };
  int64_t i = begin;
  for (; i + kBlock <= end; i += kBlock) block(x + i, p + i, q + i, out + i);
  if (i == end) return;
  float bx[kBlock] = {}, bp[kBlock] = {}, bq[kBlock] = {}, bo[kBlock];
  const size_t tail = static_cast<size_t>(end - i) * sizeof(float);
  std::memcpy(bx, x + i, tail);
  std::memcpy(bp, p + i, tail);
  std::memcpy(bq, q + i, tail);
  block(bx, bp, bq, bo);
  std::memcpy(out + i, bo, tail);
}

using HandFn = void (*)(const float*, const float*, const float*, float*, int64_t, int64_t);

}  // namespace duet
