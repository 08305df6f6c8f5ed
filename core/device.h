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

// The public device calls (docs/api.md, "Devices"), declared here so that user code and the
// layers above see no CUDA header.

// Number of usable CUDA devices; 0 without a GPU, a driver or the CUDA runtime.
int num_gpus();
// Frees the CUDA caching allocator's unused blocks on every device (torch.cuda.empty_cache());
// a no-op without GPUs.
void empty_cache();

namespace cuda {
// Allows (true) or forbids (false, the default) TF32 tensor-core math in float32 matmuls on the
// GPU from the next op on; process-wide and thread-safe. Off, float32 products are exact float32
// products (PyTorch's torch.backends.cuda.matmul.allow_tf32 = False); on, cuBLAS may round the
// operands to TF32 (10 mantissa bits): several times faster on Ampere and Hopper, relative
// errors around 1e-3. Convolutions are unaffected.
void set_allow_tf32(bool allow);
// Whether float32 matmuls may use TF32 (set_allow_tf32).
bool allow_tf32();
}  // namespace cuda

// What the public device calls need of an accelerator's runtime (Note [Device runtimes] in
// device.cc): the CUDA layer implements it and registers itself at start-up.
class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual int device_count() const = 0;
  virtual void EmptyCache() = 0;
};
// Installs the runtime for `type` (once, from a static initializer); it must outlive the process.
void RegisterDeviceRuntime(DeviceType type, DeviceRuntime* runtime);

}  // namespace duet
