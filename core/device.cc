#include "core/device.h"

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

}  // namespace duet
