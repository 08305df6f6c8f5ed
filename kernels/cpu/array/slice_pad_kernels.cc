// Slice and Pad: a strided block copy out of, or into, a bigger tensor.
#include <cstring>

#include "core/int_values.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

absl::Status SliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  StridedCopy(SliceCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
              out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

absl::Status PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  std::memset(out.raw_data(), 0, out.nbytes());  // zero bits are 0 / 0.0 / false in every dtype
  if (x.num_elements() == 0) return absl::OkStatus();
  StridedCopy(PadCopy(x.shape(), out.shape(), IntValues(ctx.input(1))), x.raw_data(),
              out.raw_data(), DTypeSize(x.dtype()), ctx.pool());
  return absl::OkStatus();
}

const bool kSlice = RegisterAllDTypes("Slice", [](auto) -> KernelFn { return SliceKernel; });
const bool kPad = RegisterAllDTypes("Pad", [](auto) -> KernelFn { return PadKernel; });

}  // namespace
}  // namespace duet
