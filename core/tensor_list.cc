#include "core/tensor_list.h"

#include "absl/strings/str_cat.h"
#include "core/int_values.h"

namespace duet {

// Note [TensorLists are values]
// TensorFlow's list ops return new lists (TensorListSetItem's output_handle); an input list is
// never changed, since other readers may hold it (a While loop's previous iteration, a fetch).
// duet's lists are immutable: a kVariant tensor owns a shared_ptr<const TensorListValue>, and
// SetItem copies the vector of element handles (not the elements' memory) into a new list. A
// loop of n SetItems copies O(n^2) handles, which is cheap for the sequence lengths RNNs use;
// TensorFlow instead reuses the list in place when its refcount is one. Elements are immutable
// tensors shared, not copied, except views, which may be of a plan's arena (reused once the step
// that read it is done) and are copied (Note [List elements are shared] in
// kernels/cpu/list/tensor_list_kernels.cc).

Tensor MakeTensorListTensor(std::shared_ptr<const TensorListValue> list) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = kVariant;
  impl->device = Device::cpu();
  impl->data = const_cast<TensorListValue*>(list.get());  // has_value(): a concrete list
  impl->resource = std::const_pointer_cast<TensorListValue>(std::move(list));
  return Tensor(std::move(impl));
}

const TensorListValue* TensorListOf(const Tensor& t) {
  if (!t.defined() || t.dtype() != kVariant || !t.has_value()) return nullptr;
  // Views (Identity) share data and keep the owner alive through `base` (Note [Object dtypes]).
  return static_cast<const TensorListValue*>(t.raw_data());
}

absl::StatusOr<Shape> ShapeFromTensor(const Tensor& t) {
  if (t.dtype() != kInt32 && t.dtype() != kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("a shape tensor must be int32 or int64, not ", DTypeName(t.dtype())));
  }
  const std::vector<int64_t> values = IntValues(t);
  if (t.rank() == 0) {
    if (values[0] == -1) return Shape::UnknownRank();
    return absl::InvalidArgumentError(
        absl::StrCat("a scalar shape tensor must be -1 (unknown rank), not ", values[0]));
  }
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a shape tensor must be a scalar or a vector, not of shape ", t.shape().str()));
  }
  Shape shape;
  for (int64_t d : values) {
    if (d < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("a shape tensor's dims are >= 0 or -1 (unknown), not ", d));
    }
    shape.push_back(d);
  }
  return shape;
}

}  // namespace duet
