#include "io/checkpoint/checkpoint_manager.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "eager/eager_context.h"
#include "io/checkpoint/checkpoint_state.h"

namespace duet {
namespace {

namespace fs = std::filesystem;
using checkpoint_internal::ResolveIn;

void Delete(const std::string& path) {
  std::error_code ignored;  // already gone is fine
  fs::remove(path + ".index", ignored);
  fs::remove(path + ".data-00000-of-00001", ignored);
}

}  // namespace

CheckpointManager::CheckpointManager(Checkpoint& checkpoint, std::string directory, int max_to_keep,
                                     std::string checkpoint_name)
    : checkpoint_(checkpoint),
      directory_(std::move(directory)),
      name_(std::move(checkpoint_name)),
      max_to_keep_(max_to_keep) {
  if (max_to_keep < 0) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("CheckpointManager: max_to_keep is ", max_to_keep, "; it must be >= 0")));
  }
  // Pick up what an earlier run (or TensorFlow) left, skipping files deleted since.
  const tensorflow::CheckpointState state = checkpoint_internal::ReadCheckpointState(directory_);
  for (int i = 0; i < state.all_model_checkpoint_paths_size(); ++i) {
    const std::string path = ResolveIn(directory_, state.all_model_checkpoint_paths(i));
    if (!fs::exists(path + ".index")) continue;
    kept_.push_back(path);
    timestamps_.push_back(i < state.all_model_checkpoint_timestamps_size()
                              ? state.all_model_checkpoint_timestamps(i)
                              : 0.0);
  }
}

std::string CheckpointManager::save() {
  std::string path;
  {
    ExecutionContext::Scope eager(&EagerContext::Get());
    Variable& counter = checkpoint_.save_counter();
    counter.assign_add(scalar(1, kInt64));
    path =
        (fs::path(directory_) / absl::StrCat(name_, "-", counter.value().item<int64_t>())).string();
  }
  checkpoint_.write(path);
  // A counter that started again (a new process that did not restore) overwrites a kept
  // checkpoint: list it once, as the newest, so that expiring the old entry cannot delete it.
  for (size_t i = 0; i < kept_.size(); ++i) {
    if (kept_[i] == path) {
      kept_.erase(kept_.begin() + i);
      timestamps_.erase(timestamps_.begin() + i);
      break;
    }
  }
  kept_.push_back(path);
  timestamps_.push_back(checkpoint_internal::SecondsSinceEpoch());
  std::vector<std::string> expired;
  while (max_to_keep_ > 0 && static_cast<int>(kept_.size()) > max_to_keep_) {
    expired.push_back(kept_.front());
    kept_.erase(kept_.begin());
    timestamps_.erase(timestamps_.begin());
  }
  // The list names the new checkpoint before the old files go: a crash in between leaves
  // unlisted files, never a listed checkpoint without files.
  checkpoint_internal::WriteCheckpointState(directory_, kept_, timestamps_);
  for (const std::string& old : expired) Delete(old);
  return path;
}

std::string CheckpointManager::latest_checkpoint() const {
  return kept_.empty() ? "" : kept_.back();
}

}  // namespace duet
