// Const returns its value attr (no copy); Placeholder has no value to return: a session feeds it.
#include "kernels/cpu/array/register_all_dtypes.h"
#include "ops/array/array_attrs.h"

namespace duet {
namespace {

absl::Status ConstKernel(KernelContext& ctx) {
  ctx.output(0) = ctx.attr(ConstAttrs::kValue);
  return absl::OkStatus();
}

absl::Status PlaceholderKernel(KernelContext&) {
  return absl::InvalidArgumentError(
      "a placeholder has no value of its own: feed it in Session::run");
}

const bool kConst = RegisterAllDTypes(
    "Const", [](auto) -> KernelFn { return ConstKernel; }, /*allocates_outputs=*/true);
const bool kPlaceholder = RegisterAllDTypes(
    "Placeholder", [](auto) -> KernelFn { return PlaceholderKernel; }, /*allocates_outputs=*/true);
// Neither reads elements, so strings and objects need no kernels of their own.
const KernelRegistrar kStringConst("Const", DeviceType::kCpu, {kString},
                                   {ConstKernel, /*allocates_outputs=*/true});
const KernelRegistrar kObjectPlaceholders("Placeholder", DeviceType::kCpu,
                                          {kString, kResource, kVariant},
                                          {PlaceholderKernel, /*allocates_outputs=*/true});

}  // namespace
}  // namespace duet
