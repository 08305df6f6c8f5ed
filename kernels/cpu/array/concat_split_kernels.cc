// ConcatV2, Split and SplitV, and Pack and Unpack, which are the same copies along a new (or
// removed) axis. Viewed as 2-D (outer = dims before the axis, row = the rest), each operand is a
// block of columns of the whole; every copy moves whole contiguous row pieces.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

// Copies `parts` side by side into the rows of `out`. Many rows: one pass over the output, row by
// row. Few rows: one parallel copy per part.
void ConcatRows(absl::Span<const char* const> parts, const ColumnBlocks& blocks, int elem,
                char* out, ThreadPool& pool) {
  if (blocks.outer >= 4 * pool.num_threads()) {
    const int64_t min_chunk = std::max<int64_t>(1, kParallelCopyBytes / (blocks.row * elem + 1));
    pool.ParallelFor(blocks.outer, min_chunk, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        char* dst = out + o * blocks.row * elem;
        for (size_t k = 0; k < parts.size(); ++k) {
          const int64_t bytes = blocks.widths[k] * elem;
          if (bytes > 0) std::memcpy(dst, parts[k] + o * bytes, bytes);
          dst += bytes;
        }
      }
    });
    return;
  }
  for (int k = 0; k < blocks.num_parts(); ++k) {
    StridedCopy(blocks.ConcatCopy(k), parts[k], out, elem, pool);
  }
}

// Joins the kernel's inputs [0, blocks.num_parts()) into output 0.
void JoinInputs(KernelContext& ctx, const ColumnBlocks& blocks) {
  Tensor& out = ctx.output(0);
  absl::InlinedVector<const char*, 8> parts(blocks.num_parts());
  for (int k = 0; k < blocks.num_parts(); ++k) {
    parts[k] = static_cast<const char*>(ctx.input(k).raw_data());
  }
  ConcatRows(parts, blocks, DTypeSize(out.dtype()), static_cast<char*>(out.raw_data()), ctx.pool());
}

// Copies the column blocks of `x` into the kernel's outputs.
void CutIntoOutputs(KernelContext& ctx, const Tensor& x, const ColumnBlocks& blocks) {
  for (int k = 0; k < blocks.num_parts(); ++k) {
    StridedCopy(blocks.SplitCopy(k), x.raw_data(), ctx.output(k).raw_data(), DTypeSize(x.dtype()),
                ctx.pool());
  }
}

// JoinInputs for strings: element objects are assigned, never memcpy'd (Note [String tensors] in
// core/tensor.cc).
void JoinStrings(KernelContext& ctx, const ColumnBlocks& blocks) {
  std::string* dst = ctx.output(0).mutable_data<std::string>();
  for (int64_t o = 0; o < blocks.outer; ++o) {
    for (int k = 0; k < blocks.num_parts(); ++k) {
      const int64_t width = blocks.widths[k];
      const std::string* src = ctx.input(k).data<std::string>() + o * width;
      dst = std::copy(src, src + width, dst);
    }
  }
}

absl::Status ConcatStringsKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  JoinStrings(ctx, ConcatBlocks(ctx));
  return absl::OkStatus();
}

absl::Status PackStringsKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  JoinStrings(ctx, PackBlocks(ctx, ctx.attr(PackAttrs::kAxis)));
  return absl::OkStatus();
}

absl::Status ConcatKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  JoinInputs(ctx, ConcatBlocks(ctx));
  return absl::OkStatus();
}

absl::Status PackKernel(KernelContext& ctx) {
  if (ctx.output(0).num_elements() == 0) return absl::OkStatus();
  JoinInputs(ctx, PackBlocks(ctx, ctx.attr(PackAttrs::kAxis)));
  return absl::OkStatus();
}

template <SplitKind kKind>
absl::Status SplitKernel(KernelContext& ctx) {
  const Tensor& x = SplitValue(ctx, kKind);
  if (x.num_elements() == 0) return absl::OkStatus();
  CutIntoOutputs(ctx, x, SplitBlocks(ctx, kKind));
  return absl::OkStatus();
}

absl::Status UnpackKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.num_elements() == 0) return absl::OkStatus();
  CutIntoOutputs(ctx, x, UnpackBlocks(ctx, ctx.attr(UnpackAttrs::kAxis)));
  return absl::OkStatus();
}

const bool kConcatV2 = RegisterAllDTypes("ConcatV2", [](auto) -> KernelFn { return ConcatKernel; });
const bool kPack = RegisterAllDTypes("Pack", [](auto) -> KernelFn { return PackKernel; });
const KernelRegistrar kConcatStrings("ConcatV2", DeviceType::kCpu, {kString},
                                     {ConcatStringsKernel});
const KernelRegistrar kPackStrings("Pack", DeviceType::kCpu, {kString}, {PackStringsKernel});
const bool kUnpack = RegisterAllDTypes("Unpack", [](auto) -> KernelFn { return UnpackKernel; });
const bool kSplit =
    RegisterAllDTypes("Split", [](auto) -> KernelFn { return SplitKernel<SplitKind::kSplit>; });
const bool kSplitV =
    RegisterAllDTypes("SplitV", [](auto) -> KernelFn { return SplitKernel<SplitKind::kSplitV>; });

}  // namespace
}  // namespace duet
