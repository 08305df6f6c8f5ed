// Placeholder until the formatter lands: shape and dtype only.
#include "core/tensor_format.h"

#include "absl/strings/str_cat.h"

namespace duet {

std::string FormatTensor(const Tensor& t, const TensorFormatOptions&) {
  return absl::StrCat("Tensor(shape=", t.shape().str(), ", dtype=", DTypeName(t.dtype()), ")");
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << FormatTensor(t); }

}  // namespace duet
