// EarlyStopping: ends fit when a monitored value stops improving (keras.callbacks.EarlyStopping).
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "train/callback.h"
#include "train/monitor.h"

namespace duet {

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  // An epoch improves on the best only by more than this.
  double min_delta = 0;
  // Epochs without improvement before stopping.
  int patience = 0;
  MonitorMode mode = MonitorMode::kAuto;
  // On stopping, assign the model the variables of its best epoch (else it keeps the last's).
  bool restore_best_weights = false;
};

class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});

  // The epoch fit stopped after, or -1 when it ran to the end.
  int stopped_epoch() const { return stopped_epoch_; }
  // The epoch with the best monitored value, or -1 before any.
  int best_epoch() const { return best_epoch_; }

  void on_train_begin(TrainingState& state) override;
  void on_epoch_end(int epoch, const Logs& logs, TrainingState& state) override;

 private:
  EarlyStoppingOptions options_;
  Monitor monitor_;
  int wait_ = 0;
  int stopped_epoch_ = -1;
  int best_epoch_ = -1;
  std::vector<Tensor> best_values_;  // the model's variables at best_epoch_, when restoring
};

}  // namespace duet
