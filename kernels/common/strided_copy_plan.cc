#include "kernels/common/strided_copy_plan.h"

#include <utility>

#include "core/error.h"
#include "core/int_values.h"
#include "kernels/common/axis_math.h"
#include "ops/array/strided_slice_spec.h"

namespace duet {
namespace {

// A copy of all of `dims` between the given strides, with no offsets.
StridedCopyPlan Plan(absl::Span<const int64_t> dims, absl::Span<const int64_t> src,
                     absl::Span<const int64_t> dst) {
  StridedCopyPlan plan;
  plan.layout.dims.assign(dims.begin(), dims.end());
  plan.layout.src.assign(src.begin(), src.end());
  plan.layout.dst.assign(dst.begin(), dst.end());
  return plan;
}

// The element offset of index `at` in a layout with element strides `strides`.
int64_t OffsetOf(absl::Span<const int64_t> at, absl::Span<const int64_t> strides, int rank) {
  int64_t offset = 0;
  for (int d = 0; d < rank; ++d) offset += at[d] * strides[d];
  return offset;
}

// The blocks of a whole of shape `whole` (with elements) cut along `axis` into `parts`, in order.
ColumnBlocks MakeColumnBlocks(const Shape& whole, int64_t axis,
                              absl::Span<const Tensor* const> parts) {
  ColumnBlocks blocks;
  blocks.outer = ViewAroundAxis(whole, WrapAxis(axis, whole.rank())).outer;
  blocks.row = whole.num_elements() / blocks.outer;
  int64_t offset = 0;
  for (const Tensor* part : parts) {
    blocks.widths.push_back(part->num_elements() / blocks.outer);
    blocks.offsets.push_back(offset);
    offset += blocks.widths.back();
  }
  return blocks;
}

}  // namespace

CoalescedDims Coalesce(absl::Span<const int64_t> dims, absl::Span<const int64_t> src_strides,
                       absl::Span<const int64_t> dst_strides) {
  CoalescedDims out;
  StridedDims& c = out.dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) {
      out.empty = true;
      return out;
    }
    if (dims[i] == 1) continue;
    const int last = c.rank() - 1;
    if (last >= 0 && c.src[last] == src_strides[i] * dims[i] &&
        c.dst[last] == dst_strides[i] * dims[i]) {
      c.dims[last] *= dims[i];
      c.src[last] = src_strides[i];
      c.dst[last] = dst_strides[i];
    } else {
      c.dims.push_back(dims[i]);
      c.src.push_back(src_strides[i]);
      c.dst.push_back(dst_strides[i]);
    }
  }
  return out;
}

absl::InlinedVector<int64_t, 8> ContiguousStrides(absl::Span<const int64_t> dims) {
  absl::InlinedVector<int64_t, 8> strides(dims.size());
  int64_t s = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

StridedCopyPlan SliceCopy(const Shape& x, const Shape& out, absl::Span<const int64_t> begin) {
  const absl::InlinedVector<int64_t, 8> ones(x.rank(), 1);
  return StridedSliceCopy(x, begin, ones, out.dims());
}

StridedCopyPlan StridedSliceCopy(const Shape& x, absl::Span<const int64_t> begin,
                                 absl::Span<const int64_t> strides,
                                 absl::Span<const int64_t> sizes) {
  const auto in_strides = ContiguousStrides(x.dims());
  absl::InlinedVector<int64_t, 8> src(x.rank());
  for (int d = 0; d < x.rank(); ++d) src[d] = in_strides[d] * strides[d];
  StridedCopyPlan plan = Plan(sizes, src, ContiguousStrides(sizes));
  plan.src_offset = OffsetOf(begin, in_strides, x.rank());
  return plan;
}

StridedCopyPlan ReverseCopy(const Shape& x, absl::Span<const int64_t> axes) {
  absl::InlinedVector<int64_t, 8> begin(x.rank(), 0), strides(x.rank(), 1);
  for (int64_t axis : axes) {
    begin[axis] = x.dim(axis) - 1;
    strides[axis] = -1;
  }
  return StridedSliceCopy(x, begin, strides, x.dims());
}

absl::StatusOr<StridedCopyPlan> StridedSliceCopy(const KernelContext& ctx, const Shape& input) {
  const std::vector<int64_t> begin = IntValues(ctx.input(1));
  DUET_ASSIGN_OR_RETURN(
      const StridedSliceSpec spec,
      ResolveStridedSlice(input, static_cast<int64_t>(begin.size()), begin, IntValues(ctx.input(2)),
                          IntValues(ctx.input(3)), StridedSliceMasksOf(ctx)));
  return StridedSliceCopy(input, spec.begin, spec.strides, spec.sizes.dims());
}

absl::StatusOr<StridedCopyPlan> ReverseCopy(const KernelContext& ctx) {
  const Shape& x = ctx.input(0).shape();
  std::vector<int64_t> axes = IntValues(ctx.input(1));
  for (int64_t& axis : axes) {
    DUET_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, x.rank()));
  }
  return ReverseCopy(x, axes);
}

StridedCopyPlan InverseCopy(const StridedCopyPlan& plan) {
  StridedCopyPlan inverse = plan;
  std::swap(inverse.layout.src, inverse.layout.dst);
  std::swap(inverse.src_offset, inverse.dst_offset);
  return inverse;
}

StridedCopyPlan PadCopy(const Shape& x, const Shape& out, absl::Span<const int64_t> paddings) {
  const auto out_strides = ContiguousStrides(out.dims());
  StridedCopyPlan plan = Plan(x.dims(), ContiguousStrides(x.dims()), out_strides);
  for (int d = 0; d < x.rank(); ++d) plan.dst_offset += paddings[2 * d] * out_strides[d];
  return plan;
}

StridedCopyPlan TileCopy(const Shape& x, absl::Span<const int64_t> multiples) {
  const auto x_strides = ContiguousStrides(x.dims());
  absl::InlinedVector<int64_t, 8> dims, src;
  for (int d = 0; d < x.rank(); ++d) {
    dims.push_back(multiples[d]);
    src.push_back(0);
    dims.push_back(x.dim(d));
    src.push_back(x_strides[d]);
  }
  return Plan(dims, src, ContiguousStrides(dims));
}

StridedCopyPlan BroadcastToCopy(const Shape& x, const Shape& out) {
  const auto x_strides = ContiguousStrides(x.dims());
  const int lead = out.rank() - x.rank();  // dims x lacks; read with stride 0
  absl::InlinedVector<int64_t, 8> src(out.rank(), 0);
  for (int d = 0; d < x.rank(); ++d) {
    if (x.dim(d) != 1) src[lead + d] = x_strides[d];
  }
  return Plan(out.dims(), src, ContiguousStrides(out.dims()));
}

StridedCopyPlan TransposeCopy(const Shape& x, const Shape& out, absl::Span<const int64_t> perm) {
  const auto in_strides = ContiguousStrides(x.dims());
  absl::InlinedVector<int64_t, 8> src(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) src[k] = in_strides[perm[k]];
  return Plan(out.dims(), src, ContiguousStrides(out.dims()));
}

StridedCopyPlan ColumnBlocks::ConcatCopy(int k) const {
  StridedCopyPlan plan = Plan({outer, widths[k]}, {widths[k], 1}, {row, 1});
  plan.dst_offset = offsets[k];
  return plan;
}

StridedCopyPlan ColumnBlocks::SplitCopy(int k) const {
  StridedCopyPlan plan = Plan({outer, widths[k]}, {row, 1}, {widths[k], 1});
  plan.src_offset = offsets[k];
  return plan;
}

ColumnBlocks ConcatBlocks(KernelContext& ctx) {
  const int n = ctx.num_inputs() - 1;
  const Shape& whole = ctx.output(0).shape();
  absl::InlinedVector<const Tensor*, 8> parts(n);
  for (int k = 0; k < n; ++k) parts[k] = &ctx.input(k);
  return MakeColumnBlocks(whole, IntScalar(ctx.input(n)), parts);
}

ColumnBlocks PackBlocks(KernelContext& ctx, int64_t axis) {
  absl::InlinedVector<const Tensor*, 8> parts(ctx.num_inputs());
  for (int k = 0; k < ctx.num_inputs(); ++k) parts[k] = &ctx.input(k);
  return MakeColumnBlocks(ctx.output(0).shape(), axis, parts);
}

ColumnBlocks UnpackBlocks(KernelContext& ctx, int64_t axis) {
  absl::InlinedVector<const Tensor*, 8> parts(ctx.num_outputs());
  for (int k = 0; k < ctx.num_outputs(); ++k) parts[k] = &ctx.output(k);
  return MakeColumnBlocks(ctx.input(0).shape(), axis, parts);
}

const Tensor& SplitValue(const KernelContext& ctx, SplitKind kind) {
  return ctx.input(kind == SplitKind::kSplit ? 1 : 0);
}

ColumnBlocks SplitBlocks(KernelContext& ctx, SplitKind kind) {
  const Tensor& axis = ctx.input(kind == SplitKind::kSplit ? 0 : 2);
  absl::InlinedVector<const Tensor*, 8> parts(ctx.num_outputs());
  for (int k = 0; k < ctx.num_outputs(); ++k) parts[k] = &ctx.output(k);
  return MakeColumnBlocks(SplitValue(ctx, kind).shape(), IntScalar(axis), parts);
}

}  // namespace duet
