// Callbacks: code fit runs at the start and end of training, of each epoch and after each step
// (Keras' keras.callbacks.Callback). ProgressBar, TensorBoard, ModelCheckpoint and EarlyStopping
// are the built-in ones; derive from Callback for your own.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace duet {

// The values fit reports, in the order it made them: "loss", each metric, then "val_loss" and
// "val_<metric>" (the order the progress bar prints).
class Logs {
 public:
  // Sets `name` to `value`, appending it if it is new.
  void set(std::string_view name, double value);
  // The value of `name`, or nullopt.
  std::optional<double> get(std::string_view name) const;
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, double>> items_;
};

// What callbacks see of the fit call they are part of (Keras' Callback.model and .params).
struct TrainingState {
  nn::Module* model = nullptr;
  // fit runs epochs initial_epoch .. epochs - 1 (numbered from 0).
  int initial_epoch = 0;
  int epochs = 0;
  // Steps in an epoch: the dataset's cardinality, or FitOptions::steps_per_epoch if smaller;
  // for a dataset of unknown cardinality, the length of the last epoch, -1 during the first.
  int64_t steps_per_epoch = -1;
  // A callback sets this to end fit after the current epoch (EarlyStopping does).
  bool stop_training = false;
};

class Callback {
 public:
  virtual ~Callback() = default;
  virtual void on_train_begin(TrainingState& /*state*/) {}
  virtual void on_epoch_begin(int /*epoch*/, TrainingState& /*state*/) {}
  // After each training step; `step` counts from 0 in every epoch, `logs` hold the epoch's
  // running loss and metrics.
  virtual void on_train_batch_end(int64_t /*step*/, const Logs& /*logs*/,
                                  TrainingState& /*state*/) {}
  // `logs` hold the epoch's training and validation loss and metrics.
  virtual void on_epoch_end(int /*epoch*/, const Logs& /*logs*/, TrainingState& /*state*/) {}
  // `logs` are the last epoch's.
  virtual void on_train_end(const Logs& /*logs*/, TrainingState& /*state*/) {}
};

// An entry of FitOptions::callbacks: a callback value, moved in (`ProgressBar()`), or one shared
// with the caller, who reads it after fit (`auto stop = std::make_shared<EarlyStopping>(...)`).
class CallbackRef {
 public:
  template <typename C>
  requires std::derived_from<std::decay_t<C>, Callback> CallbackRef(
      C&& callback)  // NOLINT: implicit, so that braced lists of callbacks work
      : callback_(std::make_shared<std::decay_t<C>>(std::forward<C>(callback))) {}
  template <typename C>
  requires std::derived_from<C, Callback> CallbackRef(std::shared_ptr<C> callback)  // NOLINT
      : callback_(std::move(callback)) {}

  Callback& operator*() const { return *callback_; }
  Callback* operator->() const { return callback_.get(); }

 private:
  std::shared_ptr<Callback> callback_;
};

}  // namespace duet
