// Object-based checkpoints in TensorFlow's format: Checkpoint saves and restores the variables a
// set of named objects reach (a model, its optimizer, a step counter), matched on restore by
// their path in the object tree rather than by variable names or creation order.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "eager/variable.h"
#include "io/checkpoint/trackable.h"

namespace duet {

namespace checkpoint_internal {
class Restore;
}  // namespace checkpoint_internal

// What a restore matched. Values for variables not made yet are assigned when those variables
// are made (Note [Deferred restoration] in nn/module.h), so ask after the model's first call.
class CheckpointLoadStatus {
 public:
  // Throws Error unless every value in the checkpoint went to a variable and every variable the
  // Checkpoint reaches got a value; the message lists the paths that did not match.
  const CheckpointLoadStatus& assert_consumed() const;
  // Throws Error unless every variable that exists now got a value (values may remain unused).
  const CheckpointLoadStatus& assert_existing_objects_matched() const;
  // Silences the warning given when values the checkpoint holds are never used.
  const CheckpointLoadStatus& expect_partial() const;

  // The object paths of checkpoint values not (yet) restored, and of variables without a value.
  std::vector<std::string> unused_values() const;
  std::vector<std::string> unrestored_variables() const;

 private:
  friend class Checkpoint;
  explicit CheckpointLoadStatus(std::shared_ptr<checkpoint_internal::Restore> restore)
      : restore_(std::move(restore)) {}
  std::shared_ptr<checkpoint_internal::Restore> restore_;  // null: nothing was restored
};

// Note [Checkpoints]: a checkpoint is a TensorBundle (prefix.index + prefix.data-00000-of-00001)
// holding every variable's value under its object path ("model/d1/kernel/.ATTRIBUTES/
// VARIABLE_VALUE") and the TrackableObjectGraph under "_CHECKPOINTABLE_OBJECT_GRAPH", the files
// tf.train.Checkpoint writes and reads. Writes are atomic: the files appear complete or not at
// all, and the directory's "checkpoint" file names a new checkpoint only once it is complete.
class Checkpoint {
 public:
  // `objects` name the roots: {{"model", &model}, {"optimizer", &opt}, {"step", &step}}. Modules
  // and optimizers must outlive the Checkpoint and the statuses of its restores; variables are
  // held by handle. The Checkpoint adds its own "save_counter" (int64).
  explicit Checkpoint(std::vector<std::pair<std::string, Trackable>> objects);
  // Restores hold on to the Checkpoint's counter: it stays where it was made.
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  // Adds 1 to save_counter, writes `prefix`-<save_counter> and makes it the latest checkpoint of
  // its directory (the "checkpoint" file). Returns the path written ("ckpt/ckpt-1").
  std::string save(const std::string& prefix);
  // Writes exactly `path` (no numbering, no "checkpoint" file). Returns `path`.
  std::string write(const std::string& path);
  // Assigns the values at `path` to the variables, matched by object path; later ones as they
  // are made. An empty path (latest_checkpoint of an empty directory) restores nothing.
  // Throws Error for an unreadable or corrupt checkpoint, or a value whose dtype or shape differs
  // from its variable's (naming the path and both shapes).
  CheckpointLoadStatus restore(const std::string& path);

  Variable& save_counter() { return save_counter_; }

 private:
  std::vector<std::pair<std::string, Trackable>> RootsWithCounter();

  std::vector<std::pair<std::string, Trackable>> objects_;
  Variable save_counter_;
};

// The latest checkpoint the "checkpoint" file of `directory` names, or "" if there is none.
std::string latest_checkpoint(const std::string& directory);

}  // namespace duet
