// Monitor: the "is this epoch better?" test ModelCheckpoint and EarlyStopping share, as Keras'
// monitor / mode / min_delta.
#pragma once

#include <optional>
#include <string>

#include "train/callback.h"

namespace duet {

// Whether a smaller or a larger value of the monitored quantity is better. kAuto: larger for
// accuracies, AUC, precision and recall (a name containing "acc", "auc", "precision" or
// "recall"), smaller for the rest (losses).
enum class MonitorMode { kAuto, kMin, kMax };

class Monitor {
 public:
  Monitor(std::string name, MonitorMode mode, double min_delta);

  const std::string& name() const { return name_; }
  // The monitored value in `logs`; nullopt (and a warning on stderr, once) when it is missing.
  std::optional<double> value(const Logs& logs);
  // True when `value` beats the best so far by more than min_delta; it then becomes the best.
  bool improved(double value);
  std::optional<double> best() const { return best_; }
  void reset() { best_.reset(); }

 private:
  std::string name_;
  bool larger_is_better_;
  double min_delta_;
  std::optional<double> best_;
  bool warned_ = false;
};

}  // namespace duet
