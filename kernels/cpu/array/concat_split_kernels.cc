// ConcatV2, Split and SplitV. Viewed as 2-D (outer = dims before the axis, row = the rest), each
// operand is a block of columns of the whole; every copy moves whole contiguous row pieces.
#include <cstring>

#include "core/int_values.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

// Product of dims [0, axis) of `shape`.
int64_t OuterSize(const Shape& shape, int axis) {
  int64_t n = 1;
  for (int d = 0; d < axis; ++d) n *= shape.dim(d);
  return n;
}

int WrapAxis(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

// Copies `parts` (each outer x widths[k] elements) side by side into rows of `row` elements.
// Many rows: one pass over the output, row by row. Few rows: one parallel copy per part.
void ConcatRows(absl::Span<const char* const> parts, absl::Span<const int64_t> widths,
                int64_t outer, int64_t row, int elem, char* out, ThreadPool& pool) {
  if (outer >= 4 * pool.num_threads()) {
    const int64_t min_chunk = std::max<int64_t>(1, kParallelCopyBytes / (row * elem + 1));
    pool.ParallelFor(outer, min_chunk, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        char* dst = out + o * row * elem;
        for (size_t k = 0; k < parts.size(); ++k) {
          const int64_t bytes = widths[k] * elem;
          if (bytes > 0) std::memcpy(dst, parts[k] + o * bytes, bytes);
          dst += bytes;
        }
      }
    });
    return;
  }
  int64_t offset = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    StridedCopy({outer, widths[k]}, parts[k], {widths[k], 1}, out + offset * elem, {row, 1}, elem,
                pool);
    offset += widths[k];
  }
}

absl::Status ConcatKernel(KernelContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  Tensor& out = ctx.output(0);
  if (out.num_elements() == 0) return absl::OkStatus();
  const int axis = WrapAxis(IntScalar(ctx.input(n)), out.rank());
  const int64_t outer = OuterSize(out.shape(), axis);
  absl::InlinedVector<const char*, 8> parts(n);
  absl::InlinedVector<int64_t, 8> widths(n);
  for (int k = 0; k < n; ++k) {
    parts[k] = static_cast<const char*>(ctx.input(k).raw_data());
    widths[k] = ctx.input(k).num_elements() / outer;
  }
  ConcatRows(parts, widths, outer, out.num_elements() / outer, DTypeSize(out.dtype()),
             static_cast<char*>(out.raw_data()), ctx.pool());
  return absl::OkStatus();
}

// Copies the column blocks of `x` (split along `axis`) into the kernel's outputs.
absl::Status SplitInto(KernelContext& ctx, const Tensor& x, int64_t axis_value) {
  if (x.num_elements() == 0) return absl::OkStatus();
  const int axis = WrapAxis(axis_value, x.rank());
  const int64_t outer = OuterSize(x.shape(), axis);
  const int64_t row = x.num_elements() / outer;
  const int elem = DTypeSize(x.dtype());
  int64_t offset = 0;
  for (int k = 0; k < ctx.num_outputs(); ++k) {
    Tensor& out = ctx.output(k);
    const int64_t width = out.num_elements() / outer;
    StridedCopy({outer, width}, static_cast<const char*>(x.raw_data()) + offset * elem, {row, 1},
                out.raw_data(), {width, 1}, elem, ctx.pool());
    offset += width;
  }
  return absl::OkStatus();
}

absl::Status SplitKernel(KernelContext& ctx) {
  return SplitInto(ctx, ctx.input(1), IntScalar(ctx.input(0)));
}

absl::Status SplitVKernel(KernelContext& ctx) {
  return SplitInto(ctx, ctx.input(0), IntScalar(ctx.input(2)));
}

const bool kConcatV2 = RegisterAllDTypes("ConcatV2", [](auto) -> KernelFn { return ConcatKernel; });
const bool kSplit = RegisterAllDTypes("Split", [](auto) -> KernelFn { return SplitKernel; });
const bool kSplitV = RegisterAllDTypes("SplitV", [](auto) -> KernelFn { return SplitVKernel; });

}  // namespace
}  // namespace duet
