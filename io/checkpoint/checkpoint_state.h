// The "checkpoint" file of a checkpoint directory: TensorFlow's CheckpointState in protobuf text
// format, naming the latest checkpoint and those kept (paths relative to the directory).
#pragma once

#include <string>
#include <vector>

#include "proto/checkpoint_state.pb.h"

namespace duet::checkpoint_internal {

// The directory's state; an empty one if it has no "checkpoint" file. Throws Error if the file
// does not parse.
tensorflow::CheckpointState ReadCheckpointState(const std::string& directory);
// Replaces the file atomically, listing `paths` (oldest first, the last the latest) with their
// save times (seconds since the epoch), relative to `directory` where they lie in it.
void WriteCheckpointState(const std::string& directory, const std::vector<std::string>& paths,
                          const std::vector<double>& timestamps);
// Now, in the timestamps' unit.
double SecondsSinceEpoch();

// `path` relative to `directory` when it lies in it, as TensorFlow writes them; and back.
std::string RelativeTo(const std::string& directory, const std::string& path);
std::string ResolveIn(const std::string& directory, const std::string& path);

}  // namespace duet::checkpoint_internal
