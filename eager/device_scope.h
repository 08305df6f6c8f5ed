// DeviceScope: chooses the device for ops (and new tensors) created inside it on this thread.
#pragma once

#include "absl/strings/string_view.h"
#include "core/device.h"

namespace duet {

// { DeviceScope on_gpu("/gpu:0"); Tensor y = matmul(x, x); }
// Ops with inputs run where their inputs are; the scope decides for ops without inputs.
class DeviceScope {
 public:
  explicit DeviceScope(Device device);
  // Parses "/gpu:0", "cuda:1", "cpu"; throws Error on a malformed name.
  explicit DeviceScope(absl::string_view device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

  // The innermost scope's device on this thread (cpu:0 outside any scope).
  static Device Current();

 private:
  Device previous_;
};

}  // namespace duet
