// Registering one kernel template for every dtype.
#pragma once

#include "kernels/kernel_registry.h"

namespace duet {

// Registers make(T{}) — a KernelFn, typically Kernel<T> — as the CPU kernel of `op` for every
// numeric dtype (strings get explicit kernels only: Note [String tensors] in core/tensor.cc).
// Returns true so it can initialize a file-local constant at static-initialization time:
//   const bool kFill = RegisterAllDTypes("Fill", [](auto t) -> KernelFn {
//     return FillKernel<decltype(t)>;
//   });
template <typename Make>
bool RegisterAllDTypes(absl::string_view op, Make make, bool allocates_outputs = false) {
  for (int i = 0; i < kNumNumericDTypes; ++i) {
    const DType dtype = static_cast<DType>(i);
    VisitDType(dtype, [&](auto zero) {
      RegisterKernel(op, DeviceType::kCpu, {dtype}, KernelDef{make(zero), allocates_outputs});
    });
  }
  return true;
}

}  // namespace duet
