#include "core/device.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace duet {

absl::StatusOr<Device> Device::Parse(absl::string_view spec) {
  std::string s = absl::AsciiStrToLower(spec);
  absl::string_view rest = s;
  // TensorFlow's full names start with the task: /job:localhost/replica:0/task:0/device:CPU:0.
  for (absl::string_view part : {"/job:", "/replica:", "/task:"}) {
    if (!absl::ConsumePrefix(&rest, part)) continue;
    const size_t end = rest.find('/');
    rest.remove_prefix(end == absl::string_view::npos ? rest.size() : end);
  }
  absl::ConsumePrefix(&rest, "/");
  absl::ConsumePrefix(&rest, "device:");
  DeviceType type;
  if (absl::ConsumePrefix(&rest, "cpu")) {
    type = DeviceType::kCpu;
  } else if (absl::ConsumePrefix(&rest, "cuda") || absl::ConsumePrefix(&rest, "gpu")) {
    type = DeviceType::kCuda;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown device '", spec, "' (expected cpu:0, cuda:N or /gpu:N)"));
  }
  int index = 0;
  if (absl::ConsumePrefix(&rest, ":")) {
    if (!absl::SimpleAtoi(rest, &index) || index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("bad device index in '", spec, "'"));
    }
  } else if (!rest.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown device '", spec, "'"));
  }
  return Device(type, index);
}

std::string Device::str() const { return absl::StrCat(is_cpu() ? "cpu:" : "cuda:", index_); }

std::string Device::tf_name() const {
  return absl::StrCat(is_cpu() ? "/device:CPU:" : "/device:GPU:", index_);
}

// Note [Device runtimes]: num_gpus() and empty_cache() are device-neutral calls that core cannot
// implement (core links no CUDA), so the layer that can registers a DeviceRuntime here, the way
// kernels register themselves with the kernel registry. Without one (a build without the CUDA
// runtime) there are no GPUs. The TF32 switch is only a flag, so it lives here outright.
namespace {

std::atomic<DeviceRuntime*> cuda_runtime{nullptr};
std::atomic<bool> allow_tf32_flag{false};

}  // namespace

void RegisterDeviceRuntime(DeviceType type, DeviceRuntime* runtime) {
  if (type == DeviceType::kCuda) cuda_runtime.store(runtime, std::memory_order_release);
}

int num_gpus() {
  const DeviceRuntime* runtime = cuda_runtime.load(std::memory_order_acquire);
  return runtime == nullptr ? 0 : runtime->device_count();
}

// Note [Virtual devices]: a GPU is lent to development now and then, and CI never has one, yet
// placement, copies and the device check (Note [Device checks] in kernels/kernel_registry.h) are
// where multi-device programs break. So, as TensorFlow's logical devices, DUET_VIRTUAL_DEVICES=N
// gives N CPU devices: cpu:1 ... cpu:N-1 run the CPU kernels, but their tensors have allocators
// of their own (core/allocator.h) and count as another device's memory everywhere: placement puts
// ops there by the same rules as on a GPU, host code reads their values through a copy to cpu:0
// (Device::is_host), copies between them are real, and a kernel handed cpu:0 memory on cpu:1 fails
// the device check as a GPU kernel handed a host pointer would. A test on cpu:1 thus exercises
// the code paths a GPU run takes, short of the CUDA kernels themselves.
// Note [Host reads of device memory]: a GPU's memory cannot be read by host code, so code that
// reads values (printing, to_vector, graph passes looking at constants, checkpoints, initializers)
// must copy a device tensor to cpu:0 first; a place that forgets crashes, but only on a GPU. A
// virtual device's memory is host memory, so the same mistake would pass unseen on cpu:1; instead
// Tensor::raw_data() (and data(), mutable_data()) of a tensor on cpu:N, N > 0, throws outside a
// kernel: KernelMemoryScope marks the threads running one (KernelContext holds a scope, and
// ThreadPool::ParallelFor passes it to the threads that run the kernel's chunks). Kernels read
// their own device's memory, and the copy kernels both sides'. Objects (variable handles, lists)
// are exempt: their "data" is a host object wherever the handle lives. On cpu:0 and CUDA the
// check costs one compare of the device index.
int num_cpu_devices() {
  static const int count = [] {
    const char* value = std::getenv("DUET_VIRTUAL_DEVICES");
    int n = 1;
    if (value == nullptr || *value == '\0') return 1;
    if (!absl::SimpleAtoi(value, &n) || n < 1 || n > kMaxCpuDevices) {
      std::fprintf(stderr,
                   "duet: warning: DUET_VIRTUAL_DEVICES='%s' is not a number from 1 to %d; "
                   "using cpu:0 only\n",
                   value, kMaxCpuDevices);
      return 1;
    }
    return n;
  }();
  return count;
}

bool device_present(Device device) {
  if (device.is_cpu()) return device.index() < num_cpu_devices();
  return device.index() < num_gpus();
}

namespace {
std::atomic<int64_t> transfers_to_device{0}, transfers_to_host{0};
}  // namespace

HostTransfers host_transfers() {
  return {transfers_to_device.load(std::memory_order_relaxed),
          transfers_to_host.load(std::memory_order_relaxed)};
}

void CountHostTransfer(Device dst, Device src) {
  if (dst.is_host() == src.is_host()) return;
  (dst.is_host() ? transfers_to_host : transfers_to_device).fetch_add(1, std::memory_order_relaxed);
}

void empty_cache() {
  if (DeviceRuntime* runtime = cuda_runtime.load(std::memory_order_acquire)) runtime->EmptyCache();
}

void SynchronizeDevice(Device device) {
  if (!device.is_cuda()) return;
  if (DeviceRuntime* runtime = cuda_runtime.load(std::memory_order_acquire)) {
    runtime->SynchronizeDevice(device.index());
  }
}

namespace cuda {

void set_allow_tf32(bool allow) { allow_tf32_flag.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return allow_tf32_flag.load(std::memory_order_relaxed); }

}  // namespace cuda

}  // namespace duet
