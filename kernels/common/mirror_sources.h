// Where MirrorPadGrad gathers from, for the CPU and CUDA kernels alike (Note [Mirror padding] in
// kernels/common/mirror_pad_plan.h). Compiles under nvcc as C++17.
#pragma once

#include <cstdint>

#include "kernels/common/host_device.h"

namespace duet {

// The padded positions along one dim (unpadded extent `n`, paddings `before` and `after`) whose
// values MirrorPad takes from unpadded index i: the element itself and its images in the before
// and after pads, at most 3, written to `sources`; returns how many. SYMMETRIC repeats the edge
// element, REFLECT does not.
DUET_HOST_DEVICE int MirrorSources(int64_t i, int64_t n, int64_t before, int64_t after,
                                   bool symmetric, int64_t sources[3]) {
  const int64_t offset = symmetric ? 1 : 0;
  int count = 0;
  sources[count++] = before + i;
  const int64_t k_before = i - 1 + offset;  // padded position before - 1 - k_before
  if (k_before >= 0 && k_before < before) sources[count++] = before - 1 - k_before;
  const int64_t k_after = n - 2 + offset - i;  // padded position before + n + k_after
  if (k_after >= 0 && k_after < after) sources[count++] = before + n + k_after;
  return count;
}

}  // namespace duet
