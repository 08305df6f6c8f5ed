// The fused Adam update (ResourceApplyAdam, an eager call) on a 10M-parameter float32 variable
// against memcpy moving the same number of bytes. Adam reads var, m, v and grad and writes var,
// m and v: 7 x 40 MB per step. The peers copy 3.5 x 40 MB (140 MB read, 140 MB written), once
// with one memcpy and once split over duet's intra-op pool as the update's loop is, so each
// ratio is Adam's share of the machine's copy bandwidth. Medians of interleaved repetitions
// (DUET_BENCH_REPS, DUET_BENCH_MIN_MS override).
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/constant.h"
#include "core/thread_pool.h"
#include "eager/variable.h"
#include "ops/state/training_ops.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::Print;

constexpr int64_t kParameters = 10'000'000;

// n floats with varied values in [lo, lo + 1.5), so no branch or zero shortcuts the work.
Tensor Ramp(int64_t n, float lo) {
  std::vector<float> values(static_cast<size_t>(n));
  for (size_t i = 0; i < values.size(); ++i) values[i] = lo + static_cast<float>(i % 7) * 0.25f;
  return from_vector(values, {n});
}

void AdamVersusMemcpy() {
  const int64_t n = kParameters;
  // The variables are their values' sole holders, so every step updates in place.
  const Variable var(Ramp(n, -0.5f), "var"), m(Ramp(n, -0.1f), "m"), v(Ramp(n, 0.1f), "v");
  const Tensor grad = Ramp(n, -0.75f);
  const Tensor beta1_power = constant(0.9f), beta2_power = constant(0.999f), lr = constant(1e-3f),
               beta1 = constant(0.9f), beta2 = constant(0.999f), epsilon = constant(1e-7f);
  const double touched_bytes = 7.0 * 4.0 * static_cast<double>(n);
  const size_t copy_bytes = static_cast<size_t>(touched_bytes / 2);
  // Destinations written once beforehand, so no page faults are timed.
  std::vector<char> src(copy_bytes, 1), dst(copy_bytes, 0);
  ThreadPool& pool = ThreadPool::Intra();
  const std::vector<double> seconds = duet_bench::InterleavedMedianSecondsPerCall({
      [&] {
        resource_apply_adam(var.handle(), m.handle(), v.handle(), beta1_power, beta2_power, lr,
                            beta1, beta2, epsilon, grad);
      },
      [&] {
        std::memcpy(dst.data(), src.data(), copy_bytes);
        DoNotOptimize(dst.data()[copy_bytes - 1]);
      },
      [&] {
        const int64_t chunk = 1 << 20;
        pool.ParallelFor(static_cast<int64_t>(copy_bytes), chunk, [&](int64_t begin, int64_t end) {
          std::memcpy(dst.data() + begin, src.data() + begin, static_cast<size_t>(end - begin));
        });
        DoNotOptimize(dst.data()[copy_bytes - 1]);
      },
  });
  const double adam_gbs = touched_bytes / seconds[0] / 1e9;
  const double copy_gbs = touched_bytes / seconds[1] / 1e9;
  const double parallel_copy_gbs = touched_bytes / seconds[2] / 1e9;
  Print("duet.adam_update_1e7_f32", seconds[0] * 1e3, "ms");
  Print("duet.adam_update_1e7_f32", adam_gbs, "GB/s");
  Print("memcpy.copy_280MB", copy_gbs, "GB/s");
  Print("memcpy_parallel.copy_280MB", parallel_copy_gbs, "GB/s");
  Print("ratio.duet_adam_1e7_vs_memcpy", adam_gbs / copy_gbs, "x");
  Print("ratio.duet_adam_1e7_vs_memcpy_parallel", adam_gbs / parallel_copy_gbs, "x");
  duet_bench::PrintCount("threads", pool.num_threads(), "threads");
}

}  // namespace
}  // namespace duet

int main() {
  duet::AdamVersusMemcpy();
  return 0;
}
