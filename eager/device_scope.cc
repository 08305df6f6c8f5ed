#include "eager/device_scope.h"

#include "core/error.h"

namespace duet {
namespace {
thread_local std::optional<Device> current_device;
}  // namespace

DeviceScope::DeviceScope(Device device) : previous_(current_device) { current_device = device; }

DeviceScope::DeviceScope(absl::string_view device)
    : DeviceScope(ValueOrThrow(Device::Parse(device))) {}

DeviceScope::~DeviceScope() { current_device = previous_; }

Device DeviceScope::Current() { return current_device.value_or(Device::cpu()); }

std::optional<Device> DeviceScope::Innermost() { return current_device; }

}  // namespace duet
