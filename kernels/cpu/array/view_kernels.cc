// Kernels whose output views the input's buffer (no copy): Identity, IdentityN, StopGradient,
// EnsureShape, PlaceholderWithDefault, Reshape, ExpandDims, Squeeze. The shape functions have
// validated everything; these only rebuild the output shape from the operands. They relabel
// metadata only, so they serve every device.
#include "absl/strings/str_cat.h"
#include "core/int_values.h"
#include "kernels/kernel_registry.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

absl::Status PassThroughKernel(KernelContext& ctx) {
  // A new handle onto the same memory: a tape must tell the output from the input.
  ctx.output(0) = ctx.input(0).ViewAs(ctx.input(0).dtype(), ctx.input(0).shape(), ctx.device());
  return absl::OkStatus();
}

absl::Status IdentityNKernel(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor& x = ctx.input(i);
    ctx.output(i) = x.ViewAs(x.dtype(), x.shape(), ctx.device());
  }
  return absl::OkStatus();
}

// The shape function checks known shapes; this catches what only the running graph knows.
absl::Status EnsureShapeKernel(KernelContext& ctx) {
  const Shape& expected = ctx.attr(EnsureShapeAttrs::kShape);
  if (!ctx.input(0).shape().IsCompatibleWith(expected)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input has shape ", ctx.input(0).shape().str(),
                     ", which is not compatible with the expected shape ", expected.str()));
  }
  return PassThroughKernel(ctx);
}

absl::Status ReshapeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> dims = IntValues(ctx.input(1));
  int64_t known = 1;
  int64_t* unknown = nullptr;
  for (int64_t& d : dims) {
    if (d == -1) {
      unknown = &d;
    } else {
      known *= d;
    }
  }
  if (unknown != nullptr) *unknown = known == 0 ? 0 : x.num_elements() / known;
  ctx.output(0) = x.reshaped(Shape(dims));
  return absl::OkStatus();
}

absl::Status ExpandDimsKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int rank = x.rank();
  int64_t axis = IntScalar(ctx.input(1));
  if (axis < 0) axis += rank + 1;
  Shape out;
  for (int i = 0; i <= rank; ++i) {
    if (i == axis) out.push_back(1);
    if (i < rank) out.push_back(x.shape().dim(i));
  }
  ctx.output(0) = x.reshaped(out);
  return absl::OkStatus();
}

absl::Status SqueezeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const auto& axes = ctx.attr(SqueezeAttrs::kSqueezeDims);
  std::vector<bool> drop(x.rank(), axes.empty());
  if (!axes.empty()) {
    for (int64_t a : axes) drop[a < 0 ? a + x.rank() : a] = true;
  }
  Shape out;
  for (int i = 0; i < x.rank(); ++i) {
    if (!(drop[i] && x.shape().dim(i) == 1)) out.push_back(x.shape().dim(i));
  }
  ctx.output(0) = x.reshaped(out);
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kAll = {kFloat32, kFloat64, kFloat16, kBFloat16,
                                               kInt32,   kInt64,   kBool,    kUInt8};

const bool kRegistered = [] {
  for (DeviceType device : {DeviceType::kCpu, DeviceType::kCuda}) {
    for (DType dtype : kAll) {
      RegisterKernel("Identity", device, {dtype}, {PassThroughKernel, /*allocates_outputs=*/true});
      RegisterKernel("StopGradient", device, {dtype},
                     {PassThroughKernel, /*allocates_outputs=*/true});
      RegisterKernel("EnsureShape", device, {dtype},
                     {EnsureShapeKernel, /*allocates_outputs=*/true});
      RegisterKernel("PlaceholderWithDefault", device, {dtype},
                     {PassThroughKernel, /*allocates_outputs=*/true});
      RegisterKernel("Reshape", device, {dtype}, {ReshapeKernel, /*allocates_outputs=*/true});
      RegisterKernel("ExpandDims", device, {dtype}, {ExpandDimsKernel, /*allocates_outputs=*/true});
      RegisterKernel("Squeeze", device, {dtype}, {SqueezeKernel, /*allocates_outputs=*/true});
    }
    // IdentityN has a list of dtypes and no type attr to dispatch on (kFloat32, see DispatchDType).
    RegisterKernel("IdentityN", device, {kFloat32}, {IdentityNKernel, /*allocates_outputs=*/true});
    // Views share their owner's string objects (Note [String tensors] in core/tensor.cc); strings
    // live on the CPU only.
    if (device == DeviceType::kCpu) {
      RegisterKernel("Identity", device, {kString},
                     {PassThroughKernel, /*allocates_outputs=*/true});
      RegisterKernel("StopGradient", device, {kString},
                     {PassThroughKernel, /*allocates_outputs=*/true});
      RegisterKernel("EnsureShape", device, {kString},
                     {EnsureShapeKernel, /*allocates_outputs=*/true});
      RegisterKernel("PlaceholderWithDefault", device, {kString},
                     {PassThroughKernel, /*allocates_outputs=*/true});
      RegisterKernel("Reshape", device, {kString}, {ReshapeKernel, /*allocates_outputs=*/true});
      RegisterKernel("ExpandDims", device, {kString},
                     {ExpandDimsKernel, /*allocates_outputs=*/true});
      RegisterKernel("Squeeze", device, {kString}, {SqueezeKernel, /*allocates_outputs=*/true});
    }
    // A TensorList's view shares its list (Note [Object dtypes] in core/dtype.cc).
    RegisterKernel("Identity", device, {kVariant}, {PassThroughKernel, /*allocates_outputs=*/true});
  }
  return true;
}();

}  // namespace
}  // namespace duet
