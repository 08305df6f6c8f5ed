// ProgressBar: fit's progress on stdout, as Keras prints it: step/total, elapsed time and ETA,
// loss and metrics. A terminal gets one line redrawn in place; anything else (a log file, a
// pipe, CI) gets plain lines, which read well in a log.
#pragma once

#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>

#include "train/callback.h"

namespace duet {

struct ProgressBarOptions {
  // Where to write (the stream must outlive fit).
  std::ostream* out = &std::cout;
  // One updating line (true) or plain lines (false); unset: true when `out` is std::cout and
  // stdout is a terminal.
  std::optional<bool> terminal;
  // The shortest time between two redraws of the terminal line, and between two plain lines
  // within an epoch. Each epoch ends with a line of its own either way.
  double terminal_interval_seconds = 0.05;
  double plain_interval_seconds = 10;
};

class ProgressBar : public Callback {
 public:
  explicit ProgressBar(ProgressBarOptions options = {});

  void on_epoch_begin(int epoch, TrainingState& state) override;
  void on_train_batch_end(int64_t step, const Logs& logs, TrainingState& state) override;
  void on_epoch_end(int epoch, const Logs& logs, TrainingState& state) override;

 private:
  using Clock = std::chrono::steady_clock;
  double Elapsed() const;
  // Writes `line`: over the terminal line, or as a line of its own; `final` ends the epoch.
  void Write(const std::string& line, bool final);

  ProgressBarOptions options_;
  bool terminal_;
  Clock::time_point epoch_start_;
  double last_write_ = 0;
  size_t line_width_ = 0;  // of the terminal line drawn last, to blank what a shorter one leaves
};

}  // namespace duet
