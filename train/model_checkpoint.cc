#include "train/model_checkpoint.h"

#include <optional>

namespace duet {

ModelCheckpoint::ModelCheckpoint(CheckpointManager& manager, ModelCheckpointOptions options)
    : manager_(&manager),
      save_best_only_(options.save_best_only),
      monitor_(std::move(options.monitor), options.mode, /*min_delta=*/0) {}

void ModelCheckpoint::on_epoch_end(int /*epoch*/, const Logs& logs, TrainingState& /*state*/) {
  if (save_best_only_) {
    const std::optional<double> value = monitor_.value(logs);
    if (!value || !monitor_.improved(*value)) return;
  }
  last_saved_ = manager_->save();
}

}  // namespace duet
