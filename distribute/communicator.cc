#include "distribute/communicator.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/error.h"

namespace duet::distribute {

std::string ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kMean:
      return "mean";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kProduct:
      return "product";
  }
  return "unknown";
}

namespace communicator_internal {

Tensor HostCopy(const Tensor& tensor) {
  const Tensor host = tensor.device().is_host() ? tensor : tensor.cpu();
  Tensor out = Tensor::Empty(host.dtype(), host.shape());
  if (out.nbytes() > 0) std::memcpy(out.raw_data(), host.raw_data(), out.nbytes());
  return out;
}

Error UnsupportedDType(const std::string& what, DType dtype) {
  return Error(absl::InvalidArgumentError(
      absl::StrCat(what, ": ", DTypeName(dtype),
                   " tensors are not supported (float32, float64, int32, int64 are)")));
}

}  // namespace communicator_internal
}  // namespace duet::distribute
