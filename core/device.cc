#include "core/device.h"

#include <atomic>

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

void empty_cache() {
  if (DeviceRuntime* runtime = cuda_runtime.load(std::memory_order_acquire)) runtime->EmptyCache();
}

namespace cuda {

void set_allow_tf32(bool allow) { allow_tf32_flag.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return allow_tf32_flag.load(std::memory_order_relaxed); }

}  // namespace cuda

}  // namespace duet
