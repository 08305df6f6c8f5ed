#include "core/tensor_index.h"

#include <atomic>

namespace duet {
namespace {
std::atomic<core_internal::IndexFn> index_fn{nullptr};
}  // namespace

namespace core_internal {
void SetIndexFn(IndexFn fn) { index_fn.store(fn); }
IndexFn GetIndexFn() { return index_fn.load(); }
}  // namespace core_internal

Tensor Tensor::index(std::initializer_list<TensorIndex> indices,
                     std::source_location location) const {
  const core_internal::IndexFn fn = core_internal::GetIndexFn();
  if (fn == nullptr) {
    throw Error(absl::FailedPreconditionError(
        "Tensor::index needs the array ops (link //ops:array, or //:duet)"));
  }
  return fn(*this, std::vector<TensorIndex>(indices), location);
}

}  // namespace duet
