// Tensor: a cheap, ref-counted handle to an immutable n-dimensional array.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "core/allocator.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"

namespace duet {

class Tensor;

// What a symbolic tensor (graph mode) points to: an interface declared here, implemented by graph
// mode (SymbolicRef in graph/graph.cc), so the layers below graph/ can ask a symbolic tensor what
// they need without a hook installed from above.
class SymbolicValue {
 public:
  virtual ~SymbolicValue() = default;
  // The value when graph mode knows it without running anything (a Const node's), or nullptr.
  virtual const Tensor* constant_value() const = 0;
};

// What a Tensor handle points to. A concrete (eager) tensor's elements start at `data`: they are
// contiguous, row-major and, for a tensor that owns its memory, kBufferAlignment-aligned. The
// owner of the memory holds the allocator that returns it; a view (reshape, identity) points into
// its owner's memory and keeps the owner alive through `base`. One allocation per fresh tensor:
// this is on the eager hot path. A symbolic tensor (graph mode) has no data; graph-mode code
// attaches its node reference in `symbolic`.
struct TensorImpl {
  TensorImpl() {}  // user-provided: make_shared then skips zero-filling the whole object
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;
  ~TensorImpl() {
    if (allocator == nullptr) return;
    if (dtype == DType::kString) DestroyStrings();  // Note [String tensors] in core/tensor.cc
    allocator->Deallocate(data, allocated_bytes);
  }
  // The owner of a kString tensor's memory constructs its std::string elements, and destroys them.
  void ConstructStrings();
  void DestroyStrings();

  DType dtype = kFloat32;
  Shape shape;
  Device device;
  void* data = nullptr;
  Allocator* allocator = nullptr;  // set only on the owner of `data`
  size_t allocated_bytes = 0;
  std::shared_ptr<const TensorImpl> base;         // views: the owner of the memory
  std::shared_ptr<const SymbolicValue> symbolic;  // graph mode's; null for eager tensors
  std::shared_ptr<void> resource;  // kResource, kVariant: the object held (Note [Object dtypes])
  bool literal = false;  // made from a C++ literal (Note [Literal tensors] in core/literal.cc)
  // Identity on gradient tapes, assigned the first time a tape tracks this tensor; 0 = untracked.
  // An id, not the address, because a freed TensorImpl's address is soon reused.
  uint64_t tape_id = 0;
};

// A tensor handle. Copies share the same immutable data (like tf.Tensor); ops make new tensors.
// Reading values (to_vector, item) copies a tensor on another device to the CPU first; data()
// is the raw pointer on the tensor's own device.
class TensorIndex;

class Tensor {
 public:
  Tensor() = default;  // undefined: defined() is false
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A C++ literal where a tensor is expected, as in TensorFlow: add(x, 1), maximum(x, 0.5),
  // matmul(x, {{1.f}, {2.f}}). The dtype follows the literal as constant()'s does, but an op
  // converts the literal to the dtype of the tensors it meets (Note [Literal tensors] in
  // core/literal.cc). Implicit on purpose.
  template <typename S>
  requires std::is_arithmetic_v<S> Tensor(S value) : Tensor(LiteralOf(value)) {}
  template <Element T>
  Tensor(std::initializer_list<T> values);
  template <Element T>
  Tensor(std::initializer_list<std::initializer_list<T>> values);
  template <Element T>
  Tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values);
  template <Element T>
  Tensor(
      std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>>
          values);

  // A new, uninitialized tensor; throws Error when memory runs out.
  static Tensor Empty(DType dtype, const Shape& shape, Device device = Device::cpu());
  static absl::StatusOr<Tensor> TryEmpty(DType dtype, const Shape& shape,
                                         Device device = Device::cpu());

  bool defined() const { return impl_ != nullptr; }
  // True for a tensor made from a C++ literal (see the constructors above).
  bool is_literal() const { return impl_ && impl_->literal; }
  // True for tensors that hold values (eager); false for symbolic graph tensors.
  bool has_value() const { return impl_ && impl_->data != nullptr; }
  DType dtype() const { return impl_->dtype; }
  const Shape& shape() const { return impl_->shape; }
  Device device() const { return impl_->device; }
  int rank() const { return impl_->shape.rank(); }
  int64_t num_elements() const { return impl_->shape.num_elements(); }
  size_t nbytes() const { return static_cast<size_t>(num_elements()) * DTypeSize(dtype()); }

  // Element pointers for kernels. T must match dtype() (checked in debug builds).
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(raw_data());
  }
  // Writable pointer, only for filling a tensor a kernel just allocated.
  template <typename T>
  T* mutable_data() const {
    return static_cast<T*>(raw_data());
  }
  // The element pointer; on a virtual device only inside a kernel (Note [Host reads of device
  // memory] in core/device.cc), else Error.
  void* raw_data() const {
    if (impl_->device.index() != 0 && impl_->device.is_cpu()) CheckHostMayRead();
    return impl_->data;
  }

  // Copies the values out. T must match dtype() (std::string for kString); throws Error otherwise
  // or when the tensor has no value (a symbolic tensor inside a graph).
  template <ValueElement T>
  std::vector<T> to_vector() const {
    CheckReadable(DTypeOf<T>(), "to_vector");
    if (!device().is_host()) return cpu().to_vector<T>();
    const T* p = data<T>();
    return std::vector<T>(p, p + num_elements());
  }
  // The value of a one-element tensor.
  template <ValueElement T>
  T item() const {
    CheckReadable(DTypeOf<T>(), "item");
    if (num_elements() != 1) ThrowNotScalar();
    if (!device().is_host()) return cpu().item<T>();
    return *data<T>();
  }

  // A copy on `device`, or this tensor when it is already there (API.md, "Devices"). The copy is
  // an op (DuetCopyToDevice): differentiable, and a copy node in graph mode. Throws Error when
  // the device is not present.
  Tensor to(Device device) const;
  Tensor gpu(int index = 0) const { return to(Device::cuda(index)); }
  Tensor cpu() const { return to(Device::cpu()); }

  // A view with a new shape of the same number of elements (no copy).
  Tensor reshaped(const Shape& shape) const;
  // A view of the same memory as another dtype/shape/device: for tests and device glue that
  // need a handle with different metadata. The bytes must fit in this tensor's, and a kString
  // tensor is viewed only as kString (its elements are objects, not bytes).
  Tensor ViewAs(DType dtype, const Shape& shape, Device device) const;
  // True when both handles view the same memory.
  bool shares_buffer_with(const Tensor& other) const;
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

  // NumPy's basic indexing (core/tensor_index.h): x.index({Slice(), 3, Slice(1, None, 2),
  // NewAxis, Ellipsis}) is x[:, 3, 1::2, None, ...], a StridedSlice (differentiable, eagerly and
  // in graphs); integer and tensor entries take one element and drop the dim. Throws Error, naming
  // the caller's line, for more entries than dims, an index out of range, a zero step, or a
  // tensor entry that is not an int32/int64 scalar.
  Tensor index(std::initializer_list<TensorIndex> indices,
               std::source_location location = std::source_location::current()) const;
  // x(Slice(), i) is x.index({Slice(), i}).
  template <typename... Indices>
  Tensor operator()(const Indices&... indices) const;

 private:
  // The literal `value` as a tensor of the dtype constant(value) would have; integers wider than
  // int32 become int64 (float64 beyond int64's range).
  template <typename S>
  static Tensor LiteralOf(S value) {
    if constexpr (std::is_same_v<S, bool> || std::is_same_v<S, float> ||
                  std::is_same_v<S, double>) {
      return Literal(value);
    } else if constexpr (std::is_floating_point_v<S>) {
      return Literal(static_cast<double>(value));
    } else if constexpr (std::is_signed_v<S> && sizeof(S) <= sizeof(int32_t)) {
      return Literal(static_cast<int32_t>(value));
    } else if (std::is_signed_v<S> || static_cast<uint64_t>(value) <= uint64_t{INT64_MAX}) {
      return Literal(static_cast<int64_t>(value));
    } else {
      return Literal(static_cast<double>(value));
    }
  }
  static Tensor Literal(bool value);
  static Tensor Literal(int32_t value);
  static Tensor Literal(int64_t value);
  static Tensor Literal(float value);
  static Tensor Literal(double value);

  void CheckReadable(DType requested, const char* what) const;
  void CheckHostMayRead() const;
  [[noreturn]] void ThrowNotScalar() const;

  std::shared_ptr<TensorImpl> impl_;
};

// How Tensor::to copies (Note [Device copies] in tensor.cc): implemented by the op layer, whose
// copy op is differentiable and becomes a node in graph mode.
class DeviceCopier {
 public:
  virtual ~DeviceCopier() = default;
  virtual Tensor Copy(const Tensor& x, Device device) const = 0;
};
// Installs the copier (once, from a static initializer); it must outlive the process.
void RegisterDeviceCopier(const DeviceCopier* copier);

}  // namespace duet

#include "core/tensor_index.h"  // IWYU pragma: export (Tensor::index takes its types)
