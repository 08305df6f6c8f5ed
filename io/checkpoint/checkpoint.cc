#include "io/checkpoint/checkpoint.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/constant.h"
#include "core/error.h"
#include "eager/eager_context.h"
#include "io/checkpoint/checkpoint_state.h"
#include "io/checkpoint/object_graph.h"
#include "io/checkpoint/restore.h"
#include "io/checkpoint/tensor_bundle.h"

namespace duet {
namespace {

using checkpoint_internal::Restore;

Error NoCheckpoint() {
  return Error(absl::FailedPreconditionError(
      "no checkpoint was restored (restore() was given an empty path: the directory has none)"));
}

Error Mismatch(const std::string& path, const std::string& what,
               const std::vector<std::string>& paths) {
  return Error(absl::FailedPreconditionError(
      absl::StrCat("checkpoint '", path, "': ", what, ": ", absl::StrJoin(paths, ", "))));
}

}  // namespace

const CheckpointLoadStatus& CheckpointLoadStatus::assert_consumed() const {
  if (!restore_) throw NoCheckpoint();
  const auto unused = restore_->UnusedValues();
  if (!unused.empty()) {
    throw Mismatch(restore_->path(), "values not restored (no such object, or not made yet)",
                   unused);
  }
  return assert_existing_objects_matched();
}

const CheckpointLoadStatus& CheckpointLoadStatus::assert_existing_objects_matched() const {
  if (!restore_) throw NoCheckpoint();
  const auto unrestored = restore_->UnrestoredVariables();
  if (!unrestored.empty()) {
    throw Mismatch(restore_->path(), "variables without a value in it", unrestored);
  }
  return *this;
}

const CheckpointLoadStatus& CheckpointLoadStatus::expect_partial() const {
  if (restore_) restore_->ExpectPartial();
  return *this;
}

std::vector<std::string> CheckpointLoadStatus::unused_values() const {
  return restore_ ? restore_->UnusedValues() : std::vector<std::string>{};
}

std::vector<std::string> CheckpointLoadStatus::unrestored_variables() const {
  return restore_ ? restore_->UnrestoredVariables() : std::vector<std::string>{};
}

Checkpoint::Checkpoint(std::vector<std::pair<std::string, Trackable>> objects)
    : objects_(std::move(objects)) {
  for (size_t i = 0; i < objects_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (objects_[i].first == objects_[j].first) {
        throw Error(absl::InvalidArgumentError(
            absl::StrCat("Checkpoint: two objects are called '", objects_[i].first, "'")));
      }
    }
    if (objects_[i].first == "save_counter") {
      throw Error(absl::InvalidArgumentError(
          "Checkpoint: 'save_counter' is the Checkpoint's own counter; use another name"));
    }
  }
  ExecutionContext::Scope eager(&EagerContext::Get());
  save_counter_ = Variable(scalar(0, kInt64), "save_counter", /*trainable=*/false);
}

std::vector<std::pair<std::string, Trackable>> Checkpoint::RootsWithCounter() {
  auto roots = objects_;
  roots.emplace_back("save_counter", &save_counter_);
  return roots;
}

std::string Checkpoint::write(const std::string& path) {
  ExecutionContext::Scope eager(&EagerContext::Get());
  const checkpoint_internal::ObjectGraph graph =
      checkpoint_internal::BuildObjectGraph(RootsWithCounter());
  io::BundleWriter writer(path);
  for (const auto& saved : graph.variables) writer.add(saved.key, saved.variable.value());
  writer.add(checkpoint_internal::kObjectGraphKey, constant(graph.proto.SerializeAsString()));
  writer.finish();
  return path;
}

std::string Checkpoint::save(const std::string& prefix) {
  ExecutionContext::Scope eager(&EagerContext::Get());
  save_counter_.assign_add(scalar(1, kInt64));
  const std::string path = absl::StrCat(prefix, "-", save_counter_.value().item<int64_t>());
  write(path);
  // Only a complete checkpoint becomes the latest (TensorFlow's Checkpoint.save keeps one).
  checkpoint_internal::WriteCheckpointState(std::filesystem::path(prefix).parent_path().string(),
                                            {path}, {checkpoint_internal::SecondsSinceEpoch()});
  return path;
}

CheckpointLoadStatus Checkpoint::restore(const std::string& path) {
  if (path.empty()) return CheckpointLoadStatus(nullptr);
  auto restore = std::make_shared<Restore>(path, RootsWithCounter());
  restore->Run();
  return CheckpointLoadStatus(std::move(restore));
}

std::string latest_checkpoint(const std::string& directory) {
  const tensorflow::CheckpointState state = checkpoint_internal::ReadCheckpointState(directory);
  const std::string path = checkpoint_internal::ResolveIn(directory, state.model_checkpoint_path());
  if (path.empty() || !std::filesystem::exists(path + ".index")) return "";
  return path;
}

}  // namespace duet
