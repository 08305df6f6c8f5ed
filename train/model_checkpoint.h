// ModelCheckpoint: a checkpoint after every epoch through a CheckpointManager (Keras'
// ModelCheckpoint, with TensorFlow's checkpoint files), so that an interrupted run restarts from
// its last finished epoch.
#pragma once

#include <string>

#include "io/checkpoint/checkpoint_manager.h"
#include "train/callback.h"
#include "train/monitor.h"

namespace duet {

struct ModelCheckpointOptions {
  // Save only epochs whose `monitor` value is the best so far.
  bool save_best_only = false;
  std::string monitor = "val_loss";
  MonitorMode mode = MonitorMode::kAuto;
};

class ModelCheckpoint : public Callback {
 public:
  // `manager` (which numbers, keeps and deletes the checkpoints) must outlive fit. Its
  // Checkpoint should hold the model and the optimizer; see docs/training.md for resuming.
  explicit ModelCheckpoint(CheckpointManager& manager, ModelCheckpointOptions options = {});

  // The path of the checkpoint written last, "" before any.
  const std::string& last_saved() const { return last_saved_; }

  void on_epoch_end(int epoch, const Logs& logs, TrainingState& state) override;

 private:
  CheckpointManager* manager_;
  bool save_best_only_;
  Monitor monitor_;
  std::string last_saved_;
};

}  // namespace duet
