// cuDNN descriptors and algorithm choices of 2-D convolutions, cached per shape: building them
// (and asking cuDNN's heuristics for an algorithm) costs far more than a small convolution, and a
// training loop repeats the same few shapes.
//
// Layouts: activations NHWC; filters KRSC (cuDNN's NHWC filter, [out_c, h, w, in_c / groups]),
// into which the kernels transpose duet's HWIO (or grouped, Note [Grouped convolution weights] in
// kernels/cpu/nn/conv_dnnl.cc) filters. Padding is symmetric (cuDNN's only kind); the kernels
// pad the input themselves for anything else and pass pad 0.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "core/dtype.h"

namespace duet::cuda {

enum class ConvDirection { kForward, kBackwardData, kBackwardFilter };

// Everything a cached plan depends on. `in_h`/`in_w` are the input's as cuDNN sees it (after any
// explicit padding by the kernel).
struct ConvKey {
  int device = 0;
  DType dtype = kFloat32;
  ConvDirection direction = ConvDirection::kForward;
  int64_t batch = 0, in_c = 0, out_c = 0, groups = 1;  // grouped: cudnnSetConvolutionGroupCount
  int64_t in_h = 0, in_w = 0, window_h = 0, window_w = 0, out_h = 0, out_w = 0;
  int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;

  template <typename H>
  friend H AbslHashValue(H h, const ConvKey& k) {
    return H::combine(std::move(h), k.device, k.dtype, k.direction, k.batch, k.in_c, k.out_c,
                      k.groups, k.in_h, k.in_w, k.window_h, k.window_w, k.out_h, k.out_w, k.pad_h,
                      k.pad_w, k.stride_h, k.stride_w, k.dilation_h, k.dilation_w);
  }
  friend bool operator==(const ConvKey& a, const ConvKey& b) = default;
};

// The descriptors, algorithm and workspace size of one key; immutable once cached, so threads
// share it (cuDNN only reads descriptors).
struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  // A cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t, by the key's direction.
  int algorithm = 0;
  size_t workspace_bytes = 0;

  ConvPlan() = default;
  ConvPlan(const ConvPlan&) = delete;
  ConvPlan& operator=(const ConvPlan&) = delete;
  ~ConvPlan();
};

// The plan of `key`, built on first use with `handle` (the device's, bound to its stream).
// float32 and float64 use FMA math only (no TF32 tensor cores) and skip the FFT and Winograd
// algorithms, whose rounding differs from a direct sum, so results match the CPU closely;
// bfloat16 may use tensor cores. Errors name the key's sizes.
absl::StatusOr<const ConvPlan*> GetConvPlan(cudnnHandle_t handle, const ConvKey& key);

}  // namespace duet::cuda
