// Bucketize on the CPU: per element, std::upper_bound over the boundaries (TensorFlow's rule:
// the value compared with each float boundary in the usual arithmetic conversions).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/math/elementwise.h"
#include "ops/math/math_attrs.h"

namespace duet {
namespace {

template <typename T>
absl::Status BucketizeKernel(KernelContext& ctx) {
  const std::vector<float>& boundaries = ctx.attr(BucketizeAttrs::kBoundaries);
  const T* x = ctx.input(0).data<T>();
  int32_t* z = ctx.output(0).mutable_data<int32_t>();
  const int cost = 2 + static_cast<int>(boundaries.size() > 1 ? std::log2(boundaries.size()) : 0);
  ParallelElements(ctx, ElementCount(ctx.input(0).shape()), cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T value = x[i];
      z[i] = static_cast<int32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), value,
                                                   [](const T& v, float b) { return v < b; }) -
                                  boundaries.begin());
    }
  });
  return absl::OkStatus();
}

const bool registered = [] {
  RegisterKernel("Bucketize", DeviceType::kCpu, {kInt32}, KernelDef{&BucketizeKernel<int32_t>});
  RegisterKernel("Bucketize", DeviceType::kCpu, {kInt64}, KernelDef{&BucketizeKernel<int64_t>});
  RegisterKernel("Bucketize", DeviceType::kCpu, {kFloat32}, KernelDef{&BucketizeKernel<float>});
  RegisterKernel("Bucketize", DeviceType::kCpu, {kFloat64}, KernelDef{&BucketizeKernel<double>});
  return true;
}();

}  // namespace
}  // namespace duet
