#include "kernels/common/variable_update.h"

#include "absl/strings/str_cat.h"

namespace duet {

absl::StatusOr<Tensor> WritableValue(const VariableResource& variable, bool copy_value) {
  const Tensor& value = variable.value;
  if (!value.defined()) {
    return absl::FailedPreconditionError(
        absl::StrCat("variable '", variable.name, "' is updated before it was assigned a value"));
  }
  // Owning its memory (not a view of another tensor's) and held by nobody else.
  if (value.impl().use_count() == 1 && value.impl()->allocator != nullptr) return value;
  DUET_ASSIGN_OR_RETURN(Tensor fresh,
                        Tensor::TryEmpty(value.dtype(), value.shape(), value.device()));
  if (copy_value) {
    DUET_RETURN_IF_ERROR(
        fresh.impl()->allocator->CopyWithin(fresh.raw_data(), value.raw_data(), fresh.nbytes()));
  }
  return fresh;
}

}  // namespace duet
