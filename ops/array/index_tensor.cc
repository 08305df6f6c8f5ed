#include "ops/array/index_tensor.h"

#include <limits>
#include <vector>

#include "core/constant.h"

namespace duet {
namespace {

bool FitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

}  // namespace

Tensor IndexTensor(absl::Span<const int64_t> values) {
  for (int64_t v : values) {
    if (!FitsInt32(v)) return from_vector(std::vector<int64_t>(values.begin(), values.end()));
  }
  return from_vector(std::vector<int32_t>(values.begin(), values.end()));
}

Tensor IndexScalar(int64_t value) {
  return FitsInt32(value) ? constant(static_cast<int32_t>(value)) : constant(value);
}

}  // namespace duet
