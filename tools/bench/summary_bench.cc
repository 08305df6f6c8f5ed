// The cost of summary::FileWriter on a training loop's thread (issue 22: one scalar per step adds
// <= 1 us to a step).
//
//   scalar_call_burst      one w.scalar("loss", 0.5f, step) in bursts of 512 calls, the file
//                          flushed (untimed) between bursts: the queue never fills, so this is
//                          what a step pays (median over rounds)
//   scalar_tensor_call_burst  the same with an eager float32 scalar tensor as the value
//   scalar_call_sustained  back-to-back calls with no pause: the caller blocks on the full queue
//                          and runs at the writer thread's rate (serialize + frame + write)
//   step_*                 an eager training-style step (a 64x64 matmul, tanh, a mean: tens of
//                          microseconds) without and with one scalar per step, repetitions
//                          interleaved, the fastest repetition of each (the machine's other load
//                          moves medians by more than a scalar costs); added = with - without
//   traced_step_*          the same step under duet::function, the scalar written inside it
//                          through a host_function node (Note [Summaries in traced functions])
//   traced_call_*          a traced function doing almost nothing, without and with a scalar
//                          inside, in bursts as above: the node's and record's cost on the
//                          caller's thread, which the step_* figures, moving by microseconds
//                          from run to run on a shared VM, cannot resolve
//
//   bazel build //tools/bench:summary_bench && bazel-bin/tools/bench/summary_bench [LOGDIR]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using Clock = std::chrono::steady_clock;

double MedianBurstSecondsPerCall(summary::FileWriter& w, const std::function<void(int64_t)>& call,
                                 int rounds = 41, int burst = 512) {
  std::vector<double> per_call;
  int64_t step = 0;
  for (int r = 0; r < rounds; ++r) {
    w.flush();  // an empty queue and an idle writer thread, as between a loop's steps
    const auto start = Clock::now();
    for (int i = 0; i < burst; ++i) call(step++);
    per_call.push_back(std::chrono::duration<double>(Clock::now() - start).count() / burst);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

void Run(const std::string& logdir) {
  std::filesystem::remove_all(logdir);
  summary::FileWriter w(logdir);

  duet_bench::Print(
      "scalar_call_burst",
      1e9 * MedianBurstSecondsPerCall(w, [&](int64_t s) { w.scalar("loss", 0.5f, s); }), "ns");
  const Tensor loss_value = constant(0.5f);
  duet_bench::Print(
      "scalar_tensor_call_burst",
      1e9 * MedianBurstSecondsPerCall(w, [&](int64_t s) { w.scalar("loss", loss_value, s); }),
      "ns");
  // Inside a traced function: the host_function node and the record, against the same function
  // without the summary (both trivially small, so the difference is the summary's own cost).
  const Tensor loss_in = constant(0.5f);
  auto traced_plain =
      duet::function([](const Tensor& loss, const Tensor& s) { return loss * 2.f; });
  auto traced_summary = duet::function([&](const Tensor& loss, const Tensor& s) {
    w.scalar("traced_call", loss, s);
    return loss * 2.f;
  });
  const Tensor one_step = constant(int64_t{1});
  const double plain_call = MedianBurstSecondsPerCall(
      w, [&](int64_t) { duet_bench::DoNotOptimize(traced_plain(loss_in, one_step)); });
  const double summary_call = MedianBurstSecondsPerCall(
      w, [&](int64_t) { duet_bench::DoNotOptimize(traced_summary(loss_in, one_step)); });
  duet_bench::Print("traced_call_without_summary", 1e9 * plain_call, "ns");
  duet_bench::Print("traced_call_with_scalar", 1e9 * summary_call, "ns");
  duet_bench::Print("traced_call_added_by_scalar", 1e9 * (summary_call - plain_call), "ns");

  int64_t sustained_step = 0;
  duet_bench::Print("scalar_call_sustained", 1e9 * duet_bench::MedianSecondsPerCall([&] {
                                               w.scalar("loss", 0.5f, sustained_step++);
                                             }),
                    "ns");

  const Tensor x = fill({64, 64}, 0.01);
  Variable kernel(fill({64, 64}, 0.02));
  int64_t step = 0;
  auto eager_step = [&] { return reduce_mean(tanh(matmul(x, kernel))); };
  std::vector<double> eager = duet_bench::InterleavedMinSecondsPerCall({
      [&] { duet_bench::DoNotOptimize(eager_step()); },
      [&] {
        Tensor loss = eager_step();
        w.scalar("loss", loss, step++);
      },
  });
  duet_bench::Print("step_without_summary", 1e6 * eager[0], "us");
  duet_bench::Print("step_with_scalar", 1e6 * eager[1], "us");
  duet_bench::Print("step_added_by_scalar", 1e9 * (eager[1] - eager[0]), "ns");

  auto plain =
      duet::function([&](const Tensor& s) { return reduce_mean(tanh(matmul(x, kernel))); });
  auto with_summary = duet::function([&](const Tensor& s) {
    Tensor loss = reduce_mean(tanh(matmul(x, kernel)));
    w.scalar("traced_loss", loss, s);
    return loss;
  });
  const Tensor step_tensor = constant(int64_t{1});
  std::vector<double> traced = duet_bench::InterleavedMinSecondsPerCall({
      [&] { duet_bench::DoNotOptimize(plain(step_tensor)); },
      [&] { duet_bench::DoNotOptimize(with_summary(step_tensor)); },
  });
  duet_bench::Print("traced_step_without_summary", 1e6 * traced[0], "us");
  duet_bench::Print("traced_step_with_scalar", 1e6 * traced[1], "us");
  duet_bench::Print("traced_step_added_by_scalar", 1e9 * (traced[1] - traced[0]), "ns");
  w.close();
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  duet::Run(argc > 1 ? argv[1]
                     : (std::filesystem::temp_directory_path() / "duet_summary_bench").string());
  return 0;
}
