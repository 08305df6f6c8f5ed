// DeviceScope: chooses the device for ops (and new tensors) created inside it on this thread.
#pragma once

#include <optional>

#include "absl/strings/string_view.h"
#include "core/device.h"

namespace duet {

// { DeviceScope on_gpu("/gpu:0"); Tensor y = matmul(x, x); }
// Inside a scope, ops run on its device and inputs from other devices are copied there; outside
// any scope, ops run where their inputs are (ops/placement.h, Note [Placement]).
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
  // The innermost scope's device, or nullopt outside any scope.
  static std::optional<Device> Innermost();

 private:
  std::optional<Device> previous_;
};

}  // namespace duet
