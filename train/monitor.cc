#include "train/monitor.h"

#include <cmath>
#include <iostream>

#include "absl/strings/match.h"

namespace duet {
namespace {

bool LargerIsBetter(const std::string& name, MonitorMode mode) {
  if (mode != MonitorMode::kAuto) return mode == MonitorMode::kMax;
  for (const char* better_high : {"acc", "auc", "precision", "recall"}) {
    if (absl::StrContains(name, better_high)) return true;
  }
  return false;
}

}  // namespace

Monitor::Monitor(std::string name, MonitorMode mode, double min_delta)
    : name_(std::move(name)),
      larger_is_better_(LargerIsBetter(name_, mode)),
      min_delta_(std::abs(min_delta)) {}

std::optional<double> Monitor::value(const Logs& logs) {
  std::optional<double> found = logs.get(name_);
  if (!found && !warned_) {
    warned_ = true;
    std::cerr << "warning: the monitored value \"" << name_ << "\" is not in the epoch's logs (";
    for (const auto& [name, value] : logs.items()) std::cerr << " " << name;
    std::cerr << " ); pass a validation dataset for val_ values\n";
  }
  return found;
}

bool Monitor::improved(double value) {
  const bool better =
      !best_ || (larger_is_better_ ? value > *best_ + min_delta_ : value < *best_ - min_delta_);
  if (better) best_ = value;
  return better;
}

}  // namespace duet
