#include "train/early_stopping.h"

#include <optional>

#include "eager/variable.h"

namespace duet {

EarlyStopping::EarlyStopping(EarlyStoppingOptions options)
    : options_(std::move(options)), monitor_(options_.monitor, options_.mode, options_.min_delta) {}

void EarlyStopping::on_train_begin(TrainingState& /*state*/) {
  monitor_.reset();
  wait_ = 0;
  stopped_epoch_ = best_epoch_ = -1;
  best_values_.clear();
}

void EarlyStopping::on_epoch_end(int epoch, const Logs& logs, TrainingState& state) {
  const std::optional<double> value = monitor_.value(logs);
  if (!value) return;
  if (monitor_.improved(*value)) {
    wait_ = 0;
    best_epoch_ = epoch;
    if (options_.restore_best_weights) {
      best_values_.clear();
      // value() is a snapshot: the next step's assignments make new buffers, not change it.
      for (const Variable& v : state.model->variables()) best_values_.push_back(v.value());
    }
    return;
  }
  if (++wait_ <= options_.patience) return;
  stopped_epoch_ = epoch;
  state.stop_training = true;
  if (options_.restore_best_weights && !best_values_.empty()) {
    std::vector<Variable> variables = state.model->variables();
    for (size_t i = 0; i < variables.size(); ++i) variables[i].assign(best_values_[i]);
  }
}

}  // namespace duet
