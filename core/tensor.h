// Tensor: a cheap, ref-counted handle to an immutable n-dimensional array.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/buffer.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"

namespace duet {

// What a Tensor handle points to. A concrete (eager) tensor views `byte_offset` into `buffer`;
// its elements are contiguous, row-major and, at offset 0, kBufferAlignment-aligned. A symbolic
// tensor (graph mode) has no buffer; graph-mode code attaches its node reference in `symbolic`.
struct TensorImpl {
  DType dtype = kFloat32;
  Shape shape;
  Device device;
  std::shared_ptr<Buffer> buffer;
  size_t byte_offset = 0;
  std::shared_ptr<const void> symbolic;  // owned by graph mode; null for eager tensors
};

// A tensor handle. Copies share the same immutable data (like tf.Tensor); ops make new tensors.
// Reading values (to_vector, item, data) needs a concrete tensor on the CPU.
class Tensor {
 public:
  Tensor() = default;  // undefined: defined() is false
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new, uninitialized tensor; throws Error when memory runs out.
  static Tensor Empty(DType dtype, const Shape& shape, Device device = Device::cpu());
  static absl::StatusOr<Tensor> TryEmpty(DType dtype, const Shape& shape,
                                         Device device = Device::cpu());

  bool defined() const { return impl_ != nullptr; }
  // True for tensors that hold values (eager); false for symbolic graph tensors.
  bool has_value() const { return impl_ && impl_->buffer != nullptr; }
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
  void* raw_data() const {
    return static_cast<char*>(impl_->buffer->data()) + impl_->byte_offset;
  }

  // Copies the values out. T must match dtype(); throws Error otherwise or when the tensor has
  // no value (a symbolic tensor inside a graph).
  template <typename T>
  std::vector<T> to_vector() const {
    CheckReadable(DTypeOf<T>(), "to_vector");
    const T* p = data<T>();
    return std::vector<T>(p, p + num_elements());
  }
  // The value of a one-element tensor.
  template <typename T>
  T item() const {
    CheckReadable(DTypeOf<T>(), "item");
    if (num_elements() != 1) ThrowNotScalar();
    return *data<T>();
  }

  // A view with a new shape of the same number of elements (no copy).
  Tensor reshaped(const Shape& shape) const;
  // True when both handles view the same buffer.
  bool shares_buffer_with(const Tensor& other) const;
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

 private:
  void CheckReadable(DType requested, const char* what) const;
  [[noreturn]] void ThrowNotScalar() const;

  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace duet
