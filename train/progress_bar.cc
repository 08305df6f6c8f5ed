#include "train/progress_bar.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace duet {
namespace {

constexpr int kBarWidth = 30;

// "1:02:03", "2:05" or "7s", as Keras writes an ETA.
std::string Duration(double seconds) {
  const int64_t s = std::llround(seconds);
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60) return absl::StrFormat("%d:%02d", s / 60, s % 60);
  return absl::StrCat(s, "s");
}

// "16ms/step": the unit that keeps the number readable.
std::string PerStep(double seconds) {
  if (seconds >= 1) return absl::StrFormat("%.0fs/step", seconds);
  if (seconds >= 1e-3) return absl::StrFormat("%.0fms/step", seconds * 1e3);
  return absl::StrFormat("%.0fus/step", seconds * 1e6);
}

// " - loss: 0.4321 - accuracy: 0.8765"
std::string Values(const Logs& logs) {
  std::string out;
  for (const auto& [name, value] : logs.items()) {
    absl::StrAppendFormat(&out, " - %s: %.4f", name, value);
  }
  return out;
}

// " 120/938 [===>.....]" on a terminal, " 120/938" in plain lines; an unknown total is "Unknown".
std::string Counter(int64_t done, int64_t total, bool bar) {
  if (total < 0) return absl::StrFormat("%7d/Unknown", done);
  const int digits = static_cast<int>(std::to_string(total).size());
  std::string out = absl::StrFormat("%*d/%d", digits, done, total);
  if (!bar) return out;
  const int filled = static_cast<int>(kBarWidth * done / std::max<int64_t>(total, 1));
  std::string cells(kBarWidth, '.');
  for (int i = 0; i < filled; ++i) cells[i] = '=';
  if (filled < kBarWidth && filled > 0) cells[filled - 1] = '>';
  return absl::StrCat(out, " [", cells, "]");
}

}  // namespace

ProgressBar::ProgressBar(ProgressBarOptions options)
    : options_(options),
      terminal_(options.terminal.value_or(options.out == &std::cout && isatty(STDOUT_FILENO))) {}

double ProgressBar::Elapsed() const {
  return std::chrono::duration<double>(Clock::now() - epoch_start_).count();
}

void ProgressBar::on_epoch_begin(int epoch, TrainingState& state) {
  *options_.out << "Epoch " << epoch + 1 << "/" << state.epochs << "\n" << std::flush;
  epoch_start_ = Clock::now();
  // A terminal shows the first step at once; a log waits a plain interval before its first line.
  last_write_ = terminal_ ? -options_.terminal_interval_seconds : 0;
  line_width_ = 0;
}

void ProgressBar::on_train_batch_end(int64_t step, const Logs& logs, TrainingState& state) {
  const double elapsed = Elapsed();
  const double interval =
      terminal_ ? options_.terminal_interval_seconds : options_.plain_interval_seconds;
  if (elapsed - last_write_ < interval) return;
  last_write_ = elapsed;
  const int64_t done = step + 1, total = state.steps_per_epoch;
  std::string line = Counter(done, total, terminal_);
  if (total > done) {
    absl::StrAppend(&line, " - ETA: ", Duration(elapsed / done * (total - done)));
  } else {
    absl::StrAppend(&line, " - ", Duration(elapsed), " ", PerStep(elapsed / done));
  }
  Write(line + Values(logs), /*final=*/false);
}

void ProgressBar::on_epoch_end(int /*epoch*/, const Logs& logs, TrainingState& state) {
  const double elapsed = Elapsed();
  const int64_t steps = state.steps_per_epoch;
  Write(absl::StrCat(Counter(steps, steps, terminal_), " - ", Duration(elapsed), " ",
                     PerStep(elapsed / std::max<int64_t>(steps, 1)), Values(logs)),
        /*final=*/true);
}

void ProgressBar::Write(const std::string& line, bool final) {
  std::ostream& out = *options_.out;
  if (terminal_) {
    out << '\r' << line;
    if (line.size() < line_width_) out << std::string(line_width_ - line.size(), ' ');
    line_width_ = line.size();
  } else {
    out << line;
  }
  if (final || !terminal_) out << '\n';
  out << std::flush;
}

}  // namespace duet
