// duet::function against running the same callable eagerly, in one process (issue "duet::function",
// tools/bench/torch_function_bench.py is the PyTorch peer):
//   - chain_50_64x64_f32: the 50-op elementwise chain of elementwise_chain.h on 64x64;
//     its floor is the hand-written AVX2 loop on one thread.
//   - mlp_forward_b32_h128_f32: a 784-128-128-10 relu MLP forward, batch 32.
//   - mlp_train_step_b64_f32 / _b256: a 784-256-10 MLP training step (forward, a GradientTape's
//     backward, SGD updates of the variables), batch 64 and 256.
// The MLP cases' floor is the same math on prebuilt oneDNN primitives (dnnl_floor.h).
// Each prints eager.<case>, traced.<case> and floor.<case> in us per call (interleaved medians),
// ratio.<case> = eager / traced and ratio_to_floor.<case> = traced / floor.
//   - device_check.*: what the device check at kernel launch costs in a plan (Note [Device checks]
//     in kernels/kernel_registry.h): the traced mlp_train_step_b64_f32 with the check on and off,
//     interleaved in one run. (Eagerly the check is the placement loop's own comparison.)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "duet.h"
#include "kernels/kernel_registry.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/dnnl_floor.h"
#include "tools/bench/elementwise_chain.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::InterleavedMedianSecondsPerCall;
using duet_bench::Print;

constexpr double kUsPerSecond = 1e6;
// The chain of elementwise_chain.h (shared with passes_bench), with the tanh cycle.
Tensor Chain(const Tensor& x, const Tensor& p, const Tensor& q) {
  Tensor y = x;
  for (int i = 0; i < kChainOps; ++i) y = ChainStep(kTanhCycle[i % 10], y, p, q);
  return y;
}

// Eager vs traced (and, when given, a floor) per call of `fn`, printed.
template <typename Fn, typename... Args>
void EagerVsTraced(const std::string& name, Fn fn, std::function<void()> floor,
                   const Args&... args) {
  auto traced = duet::function(fn);
  std::vector<std::function<void()>> peers = {
      [&] {
        auto out = fn(args...);
        DoNotOptimize(out);
      },
      [&] {
        auto out = traced(args...);
        DoNotOptimize(out);
      },
  };
  if (floor) peers.push_back(floor);
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall(peers);
  Print("eager." + name, seconds[0] * kUsPerSecond, "us");
  Print("traced." + name, seconds[1] * kUsPerSecond, "us");
  Print("ratio." + name, seconds[0] / seconds[1], "x");
  if (floor) {
    Print("floor." + name, seconds[2] * kUsPerSecond, "us");
    Print("ratio_to_floor." + name, seconds[1] / seconds[2], "x");
  }
}

void ChainCase() {
  const Tensor x = random_uniform({64, 64}, 1, kFloat32, -1.5, 1.5);
  const Tensor p = random_uniform({64, 64}, 2, kFloat32, -1.5, 1.5);
  const Tensor q = random_uniform({64, 64}, 3, kFloat32, -1.5, 1.5);
  std::vector<float> out(64 * 64);
  EagerVsTraced(
      "chain_50_64x64_f32", Chain,
      [&] {
        HandChain<kTanhCycle, 8>(x.data<float>(), p.data<float>(), q.data<float>(), out.data(), 0,
                                 64 * 64);
        DoNotOptimize(out);
      },
      x, p, q);
}

void MlpForwardCase() {
  const Tensor w1 = random_normal({784, 128}, 1, kFloat32, 0, 0.05), b1 = zeros({128});
  const Tensor w2 = random_normal({128, 128}, 2, kFloat32, 0, 0.05), b2 = zeros({128});
  const Tensor w3 = random_normal({128, 10}, 3, kFloat32, 0, 0.05), b3 = zeros({10});
  auto mlp = [=](const Tensor& x) {
    const Tensor h1 = relu(bias_add(matmul(x, w1), b1));
    const Tensor h2 = relu(bias_add(matmul(h1, w2), b2));
    return bias_add(matmul(h2, w3), b3);
  };
  const Tensor x = random_normal({32, 784}, 4);
  duet_bench::FloorMlpForward floor(
      {784, 128, 128, 10}, 32, {w1.data<float>(), w2.data<float>(), w3.data<float>()},
      {b1.data<float>(), b2.data<float>(), b3.data<float>()}, x.data<float>());
  const std::vector<float> expected = mlp(x).to_vector<float>(), got = floor.Run();
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::abs(expected[i] - got[i]) > 1e-4f) {
      std::fprintf(stderr, "the MLP floor's output %zu is %g, eager's %g\n", i, got[i],
                   expected[i]);
      std::exit(1);
    }
  }
  EagerVsTraced(
      "mlp_forward_b32_h128_f32", mlp,
      [&] {
        const std::vector<float>& out = floor.Run();
        DoNotOptimize(out);
      },
      x);
}

// The 784-256-10 MLP's variables; each peer trains a copy of its own, at the same cost.
std::vector<Variable> MlpVariables() {
  return {
      Variable(random_normal({784, 256}, 1, kFloat32, 0, 0.05), "w1"), Variable(zeros({256}), "b1"),
      Variable(random_normal({256, 10}, 2, kFloat32, 0, 0.05), "w2"), Variable(zeros({10}), "b2")};
}

// One SGD step of the MLP over `v`: forward, a GradientTape's backward, the updates.
auto MlpStep(std::vector<Variable> v, Tensor rate) {
  return [v, rate](const Tensor& xs, const Tensor& ys) {
    GradientTape tape;
    const Tensor h = relu(bias_add(matmul(xs, v[0]), v[1]));
    const Tensor loss =
        reduce_mean(sparse_softmax_cross_entropy_with_logits(ys, bias_add(matmul(h, v[2]), v[3])));
    const std::vector<Tensor> grads =
        tape.gradient(loss, std::vector<GradientSource>(v.begin(), v.end()));
    for (size_t i = 0; i < v.size(); ++i) {
      resource_apply_gradient_descent(v[i].handle(), rate, grads[i]);
    }
    return loss;
  };
}

void TrainStepCase(int batch) {
  const Tensor x = random_normal({batch, 784}, 3);
  const Tensor y = cast(floor(random_uniform({batch}, 4, kFloat32, 0, 10)), kInt64);
  const Tensor rate = constant(0.01f);
  auto eager = MlpStep(MlpVariables(), rate);
  auto traced = duet::function(MlpStep(MlpVariables(), rate));
  const std::vector<Variable> own = MlpVariables();
  duet_bench::FloorTrainStep floor(batch, 784, 256, 10, own[0].value().to_vector<float>(),
                                   own[2].value().to_vector<float>(), x.data<float>(),
                                   y.data<int64_t>(), 0.01f);
  // The floor is only a floor if it computes the same step: compare the first step's losses.
  const float eager_loss = eager(x, y).item<float>(), traced_loss = traced(x, y).item<float>();
  const float floor_loss = floor.Run();
  if (std::abs(eager_loss - floor_loss) > 1e-4f || std::abs(eager_loss - traced_loss) > 1e-4f) {
    std::fprintf(stderr, "first-step losses differ: eager %g, traced %g, floor %g\n", eager_loss,
                 traced_loss, floor_loss);
    std::exit(1);
  }
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] {
        Tensor loss = eager(x, y);
        DoNotOptimize(loss);
      },
      [&] {
        Tensor loss = traced(x, y);
        DoNotOptimize(loss);
      },
      [&] {
        float loss = floor.Run();
        DoNotOptimize(loss);
      },
  });
  const std::string name = "mlp_train_step_b" + std::to_string(batch) + "_f32";
  Print("eager." + name, seconds[0] * kUsPerSecond, "us");
  Print("traced." + name, seconds[1] * kUsPerSecond, "us");
  Print("ratio." + name, seconds[0] / seconds[1], "x");
  Print("floor." + name, seconds[2] * kUsPerSecond, "us");
  Print("ratio_to_floor." + name, seconds[1] / seconds[2], "x");
}

// The device check's cost: `fn` with the check on, then off, interleaved; prints both (us) and
// their ratio (on / off).
void CheckedVsUnchecked(const std::string& name, const std::function<void()>& fn) {
  const std::vector<double> seconds = InterleavedMedianSecondsPerCall({
      [&] {
        kernel_internal::SetDeviceChecks(true);
        fn();
      },
      [&] {
        kernel_internal::SetDeviceChecks(false);
        fn();
      },
  });
  kernel_internal::SetDeviceChecks(true);
  Print("device_check.on." + name, seconds[0] * kUsPerSecond, "us");
  Print("device_check.off." + name, seconds[1] * kUsPerSecond, "us");
  Print("device_check.ratio." + name, seconds[0] / seconds[1], "x");
}

void DeviceCheckCase() {
  const Tensor x = random_normal({64, 784}, 3);
  const Tensor y = cast(floor(random_uniform({64}, 4, kFloat32, 0, 10)), kInt64);
  auto step = duet::function(MlpStep(MlpVariables(), constant(0.01f)));
  CheckedVsUnchecked("traced_mlp_train_step_b64_f32", [&] {
    Tensor loss = step(x, y);
    DoNotOptimize(loss);
  });
}

}  // namespace
}  // namespace duet

int main() {
  duet::ChainCase();
  duet::MlpForwardCase();
  duet::TrainStepCase(64);
  duet::TrainStepCase(256);
  duet::DeviceCheckCase();
  return 0;
}
