// Timing helpers shared by the C++ benchmarks (duet's eager_bench and the libtorch peer).
//
// Header-only and C++17 so the libtorch benchmark, which may build as C++17, can use it too.
// Every benchmark prints one line per case, `name<TAB>value<TAB>unit`, so run_all.sh can join the
// outputs of several programs and compute ratios between peers measured in the same run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace duet_bench {

// Keeps the compiler from deleting a computation whose result is otherwise unused, without
// adding a memory round trip of its own (the trick Google Benchmark uses).
template <typename T>
inline void DoNotOptimize(T& value) {
  asm volatile("" : "+m"(value) : : "memory");
}
template <typename T>
inline void DoNotOptimize(const T& value) {
  asm volatile("" : : "m"(value) : "memory");
}

struct TimingOptions {
  int repetitions = 7;
  // Each repetition times a loop at least this long, so timer resolution and one-off stalls
  // (a page fault, a context switch) are small next to the measured work.
  double min_repetition_seconds = 0.02;
};

// Reads options from the environment so run_all.sh (or a person) can make runs longer on a
// noisy machine without rebuilding: DUET_BENCH_REPS, DUET_BENCH_MIN_MS.
inline TimingOptions OptionsFromEnv() {
  TimingOptions options;
  if (const char* reps = std::getenv("DUET_BENCH_REPS")) {
    options.repetitions = std::max(1, std::atoi(reps));
  }
  if (const char* ms = std::getenv("DUET_BENCH_MIN_MS")) {
    options.min_repetition_seconds = std::max(1.0, std::atof(ms)) / 1000.0;
  }
  return options;
}

// Median over repetitions of the seconds one call of `fn` takes. It first warms up (caches,
// allocator pools, oneDNN primitive caches, lazy thread-pool start) while calibrating how many
// calls make one repetition last at least min_repetition_seconds.
template <typename Fn>
double MedianSecondsPerCall(Fn&& fn, const TimingOptions& options = OptionsFromEnv()) {
  using Clock = std::chrono::steady_clock;
  auto time_calls = [&fn](int64_t calls) {
    const auto start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) fn();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  // Calibration doubles as warm-up: it keeps going until a loop is long enough.
  int64_t calls = 1;
  for (;;) {
    const double seconds = time_calls(calls);
    if (seconds >= options.min_repetition_seconds) break;
    // Jump close to the target when the estimate is good, double when it is not.
    const double per_call = seconds / static_cast<double>(calls);
    int64_t next = calls * 2;
    if (seconds > 1e-4 && per_call > 0) {
      next = std::max<int64_t>(
          next, static_cast<int64_t>(1.2 * options.min_repetition_seconds / per_call) + 1);
    }
    calls = next;
  }
  std::vector<double> per_call;
  per_call.reserve(options.repetitions);
  for (int r = 0; r < options.repetitions; ++r) {
    per_call.push_back(time_calls(calls) / static_cast<double>(calls));
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

// Seconds per call of each of several peers in each repetition, the repetitions interleaved
// (A, B, A, B, ...): load that comes and goes on a shared machine then hits every peer alike
// instead of whichever happened to run during it, which keeps their ratio honest. For cases
// of a millisecond or more; the std::function call is negligible there.
inline std::vector<std::vector<double>> InterleavedSecondsPerCall(
    const std::vector<std::function<void()>>& fns,
    const TimingOptions& options = OptionsFromEnv()) {
  using Clock = std::chrono::steady_clock;
  std::vector<int64_t> calls(fns.size(), 1);
  auto time_calls = [&](size_t i) {
    const auto start = Clock::now();
    for (int64_t c = 0; c < calls[i]; ++c) fns[i]();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  for (size_t i = 0; i < fns.size(); ++i) {  // calibration and warm-up, as above
    while (time_calls(i) < options.min_repetition_seconds) calls[i] *= 2;
  }
  std::vector<std::vector<double>> per_call(fns.size());
  for (int r = 0; r < options.repetitions; ++r) {
    for (size_t i = 0; i < fns.size(); ++i) {
      per_call[i].push_back(time_calls(i) / static_cast<double>(calls[i]));
    }
  }
  return per_call;
}

// Like MedianSecondsPerCall for several peers at once, repetitions interleaved (see above).
inline std::vector<double> InterleavedMedianSecondsPerCall(
    const std::vector<std::function<void()>>& fns,
    const TimingOptions& options = OptionsFromEnv()) {
  std::vector<double> medians;
  for (std::vector<double>& times : InterleavedSecondsPerCall(fns, options)) {
    std::sort(times.begin(), times.end());
    medians.push_back(times[times.size() / 2]);
  }
  return medians;
}

// The fastest repetition of each peer instead of the median: on a machine other jobs keep busy,
// the median moves with their load while the minimum stays near the unloaded time.
inline std::vector<double> InterleavedMinSecondsPerCall(
    const std::vector<std::function<void()>>& fns,
    const TimingOptions& options = OptionsFromEnv()) {
  std::vector<double> minima;
  for (const std::vector<double>& times : InterleavedSecondsPerCall(fns, options)) {
    minima.push_back(*std::min_element(times.begin(), times.end()));
  }
  return minima;
}

// One output line: name<TAB>value<TAB>unit. Fixed-point (never exponent) notation keeps the
// numbers easy to read in a table and to parse from a shell script.
inline void Print(const std::string& name, double value, const char* unit) {
  std::printf(value >= 100 ? "%s\t%.1f\t%s\n" : "%s\t%.3f\t%s\n", name.c_str(), value, unit);
  std::fflush(stdout);
}
// A count (threads, elements): printed without decimals.
inline void PrintCount(const std::string& name, int64_t value, const char* unit) {
  std::printf("%s\t%lld\t%s\n", name.c_str(), static_cast<long long>(value), unit);
  std::fflush(stdout);
}

// The cases every peer measures, so their lines line up by name.
inline constexpr int64_t kLargeAddElements = 10'000'000;
inline constexpr int64_t kLargeMatmulN = 1024;
inline constexpr int64_t kSmallMatmulN = 64;

// Bytes an elementwise add on n floats touches: two inputs read, one output written.
inline double AddBytes(int64_t n) { return 3.0 * 4.0 * static_cast<double>(n); }
// Bytes a memcpy of n floats touches: one array read, one written.
inline double CopyBytes(int64_t n) { return 2.0 * 4.0 * static_cast<double>(n); }
// Floating-point operations of an n x n x n matmul (a multiply and an add per inner step).
inline double MatmulFlops(int64_t n) { return 2.0 * static_cast<double>(n) * n * n; }

}  // namespace duet_bench
