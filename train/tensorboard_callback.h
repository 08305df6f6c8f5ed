// TensorBoard: fit's losses and metrics as TensorBoard event files, laid out as Keras' TensorBoard
// callback lays them out, so that TensorBoard draws training and validation in one chart:
// <logdir>/train and <logdir>/validation, tags "epoch_loss", "epoch_<metric>", step = epoch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/summary/file_writer.h"
#include "train/callback.h"

namespace duet {

class TensorBoard : public Callback {
 public:
  // update_freq > 0 also writes "batch_loss" and "batch_<metric>" (the epoch's running values)
  // to <logdir>/train every update_freq steps, at the step count since training began.
  explicit TensorBoard(std::string logdir, int64_t update_freq = 0);

  void on_train_begin(TrainingState& state) override;
  void on_train_batch_end(int64_t step, const Logs& logs, TrainingState& state) override;
  void on_epoch_end(int epoch, const Logs& logs, TrainingState& state) override;
  void on_train_end(const Logs& logs, TrainingState& state) override;

 private:
  std::string logdir_;
  int64_t update_freq_;
  int64_t steps_ = 0;  // training steps since on_train_begin
  // Made when training begins, so that a TensorBoard callback can be made and moved freely.
  std::unique_ptr<summary::FileWriter> train_, validation_;
};

}  // namespace duet
