// Devices: where a tensor's memory lives and where an op runs.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace duet {

enum class DeviceType : uint8_t { kCpu, kCuda };
inline constexpr int kNumDeviceTypes = 2;

// A device: cpu:0 or cuda:N.
class Device {
 public:
  constexpr Device() = default;  // cpu:0
  constexpr Device(DeviceType type, int index) : type_(type), index_(index) {}
  static constexpr Device cpu(int index = 0) { return Device(DeviceType::kCpu, index); }
  static constexpr Device cuda(int index = 0) { return Device(DeviceType::kCuda, index); }
  // Accepts "cpu", "cpu:0", "cuda:1", "gpu:0", "/gpu:0", "/device:GPU:0", "/device:CPU:0", and
  // TensorFlow's full names ("/job:localhost/replica:0/task:0/device:GPU:0").
  static absl::StatusOr<Device> Parse(absl::string_view spec);

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool is_cpu() const { return type_ == DeviceType::kCpu; }
  bool is_cuda() const { return type_ == DeviceType::kCuda; }
  // "cpu:0", "cuda:1".
  std::string str() const;
  // TensorFlow's form: "/device:CPU:0", "/device:GPU:1".
  std::string tf_name() const;

  friend bool operator==(Device a, Device b) { return a.type_ == b.type_ && a.index_ == b.index_; }
  friend bool operator!=(Device a, Device b) { return !(a == b); }

 private:
  DeviceType type_ = DeviceType::kCpu;
  int index_ = 0;
};

}  // namespace duet
