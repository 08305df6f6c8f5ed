#include "core/buffer.h"

#include "absl/strings/str_cat.h"

namespace duet {

absl::StatusOr<std::shared_ptr<Buffer>> Buffer::Allocate(Device device, size_t size) {
  Allocator* allocator = AllocatorFor(device);
  if (allocator == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no allocator for device ", device.str(), " (is the device present?)"));
  }
  void* data = allocator->Allocate(size);
  if (data == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory allocating ", size, " bytes on ", device.str()));
  }
  return std::make_shared<Buffer>(allocator, device, data, size);
}

}  // namespace duet
