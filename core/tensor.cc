#include "core/tensor.h"

#include "absl/strings/str_cat.h"

namespace duet {

absl::StatusOr<Tensor> Tensor::TryEmpty(DType dtype, const Shape& shape, Device device) {
  if (!shape.is_fully_defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of partially known shape ", shape.str()));
  }
  // Reject sizes whose byte count overflows before asking the allocator.
  uint64_t bytes = DTypeSize(dtype);
  for (int64_t d : shape.dims()) {
    if (d != 0 && bytes > (uint64_t{1} << 62) / static_cast<uint64_t>(d)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("a tensor of shape ", shape.str(), " and dtype ", DTypeName(dtype),
                       " is too large to allocate"));
    }
    bytes *= static_cast<uint64_t>(d);
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->device = device;
  DUET_ASSIGN_OR_RETURN(impl->buffer, Buffer::Allocate(device, bytes));
  return Tensor(std::move(impl));
}

Tensor Tensor::Empty(DType dtype, const Shape& shape, Device device) {
  return ValueOrThrow(TryEmpty(dtype, shape, device));
}

Tensor Tensor::reshaped(const Shape& shape) const {
  if (shape.num_elements() != num_elements()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("cannot view a tensor of shape ", this->shape().str(), " as shape ",
                     shape.str(), ": element counts differ")));
  }
  auto impl = std::make_shared<TensorImpl>(*impl_);
  impl->shape = shape;
  return Tensor(std::move(impl));
}

bool Tensor::shares_buffer_with(const Tensor& other) const {
  return has_value() && other.has_value() && impl_->buffer == other.impl_->buffer;
}

void Tensor::CheckReadable(DType requested, const char* what) const {
  if (!defined()) {
    throw Error(absl::FailedPreconditionError(absl::StrCat(what, ": the tensor is undefined")));
  }
  if (!has_value()) {
    throw Error(absl::FailedPreconditionError(absl::StrCat(
        what, ": this is a symbolic tensor of a graph (shape ", shape().str(), ", dtype ",
        DTypeName(dtype()),
        "); it has no value while the graph is being built. Fetch it with Session::run, or use "
        "cond/while_loop for data-dependent control flow.")));
  }
  if (requested != dtype()) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(what, "<", DTypeName(requested),
                                                        ">: the tensor's dtype is ",
                                                        DTypeName(dtype()), "; cast it first")));
  }
  if (!device().is_cpu()) {
    throw Error(absl::FailedPreconditionError(absl::StrCat(
        what, ": the tensor lives on ", device().str(), "; copy it with .cpu() first")));
  }
}

void Tensor::ThrowNotScalar() const {
  throw Error(absl::InvalidArgumentError(absl::StrCat(
      "item: the tensor has shape ", shape().str(), " (", num_elements(),
      " elements); item() needs exactly one")));
}

}  // namespace duet
