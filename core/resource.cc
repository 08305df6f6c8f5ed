#include "core/resource.h"

#include "absl/strings/str_cat.h"

namespace duet {

Tensor MakeResourceTensor(std::shared_ptr<VariableResource> resource, Device device) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = kResource;
  impl->device = device;
  impl->data = resource.get();  // has_value(): a concrete handle
  impl->resource = std::move(resource);
  return Tensor(std::move(impl));
}

VariableResource* VariableOf(const Tensor& t) {
  if (!t.defined() || t.dtype() != kResource) return nullptr;
  return static_cast<VariableResource*>(t.impl()->resource.get());
}

absl::Status CheckAssignable(const VariableResource& variable, DType dtype, const Shape& shape) {
  if (dtype == variable.dtype && variable.shape.IsCompatibleWith(shape)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("variable '", variable.name, "' is ", DTypeName(variable.dtype), " ",
                   variable.shape.str(), "; cannot assign a ", DTypeName(dtype), " ", shape.str(),
                   " value", dtype == variable.dtype ? "" : " (cast it first)"));
}

absl::Status CheckMatchesVariable(const VariableResource& variable, const Shape& variable_shape,
                                  absl::string_view what, DType dtype, const Shape& shape) {
  if (dtype == variable.dtype && variable_shape.IsCompatibleWith(shape)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " is ", DTypeName(dtype), " ", shape.str(), " but variable '",
                   variable.name, "' is ", DTypeName(variable.dtype), " ", variable_shape.str()));
}

}  // namespace duet
