#include "kernels/cuda/math/elementwise_layout.h"

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/broadcast.h"

namespace duet::cuda {

ElementType ElementTypeOf(DType dtype) {
  switch (dtype) {
    case kFloat32:
      return ElementType::kFloat32;
    case kFloat64:
      return ElementType::kFloat64;
    case kFloat16:
      return ElementType::kFloat16;
    case kBFloat16:
      return ElementType::kBFloat16;
    case kInt32:
      return ElementType::kInt32;
    case kInt64:
      return ElementType::kInt64;
    default:
      return ElementType::kBool;
  }
}

absl::StatusOr<ElementwiseLayout> MakeElementwiseLayout(absl::Span<const Tensor* const> inputs,
                                                        const Tensor& output) {
  ElementwiseLayout layout;
  layout.n = output.num_elements();
  bool contiguous = true;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const int64_t count = inputs[k]->num_elements();
    if (count == 1 && layout.n != 1) {
      layout.scalar_mask |= 1u << k;
    } else if (count != layout.n) {
      contiguous = false;
    }
  }
  if (contiguous || layout.n == 0) return layout;
  absl::InlinedVector<const Shape*, kMaxBroadcastInputs> shapes;
  for (const Tensor* t : inputs) shapes.push_back(&t->shape());
  const BroadcastPlan plan = MakeBroadcastPlan(shapes, output.shape());
  if (plan.rank() > kMaxBroadcastRank) {
    return absl::UnimplementedError(absl::StrCat("CUDA elementwise kernels broadcast over at most ",
                                                 kMaxBroadcastRank, " dims after merging; output ",
                                                 output.shape().str(), " needs ", plan.rank()));
  }
  layout.kind = ElementwiseLayout::kStrided;
  layout.scalar_mask = 0;
  layout.rank = plan.rank();
  for (int d = 0; d < plan.rank(); ++d) {
    layout.dims[d] = plan.dims[d];
    for (size_t k = 0; k < inputs.size(); ++k) layout.strides[k][d] = plan.strides[k][d];
  }
  return layout;
}

}  // namespace duet::cuda
