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
  const std::vector<int64_t> begin = IntValues(ctx.input(1));
  const auto in_strides = ContiguousStrides(x.shape().dims());
  int64_t offset = 0;
  for (int d = 0; d < x.rank(); ++d) offset += begin[d] * in_strides[d];
  const int elem = DTypeSize(x.dtype());
  StridedCopy(out.shape().dims(), static_cast<const char*>(x.raw_data()) + offset * elem,
              in_strides, out.raw_data(), ContiguousStrides(out.shape().dims()), elem, ctx.pool());
  return absl::OkStatus();
}

absl::Status PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  std::memset(out.raw_data(), 0, out.nbytes());  // zero bits are 0 / 0.0 / false in every dtype
  if (x.num_elements() == 0) return absl::OkStatus();
  const std::vector<int64_t> pads = IntValues(ctx.input(1));
  const auto out_strides = ContiguousStrides(out.shape().dims());
  int64_t offset = 0;
  for (int d = 0; d < x.rank(); ++d) offset += pads[2 * d] * out_strides[d];
  const int elem = DTypeSize(x.dtype());
  StridedCopy(x.shape().dims(), x.raw_data(), ContiguousStrides(x.shape().dims()),
              static_cast<char*>(out.raw_data()) + offset * elem, out_strides, elem, ctx.pool());
  return absl::OkStatus();
}

const bool kSlice = RegisterAllDTypes("Slice", [](auto) -> KernelFn { return SliceKernel; });
const bool kPad = RegisterAllDTypes("Pad", [](auto) -> KernelFn { return PadKernel; });

}  // namespace
}  // namespace duet
