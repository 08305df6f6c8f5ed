// CheckpointManager: numbered checkpoints in one directory, keeping the most recent few.
#pragma once

#include <string>
#include <vector>

#include "io/checkpoint/checkpoint.h"

namespace duet {

// Saves `checkpoint` as <directory>/<name>-<save_counter> and keeps the newest `max_to_keep`
// (older ones are deleted; 0 keeps all), listing them in the directory's "checkpoint" file as
// tf.train.CheckpointManager does, so either can pick up the other's directory.
class CheckpointManager {
 public:
  CheckpointManager(Checkpoint& checkpoint, std::string directory, int max_to_keep,
                    std::string checkpoint_name = "ckpt");

  // Writes the next checkpoint, makes it the latest and deletes the oldest beyond max_to_keep.
  // Returns its path.
  std::string save();
  // The newest checkpoint, or "" if there is none.
  std::string latest_checkpoint() const;
  // The checkpoints kept, oldest first.
  const std::vector<std::string>& checkpoints() const { return kept_; }
  const std::string& directory() const { return directory_; }

 private:
  Checkpoint& checkpoint_;
  std::string directory_, name_;
  int max_to_keep_;
  std::vector<std::string> kept_;
  std::vector<double> timestamps_;
};

}  // namespace duet
