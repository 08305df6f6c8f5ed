// Buffer: a block of device memory shared by the tensors that view it.
#pragma once

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"
#include "core/allocator.h"
#include "core/device.h"

namespace duet {

// Owns `size` bytes from an allocator and returns them when the last tensor viewing it dies.
class Buffer {
 public:
  // Allocates from the device's allocator; ResourceExhausted when it is out of memory.
  static absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Device device, size_t size);

  Buffer(Allocator* allocator, Device device, void* data, size_t size)
      : allocator_(allocator), device_(device), data_(data), size_(size) {}
  ~Buffer() { allocator_->Deallocate(data_, size_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  Device device() const { return device_; }

 private:
  Allocator* allocator_;
  Device device_;
  void* data_;
  size_t size_;
};

}  // namespace duet
