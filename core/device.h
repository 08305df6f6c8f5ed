// Devices: where a tensor's memory lives and where an op runs.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace duet {

enum class DeviceType : uint8_t { kCpu, kCuda };
inline constexpr int kNumDeviceTypes = 2;
// The most CPU devices DUET_VIRTUAL_DEVICES may ask for (Note [Virtual devices] in device.cc).
inline constexpr int kMaxCpuDevices = 8;

// A device: cpu:0 (the host), cuda:N, or a virtual CPU device cpu:N (Note [Virtual devices] in
// device.cc).
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
  // Runs the CPU kernels: cpu:0 or a virtual device.
  bool is_cpu() const { return type_ == DeviceType::kCpu; }
  bool is_cuda() const { return type_ == DeviceType::kCuda; }
  // cpu:0, whose memory host code reads directly: values, shapes, host inputs. A virtual cpu:N is
  // not the host: its tensors are copied to cpu:0 to be read, as a GPU's are.
  bool is_host() const { return type_ == DeviceType::kCpu && index_ == 0; }
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
// Number of CPU devices: cpu:0, plus the virtual devices cpu:1 ... that DUET_VIRTUAL_DEVICES=N in
// the environment asks for (N in all; read once, at the first call). Note [Virtual devices].
int num_cpu_devices();
// Whether `device` exists on this machine: cpu:0, a virtual CPU device, or a present GPU.
bool device_present(Device device);

// Copies of tensor data between the host (cpu:0) and another device (a GPU, a virtual CPU device)
// since the process started: work that stays on one device (a traced training step on its
// tensors) makes none.
struct HostTransfers {
  int64_t to_device = 0;
  int64_t to_host = 0;
};
HostTransfers host_transfers();
// Counts a copy from `src` to `dst` in host_transfers() when exactly one of them is the host: for
// the code that copies (the device runtimes, the copy kernels).
void CountHostTransfer(Device dst, Device src);
// Frees the CUDA caching allocator's unused blocks on every device (torch.cuda.empty_cache());
// a no-op without GPUs.
void empty_cache();
// Waits until everything this process queued on `device`, on any stream, has run
// (cudaDeviceSynchronize); a no-op for CPU devices. For exchanges of device memory with code that
// runs on streams of its own (DLPack: Note [DLPack] in python/src/convert.cc).
void SynchronizeDevice(Device device);

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

// Note [Host reads of device memory] in device.cc: while the calling thread runs a kernel, it may
// read the memory of a virtual device; elsewhere, host code must copy such a tensor to cpu:0
// first, as it must a GPU's. KernelContext holds a scope for the kernel's life, ThreadPool hands
// it to the threads a kernel's loop runs on.
class KernelMemoryScope {
 public:
  KernelMemoryScope() { ++depth_; }
  ~KernelMemoryScope() { --depth_; }
  KernelMemoryScope(const KernelMemoryScope&) = delete;
  KernelMemoryScope& operator=(const KernelMemoryScope&) = delete;
  // Whether the calling thread runs a kernel (or a chunk of one's loop).
  static bool active() { return depth_ > 0; }

 private:
  static inline thread_local int depth_ = 0;
};

// What the public device calls need of an accelerator's runtime (Note [Device runtimes] in
// device.cc): the CUDA layer implements it and registers itself at start-up.
class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual int device_count() const = 0;
  virtual void EmptyCache() = 0;
  virtual void SynchronizeDevice(int index) = 0;
};
// Installs the runtime for `type` (once, from a static initializer); it must outlive the process.
void RegisterDeviceRuntime(DeviceType type, DeviceRuntime* runtime);

}  // namespace duet
