#include "io/checkpoint/checkpoint_state.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "google/protobuf/text_format.h"
#include "io/file.h"

namespace duet::checkpoint_internal {
namespace {

namespace fs = std::filesystem;

constexpr char kStateFile[] = "checkpoint";

}  // namespace

std::string RelativeTo(const std::string& directory, const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (fs::path(directory).lexically_normal() == parent.lexically_normal()) {
    return fs::path(path).filename().string();
  }
  return path;
}

std::string ResolveIn(const std::string& directory, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(directory) / path).string();
}

tensorflow::CheckpointState ReadCheckpointState(const std::string& directory) {
  tensorflow::CheckpointState state;
  const std::string file = (fs::path(directory) / kStateFile).string();
  std::ifstream in(file);
  if (!in) return state;
  std::stringstream text;
  text << in.rdbuf();
  if (!google::protobuf::TextFormat::ParseFromString(text.str(), &state)) {
    throw Error(absl::DataLossError(
        absl::StrCat("'", file,
                     "' is not a CheckpointState in text format: the directory's checkpoint list "
                     "is corrupt (delete the file to start over, or fix it by hand)")));
  }
  return state;
}

void WriteCheckpointState(const std::string& directory, const std::vector<std::string>& paths,
                          const std::vector<double>& timestamps) {
  tensorflow::CheckpointState state;
  for (size_t i = 0; i < paths.size(); ++i) {
    state.add_all_model_checkpoint_paths(RelativeTo(directory, paths[i]));
    state.add_all_model_checkpoint_timestamps(timestamps[i]);
  }
  if (!paths.empty()) state.set_model_checkpoint_path(RelativeTo(directory, paths.back()));
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  io::WriteFileAtomically((fs::path(directory) / kStateFile).string(), text);
}

double SecondsSinceEpoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace duet::checkpoint_internal
