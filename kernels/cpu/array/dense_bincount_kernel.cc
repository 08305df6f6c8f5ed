// DenseBincount: each row of values adds its weights (or 1) into its own row of `size` bins.
// Threads split the rows, so no two write the same bin; integer sums wrap (wrapping_arithmetic.h).
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/common/wrapping_arithmetic.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

template <typename Index>
absl::Status CheckNonNegative(const Tensor& input) {
  const Index* v = input.data<Index>();
  const int64_t n = input.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("input", IndexString(i, input.shape()), " = ",
                                                     v[i], " is negative: values count bins"));
    }
  }
  return absl::OkStatus();
}

template <typename Index, typename T>
absl::Status Bincount(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& weights = ctx.input(2);
  Tensor& out = ctx.output(0);
  DUET_RETURN_IF_ERROR(CheckNonNegative<Index>(input));  // the shape function checked the shapes
  const int64_t size = out.shape().dim(out.rank() - 1);
  const int64_t rows = input.rank() == 2 ? input.shape().dim(0) : 1;
  const int64_t per_row = rows == 0 ? 0 : input.num_elements() / rows;
  const bool binary = ctx.attr(DenseBincountAttrs::kBinaryOutput);
  const Index* values = input.data<Index>();
  const T* w = weights.num_elements() != 0 ? weights.data<T>() : nullptr;
  T* bins = out.mutable_data<T>();
  std::memset(bins, 0, out.nbytes());
  ctx.pool().ParallelFor(rows, std::max<int64_t>(1, 16 * 1024 / std::max<int64_t>(per_row, 1)),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             T* row = bins + r * size;
                             for (int64_t j = r * per_row; j < (r + 1) * per_row; ++j) {
                               if (values[j] >= size) continue;
                               T& bin = row[values[j]];
                               bin = binary ? T(1) : WrapAdd(bin, w != nullptr ? w[j] : T(1));
                             }
                           }
                         });
  return absl::OkStatus();
}

// Kernels dispatch on the first type attr, Tidx (the input's dtype); T is the output's.
template <typename Index>
absl::Status DenseBincountKernel(KernelContext& ctx) {
  switch (ctx.output(0).dtype()) {
    case kInt32:
      return Bincount<Index, int32_t>(ctx);
    case kInt64:
      return Bincount<Index, int64_t>(ctx);
    case kFloat64:
      return Bincount<Index, double>(ctx);
    default:
      return Bincount<Index, float>(ctx);
  }
}

const KernelRegistrar kInt32Values("DenseBincount", DeviceType::kCpu, {kInt32},
                                   {DenseBincountKernel<int32_t>});
const KernelRegistrar kInt64Values("DenseBincount", DeviceType::kCpu, {kInt64},
                                   {DenseBincountKernel<int64_t>});

}  // namespace
}  // namespace duet
