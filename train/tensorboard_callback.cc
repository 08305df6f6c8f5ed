#include "train/tensorboard_callback.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace duet {

TensorBoard::TensorBoard(std::string logdir, int64_t update_freq)
    : logdir_(std::move(logdir)), update_freq_(update_freq) {}

void TensorBoard::on_train_begin(TrainingState& state) {
  train_ = std::make_unique<summary::FileWriter>(logdir_ + "/train");
  validation_ = std::make_unique<summary::FileWriter>(logdir_ + "/validation");
  // A resumed run continues the step axis where the finished epochs left it.
  steps_ = state.steps_per_epoch > 0 ? state.initial_epoch * state.steps_per_epoch : 0;
}

void TensorBoard::on_train_batch_end(int64_t /*step*/, const Logs& logs, TrainingState& /*state*/) {
  ++steps_;
  if (update_freq_ <= 0 || steps_ % update_freq_ != 0) return;
  for (const auto& [name, value] : logs.items()) {
    train_->scalar(absl::StrCat("batch_", name), value, steps_);
  }
}

void TensorBoard::on_epoch_end(int epoch, const Logs& logs, TrainingState& /*state*/) {
  for (const auto& [name, value] : logs.items()) {
    if (absl::StartsWith(name, "val_")) {
      validation_->scalar(absl::StrCat("epoch_", name.substr(4)), value, epoch);
    } else {
      train_->scalar(absl::StrCat("epoch_", name), value, epoch);
    }
  }
  // Each epoch is on disk when it ends: TensorBoard shows a long run as it trains.
  train_->flush();
  validation_->flush();
}

void TensorBoard::on_train_end(const Logs& /*logs*/, TrainingState& /*state*/) {
  train_->close();
  validation_->close();
}

}  // namespace duet
