// cuDNN descriptors and algorithm choices of 2-D and 3-D convolutions, cached per shape: building
// them (and asking cuDNN's heuristics for an algorithm) costs far more than a small convolution,
// and a training loop repeats the same few shapes.
//
// Layouts: activations NHWC (NDHWC); filters KRSC (cuDNN's NHWC filter, [out_c, h, w, in_c /
// groups], or [out_c, d, h, w, in_c] in 3-D), into which the kernels transpose duet's HWIO (DHWIO,
// or grouped, Note [Grouped convolution weights] in kernels/cpu/nn/conv_dnnl.cc) filters. Padding
// is symmetric (cuDNN's only kind); the kernels pad the input themselves for anything else and pass
// pad 0.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "kernels/common/first_working.h"

namespace duet::cuda {

enum class ConvDirection { kForward, kBackwardData, kBackwardFilter };

// Everything a cached plan depends on. The arrays are per spatial dim in the tensor's order
// ([height, width] or [depth, height, width]; entries past `rank` stay at their defaults); `in` is
// the input's size as cuDNN sees it (after any explicit padding by the kernel).
struct ConvKey {
  int device = 0;
  DType dtype = kFloat32;
  ConvDirection direction = ConvDirection::kForward;
  int rank = 2;
  int64_t batch = 0, in_c = 0, out_c = 0, groups = 1;  // grouped: cudnnSetConvolutionGroupCount
  int64_t in[3] = {0, 0, 0}, window[3] = {0, 0, 0}, out[3] = {0, 0, 0};
  int64_t pad[3] = {0, 0, 0}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};

  template <typename H>
  friend H AbslHashValue(H h, const ConvKey& k) {
    h = H::combine(std::move(h), k.device, k.dtype, k.direction, k.rank, k.batch, k.in_c, k.out_c,
                   k.groups);
    for (int d = 0; d < 3; ++d) {
      h = H::combine(std::move(h), k.in[d], k.window[d], k.out[d], k.pad[d], k.stride[d],
                     k.dilation[d]);
    }
    return h;
  }
  friend bool operator==(const ConvKey& a, const ConvKey& b) = default;
};

// One of cuDNN's algorithms for a plan, and the workspace it needs.
struct ConvAlgorithm {
  int algorithm = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t, by the key's direction
  size_t workspace_bytes = 0;
};

// The descriptors and algorithms of one key; immutable once cached but for `fallback`'s count, so
// threads share it (cuDNN only reads descriptors).
struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  // cuDNN's usable algorithms for the key, best first; never empty. Runs try them in order
  // through `fallback` (Note [cuDNN algorithm fallback]).
  std::vector<ConvAlgorithm> algorithms;
  FirstWorking fallback;

  ConvPlan() = default;
  ConvPlan(const ConvPlan&) = delete;
  ConvPlan& operator=(const ConvPlan&) = delete;
  ~ConvPlan();
};

// The plan of `key`, built on first use with `handle` (the device's, bound to its stream).
// float32 and float64 use FMA math only (no TF32 tensor cores) and skip the FFT and Winograd
// algorithms, whose rounding differs from a direct sum, so results match the CPU closely;
// bfloat16 may use tensor cores. float32 falls back to FFT or Winograd when nothing else is
// offered, float64 never (its kernels compute directly instead). Errors name the key's sizes; a key
// cuDNN has no algorithm for (Unimplemented) is remembered and fails again at once.
absl::StatusOr<const ConvPlan*> GetConvPlan(cudnnHandle_t handle, const ConvKey& key);

// Note [cuDNN algorithm fallback]
// cuDNN's heuristics rank the algorithms they find supported for a plan, but "supported" is no
// promise that a run succeeds: a call can still fail (NOT_SUPPORTED, EXECUTION_FAILED), and a
// workspace may not fit in memory. So a plan keeps every usable candidate, and the kernels try
// them in order (FirstWorking), as PyTorch's cuDNN convolutions do: an algorithm whose call failed
// is passed over by every later run of the plan; one whose workspace could not be allocated, by
// that run only. A plan whose algorithms all fail returns cuDNN's first error.

}  // namespace duet::cuda
