#include "distribute/backend.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

namespace backend_internal {

Tensor HostCopy(const Tensor& tensor) {
  const Tensor host = tensor.device().is_host() ? tensor : tensor.cpu();
  Tensor out = Tensor::Empty(host.dtype(), host.shape());
  if (out.nbytes() > 0) std::memcpy(out.raw_data(), host.raw_data(), out.nbytes());
  return out;
}

std::string FailureMessage(const Backend& backend, const std::string& what, const Tensor& tensor,
                           std::chrono::steady_clock::time_point began, const std::string& cause) {
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return absl::StrFormat(
      "distribute (%s): rank %d of %d: %s%s failed after %.1f s (timeout %g s): %s", backend.name(),
      backend.rank(), backend.size(), what,
      tensor.defined() ? absl::StrCat(" of ", DTypeName(tensor.dtype()), " ", tensor.shape().str())
                       : "",
      waited, std::chrono::duration<double>(backend.timeout()).count(), cause);
}

Tensor OnHost(const Tensor& tensor) { return tensor.device().is_host() ? tensor : tensor.cpu(); }

template <typename T>
void Divide(Tensor& tensor, int size) {
  T* values = tensor.mutable_data<T>();
  for (int64_t i = 0; i < tensor.num_elements(); ++i) values[i] /= static_cast<T>(size);
}

// float16 and bfloat16: each quotient in float32, rounded once to T.
template <typename T>
void DivideHalf(Tensor& tensor, int size) {
  T* values = tensor.mutable_data<T>();
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    values[i] = T(static_cast<float>(values[i]) / static_cast<float>(size));
  }
}

void DivideBySize(Tensor& tensor, int size) {
  switch (tensor.dtype()) {
    case kFloat32:
      return Divide<float>(tensor, size);
    case kFloat64:
      return Divide<double>(tensor, size);
    case kInt32:
      return Divide<int32_t>(tensor, size);
    case kInt64:
      return Divide<int64_t>(tensor, size);
    case kFloat16:
      return DivideHalf<float16>(tensor, size);
    case kBFloat16:
      return DivideHalf<bfloat16>(tensor, size);
    default:
      throw UnsupportedDType("all_reduce (mean)", tensor.dtype());
  }
}

Error UnsupportedDType(const std::string& what, DType dtype) {
  return Error(absl::InvalidArgumentError(
      absl::StrCat(what, ": ", DTypeName(dtype),
                   " tensors are not supported (float32, float64, int32, int64 are)")));
}

void CheckMovableBytes(const std::string& what, DType dtype) {
  if (dtype == kString || dtype == kResource || dtype == kVariant) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        what, ": ", DTypeName(dtype), " tensors hold objects, not bytes a collective can move")));
  }
}

}  // namespace backend_internal
}  // namespace duet::distribute
