// The "checkpoint" file of a checkpoint directory: TensorFlow's CheckpointState in protobuf text
// format, naming the latest checkpoint and those kept (paths relative to the directory).
#pragma once

#include <string>

#include "proto/checkpoint_state.pb.h"

namespace duet::checkpoint_internal {

// The directory's state; an empty one if it has no "checkpoint" file. Throws Error if the file
// does not parse.
tensorflow::CheckpointState ReadCheckpointState(const std::string& directory);
// Replaces the file atomically (a temporary file, fsynced, renamed over it).
void WriteCheckpointState(const std::string& directory, const tensorflow::CheckpointState& state);

// `path` relative to `directory` when it lies in it, as TensorFlow writes them; and back.
std::string RelativeTo(const std::string& directory, const std::string& path);
std::string ResolveIn(const std::string& directory, const std::string& path);

// Writes `contents` to `path` atomically: complete or not at all, even if the process dies.
void WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace duet::checkpoint_internal
