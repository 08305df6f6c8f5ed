#include "core/tensor.h"

#include <atomic>

#include "absl/strings/str_cat.h"

namespace duet {

// Note [String tensors]
// A kString tensor's elements are std::string objects living in its buffer, as TensorFlow keeps
// tstring objects in its (DTypeSize(kString) == sizeof(std::string)). The rules:
// - The owner of the memory (the TensorImpl holding the allocator) constructs the elements when it
//   is allocated (Tensor::TryEmpty, as empty strings) and destroys them before handing the memory
//   back (~TensorImpl). Views (reshape, identity, ViewAs) share them through `base` and never
//   destroy anything; ViewAs refuses to view a string tensor as another dtype or the reverse.
// - Only Tensor::TryEmpty/Empty makes string tensors, and only on the CPU. Nothing may hand a
//   kString tensor memory that did not come from it: the Session plan's arena (graph/plan.cc
//   PlaceArena) leaves kString slots out, so they are allocated fresh, never planned, reused in
//   place or given to a kernel as scratch; the size-class pool sees only raw bytes, after the
//   owner has destroyed its strings; there are no string device copies (a GPU has no strings).
// - Kernels copy strings by assignment, never by memcpy: only the explicit string kernels
//   (Identity and the other views, Reshape, GatherV2, ConcatV2, Pack, Const, Placeholder,
//   Shape/Size/Rank) run on them; the function-call and control-flow ops only pass tensors on. A
//   type attr accepts kString only when the op lists it (CheckAttr in ops/op_call.cc), VisitDType
//   has no case for it, and loops that register numeric kernels stop at kNumNumericDTypes, so a
//   numeric kernel never sees string elements: other ops fail with "no kernel for string tensors".
// - TensorProto string_val, checkpoints (io/checkpoint), printing and the passes that compare
//   constants (CSE, the shadow check) read the element objects; tensor_content and .npy refuse
//   kString.
void TensorImpl::ConstructStrings() {
  auto* p = static_cast<std::string*>(data);
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) new (p + i) std::string();
}

void TensorImpl::DestroyStrings() {
  auto* p = static_cast<std::string*>(data);
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) p[i].~basic_string();
}

absl::StatusOr<Tensor> Tensor::TryEmpty(DType dtype, const Shape& shape, Device device) {
  if (!shape.is_fully_defined()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a tensor of partially known shape ", shape.str()));
  }
  // Reject sizes whose byte count overflows before asking the allocator.
  uint64_t bytes = DTypeSize(dtype);
  for (int64_t d : shape.dims()) {
    if (d != 0 && bytes > (uint64_t{1} << 62) / static_cast<uint64_t>(d)) {
      return absl::ResourceExhaustedError(absl::StrCat("a tensor of shape ", shape.str(),
                                                       " and dtype ", DTypeName(dtype),
                                                       " is too large to allocate"));
    }
    bytes *= static_cast<uint64_t>(d);
  }
  if (dtype == kString && !device.is_host()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "string tensors live on the CPU only (cpu:0, the host); cannot allocate one on ",
        device.str()));
  }
  Allocator* allocator = AllocatorFor(device);
  if (allocator == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no allocator for device ", device.str(), " (is the device present?)"));
  }
  void* data = allocator->Allocate(bytes);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("out of memory allocating ", bytes,
                                                     " bytes for a tensor of shape ", shape.str(),
                                                     " on ", device.str()));
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->device = device;
  impl->data = data;
  impl->allocator = allocator;
  impl->allocated_bytes = bytes;
  if (dtype == kString) impl->ConstructStrings();
  return Tensor(std::move(impl));
}

Tensor Tensor::Empty(DType dtype, const Shape& shape, Device device) {
  return ValueOrThrow(TryEmpty(dtype, shape, device));
}

Tensor Tensor::reshaped(const Shape& shape) const {
  if (shape.num_elements() != num_elements()) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("cannot view a tensor of shape ",
                                                        this->shape().str(), " as shape ",
                                                        shape.str(), ": element counts differ")));
  }
  return ViewAs(dtype(), shape, device());
}

Tensor Tensor::ViewAs(DType dtype, const Shape& shape, Device device) const {
  if ((dtype == kString) != (this->dtype() == kString) ||
      shape.num_elements() * DTypeSize(dtype) > num_elements() * DTypeSize(this->dtype())) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("cannot view ", num_elements(), " ", DTypeName(this->dtype()), " elements as ",
                     DTypeName(dtype), " of shape ", shape.str())));
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->shape = shape;
  impl->device = device;
  impl->data = impl_->data;
  impl->base = impl_->base ? impl_->base : impl_;
  impl->symbolic = impl_->symbolic;
  return Tensor(std::move(impl));
}

bool Tensor::shares_buffer_with(const Tensor& other) const {
  if (!has_value() || !other.has_value()) return false;
  auto owner = [](const Tensor& t) { return t.impl_->base ? t.impl_->base.get() : t.impl_.get(); };
  return owner(*this) == owner(other);
}

void Tensor::CheckHostMayRead() const {
  if (KernelMemoryScope::active() || IsObjectDType(dtype()) || impl_->data == nullptr) return;
  throw Error(absl::FailedPreconditionError(
      absl::StrCat("host code read the memory of a ", DTypeName(dtype()), " ", shape().str(),
                   " tensor on ", device().str(),
                   " outside a kernel; on a GPU that is a crash. Copy it to the host first "
                   "(Tensor::cpu) (Note [Host reads of device memory])")));
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
}

// Note [Device copies]: Tensor::to is a core method users expect (x.gpu()), but a copy must be
// an op (DuetCopyToDevice) so that tapes record it and graphs get a node; core cannot call ops,
// so the op layer registers a DeviceCopier here when it is linked in.
namespace {
std::atomic<const DeviceCopier*> device_copier{nullptr};
}  // namespace

void RegisterDeviceCopier(const DeviceCopier* copier) {
  device_copier.store(copier, std::memory_order_release);
}

Tensor Tensor::to(Device device) const {
  if (defined() && this->device() == device) return *this;
  const DeviceCopier* copier = device_copier.load(std::memory_order_acquire);
  if (copier == nullptr) {
    throw Error(absl::InternalError("Tensor::to: no device copy registered (link //ops:array)"));
  }
  return copier->Copy(*this, device);
}

void Tensor::ThrowNotScalar() const {
  throw Error(absl::InvalidArgumentError(absl::StrCat("item: the tensor has shape ", shape().str(),
                                                      " (", num_elements(),
                                                      " elements); item() needs exactly one")));
}

}  // namespace duet
