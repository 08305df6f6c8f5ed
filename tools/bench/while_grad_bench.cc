// Memory and time of a While gradient (Note [While gradients] in graph/control_flow_grads.cc): a
// T-step loop h -> tanh(h * a + b) over S = 8192 float64 values (64 KiB), differentiated with
// respect to h0 and a.
//
//   bazel run -c opt //tools/bench:while_grad_bench
//
// For T in {100, 1000}:
//   - while_grad_T_traced_peak_MB: the growth of the CPU pool's peak bytes in use during one
//     call of the traced gradient step (forward While, its accumulating twin, backward While);
//   - while_grad_T_accumulators_MB: what the accumulators must hold, T copies of h;
//   - while_grad_T_traced_peak_over_accumulators: their ratio. Constant in T means memory linear
//     in the trip count (no quadratic copies);
//   - while_grad_T_eager_peak_MB: the same for an eager tape over the C++ loop (which keeps each
//     iteration's intermediates);
//   - while_grad_T_{traced,eager}_us_per_step: median time of one call divided by T.
#include <cmath>
#include <cstdio>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace {

using namespace duet;
using Vars = std::vector<Tensor>;

constexpr int64_t kSize = 8192;

std::vector<Tensor> Gradients(const Tensor& h0, const Tensor& a, const Tensor& b, int steps) {
  GradientTape tape;
  tape.watch(h0);
  tape.watch(a);
  const Vars out = while_loop([steps](const Vars& v) { return v[0] < steps; },
                              [&](const Vars& v) {
                                return Vars{v[0] + 1, tanh(v[1] * a + b)};
                              },
                              {constant(0), h0});
  return tape.gradient(reduce_sum(out[1]), {h0, a});
}

// The growth of the pool's peak while `fn` runs once, in MB.
template <typename Fn>
double PeakGrowthMB(Fn&& fn) {
  CpuAllocator& pool = CpuAllocator::Get();
  pool.ResetPeak();
  const int64_t before = pool.stats().bytes_in_use;
  fn();
  return static_cast<double>(pool.stats().peak_bytes_in_use - before) / 1e6;
}

void Print(const std::string& name, double value, const char* unit) {
  std::printf("%s\t%.4g\t%s\n", name.c_str(), value, unit);
}

}  // namespace

int main() {
  const Tensor h0 = fill({kSize}, constant(0.1));
  const Tensor a = fill({kSize}, constant(0.9));
  const Tensor b = fill({kSize}, constant(0.05));
  for (int steps : {100, 1000}) {
    const std::string name = "while_grad_" + std::to_string(steps);
    auto traced =
        duet::function([&](const Tensor& h, const Tensor& w) { return Gradients(h, w, b, steps); });
    const Vars want = Gradients(h0, a, b, steps);
    const Vars got = traced(h0, a);  // traces; the check keeps the measured computation honest
    for (int i = 0; i < 2; ++i) {
      const std::vector<double> w = want[i].to_vector<double>(), g = got[i].to_vector<double>();
      for (size_t j = 0; j < w.size(); ++j) {
        if (std::abs(w[j] - g[j]) > 1e-9 * (1 + std::abs(w[j]))) {
          std::fprintf(stderr, "%s: traced and eager gradients differ\n", name.c_str());
          return 1;
        }
      }
    }
    const double accumulators = static_cast<double>(steps) * kSize * 8 / 1e6;
    const double traced_peak = PeakGrowthMB([&] { duet_bench::DoNotOptimize(traced(h0, a)); });
    const double eager_peak =
        PeakGrowthMB([&] { duet_bench::DoNotOptimize(Gradients(h0, a, b, steps)); });
    Print(name + "_accumulators_MB", accumulators, "MB");
    Print(name + "_traced_peak_MB", traced_peak, "MB");
    Print(name + "_traced_peak_over_accumulators", traced_peak / accumulators, "ratio");
    Print(name + "_eager_peak_MB", eager_peak, "MB");
    const double traced_s =
        duet_bench::MedianSecondsPerCall([&] { duet_bench::DoNotOptimize(traced(h0, a)); });
    const double eager_s = duet_bench::MedianSecondsPerCall(
        [&] { duet_bench::DoNotOptimize(Gradients(h0, a, b, steps)); });
    Print(name + "_traced_us_per_step", traced_s / steps * 1e6, "us");
    Print(name + "_eager_us_per_step", eager_s / steps * 1e6, "us");
  }
  return 0;
}
