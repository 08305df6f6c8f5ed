// GatherNd, ScatterNd, TensorScatterUpdate, TensorScatterAdd (Note [Nd indices] in
// ops/array/scatter_nd_ops.cc). Each row of indices becomes the offset of a contiguous slice,
// checked first: a row outside the shape is an error naming it. Gathers copy slices in parallel;
// scatters split the slices' columns over threads, so no two threads write one element and
// duplicate rows apply in order (the last update wins, adds happen in row order).
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/common/nd_index.h"
#include "kernels/cpu/array/register_all_dtypes.h"
#include "kernels/cpu/array/strided_copy.h"

namespace duet {
namespace {

// Element updates below this stay on the calling thread.
constexpr int64_t kParallelUpdates = 32 * 1024;

// The slice offset (in slices) of every row of `indices` into `shape` (called `name`).
template <typename Index>
absl::StatusOr<std::vector<int64_t>> RowOffsets(const Tensor& indices, const NdIndexPlan& plan,
                                                const Shape& shape, absl::string_view name) {
  std::vector<int64_t> offsets(plan.num_rows);
  const Index* idx = indices.data<Index>();
  for (int64_t i = 0; i < plan.num_rows; ++i) {
    const Index* row = idx + i * plan.depth;
    int64_t offset = 0;
    for (int j = 0; j < plan.depth; ++j) {
      if (row[j] < 0 || row[j] >= plan.dims[j]) {
        Shape batch(indices.shape().dims().subspan(0, indices.rank() - 1));
        return absl::InvalidArgumentError(absl::StrCat(
            "indices", IndexString(i, batch), " = [", absl::StrJoin(row, row + plan.depth, ", "),
            "] does not index into ", name, " shape ", shape.str()));
      }
      offset += static_cast<int64_t>(row[j]) * plan.strides[j];
    }
    offsets[i] = offset;
  }
  return offsets;
}

absl::StatusOr<std::vector<int64_t>> Offsets(const Tensor& indices, const NdIndexPlan& plan,
                                             const Shape& shape, absl::string_view name) {
  return indices.dtype() == kInt64 ? RowOffsets<int64_t>(indices, plan, shape, name)
                                   : RowOffsets<int32_t>(indices, plan, shape, name);
}

absl::Status GatherNdKernel(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  Tensor& out = ctx.output(0);
  const NdIndexPlan plan = PlanNdIndex(indices.shape(), params.shape());
  DUET_ASSIGN_OR_RETURN(const std::vector<int64_t> offsets,
                        Offsets(indices, plan, params.shape(), "params"));
  if (out.num_elements() == 0) return absl::OkStatus();
  const int64_t bytes = plan.slice_size * DTypeSize(params.dtype());
  const char* src = static_cast<const char*>(params.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  const int64_t min_chunk = std::max<int64_t>(1, kParallelCopyBytes / bytes);
  ctx.pool().ParallelFor(plan.num_rows, min_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::memcpy(dst + i * bytes, src + offsets[i] * bytes, bytes);
    }
  });
  return absl::OkStatus();
}

// a += b: 16-bit floats round once per add (as TensorFlow's Eigen half arithmetic), integers wrap.
template <typename T>
void AddTo(T& a, T b) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    a = T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    a = static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                       static_cast<std::make_unsigned_t<T>>(b));
  } else {
    a += b;
  }
}

// Applies updates (num_rows slices) to `out` at `offsets`: added when kAdd, else copied.
template <typename T, bool kAdd>
void ApplyUpdates(KernelContext& ctx, const NdIndexPlan& plan, const std::vector<int64_t>& offsets,
                  const T* updates, T* out) {
  const int64_t s = plan.slice_size, rows = plan.num_rows;
  const int64_t min_chunk = std::max<int64_t>(1, kParallelUpdates / std::max<int64_t>(rows, 1));
  ctx.pool().ParallelFor(s, min_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = 0; i < rows; ++i) {
      const T* src = updates + i * s;
      T* dst = out + offsets[i] * s;
      for (int64_t c = begin; c < end; ++c) {
        if constexpr (kAdd) {
          AddTo(dst[c], src[c]);
        } else {
          dst[c] = src[c];
        }
      }
    }
  });
}

// ScatterNd (tensor_input < 0: starts from zeros) and the TensorScatter ops (from that input).
template <typename T, bool kAdd>
absl::Status Scatter(KernelContext& ctx, int tensor_input, int indices_input, int updates_input,
                     absl::string_view name) {
  Tensor& out = ctx.output(0);
  const Tensor& indices = ctx.input(indices_input);
  const NdIndexPlan plan = PlanNdIndex(indices.shape(), out.shape());
  DUET_ASSIGN_OR_RETURN(const std::vector<int64_t> offsets,
                        Offsets(indices, plan, out.shape(), name));
  const int64_t n = out.num_elements();
  if (n == 0) return absl::OkStatus();
  T* dst = out.mutable_data<T>();
  if (tensor_input < 0) {
    std::fill(dst, dst + n, T{});
  } else {
    std::memcpy(dst, ctx.input(tensor_input).raw_data(), n * sizeof(T));
  }
  ApplyUpdates<T, kAdd>(ctx, plan, offsets, ctx.input(updates_input).data<T>(), dst);
  return absl::OkStatus();
}

template <typename T>
absl::Status ScatterNdKernel(KernelContext& ctx) {
  return Scatter<T, true>(ctx, -1, 0, 1, "output");
}

template <typename T>
absl::Status TensorScatterUpdateKernel(KernelContext& ctx) {
  return Scatter<T, false>(ctx, 0, 1, 2, "tensor");
}

template <typename T>
absl::Status TensorScatterAddKernel(KernelContext& ctx) {
  return Scatter<T, true>(ctx, 0, 1, 2, "tensor");
}

const bool kGatherNd =
    RegisterAllDTypes("GatherNd", [](auto) -> KernelFn { return GatherNdKernel; });
const bool kTensorScatterUpdate = RegisterAllDTypes("TensorScatterUpdate", [](auto t) -> KernelFn {
  return TensorScatterUpdateKernel<decltype(t)>;
});

// The adding ops: every real number type (no bool).
template <typename T>
void RegisterAdding() {
  RegisterKernel("ScatterNd", DeviceType::kCpu, {DTypeOf<T>()}, {ScatterNdKernel<T>});
  RegisterKernel("TensorScatterAdd", DeviceType::kCpu, {DTypeOf<T>()}, {TensorScatterAddKernel<T>});
}

const bool kAdding = [] {
  RegisterAdding<float>();
  RegisterAdding<double>();
  RegisterAdding<float16>();
  RegisterAdding<bfloat16>();
  RegisterAdding<int32_t>();
  RegisterAdding<int64_t>();
  return true;
}();

}  // namespace
}  // namespace duet
