// torch_bench: the eager_bench cases through libtorch's C++ API, the peer duet's per-op overhead
// is compared against (run_all.sh prints the ratios).
//
//   bazel run //tools/bench:torch_bench     (tagged manual: needs Debian's libtorch-dev)
//
// Same line format and case names as eager_bench, prefixed `libtorch.`. Tensors are made with
// requires_grad false (the default), so the ops still pass through the autograd dispatch key as
// in any libtorch program, but record no graph — like duet's eager ops outside a tape. The
// autograd cases (peers of autodiff_bench) come last: a 4x4 add whose input requires grad and an
// MLP training step.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "tools/bench/bench_util.h"

namespace {

using duet_bench::DoNotOptimize;
using duet_bench::MedianSecondsPerCall;
using duet_bench::Print;

constexpr double kNsPerSecond = 1e9;

// Varied float32 values, as in eager_bench, so no kernel can shortcut on zeros.
torch::Tensor Ramp(at::IntArrayRef shape) {
  return torch::remainder(torch::arange(c10::multiply_integers(shape), torch::kFloat32), 7)
      .mul_(0.25)
      .sub_(0.5)
      .reshape(shape)
      .contiguous();
}

template <typename Op>
double OpNs(Op op) {
  return MedianSecondsPerCall([&] {
           torch::Tensor out = op();
           DoNotOptimize(out);
         }) *
         kNsPerSecond;
}

void TinyOps() {
  const torch::Tensor a44 = Ramp({4, 4}), b44 = Ramp({4, 4});
  Print("libtorch.add_4x4_f32", OpNs([&] { return a44 + b44; }), "ns");
  const torch::Tensor a1 = Ramp({1}), b1 = Ramp({1});
  Print("libtorch.add_1_f32", OpNs([&] { return a1 + b1; }), "ns");
  const int64_t n = duet_bench::kSmallMatmulN;
  const torch::Tensor m1 = Ramp({n, n}), m2 = Ramp({n, n});
  Print("libtorch.matmul_64x64_f32", OpNs([&] { return torch::matmul(m1, m2); }), "ns");
}

void LargeMatmul() {
  const int64_t n = duet_bench::kLargeMatmulN;
  const torch::Tensor a = Ramp({n, n}), b = Ramp({n, n});
  const double seconds = MedianSecondsPerCall([&] {
    torch::Tensor c = torch::matmul(a, b);
    DoNotOptimize(c);
  });
  Print("libtorch.matmul_1024_f32", duet_bench::MatmulFlops(n) / seconds / 1e9, "GFLOP/s");
}

void LargeAdd() {
  const int64_t n = duet_bench::kLargeAddElements;
  const torch::Tensor a = Ramp({n}), b = Ramp({n});
  const double seconds = MedianSecondsPerCall([&] {
    torch::Tensor c = a + b;
    DoNotOptimize(c);
  });
  Print("libtorch.add_1e7_f32", duet_bench::AddBytes(n) / seconds / 1e9, "GB/s");
}

// A 4x4 add whose input requires grad, so libtorch records an autograd node for it (the node is
// freed with the dropped result): the peer of duet.add_4x4_f32_taped.
void AutogradAdd() {
  const torch::Tensor a = Ramp({4, 4}).requires_grad_(true), b = Ramp({4, 4});
  Print("libtorch.add_4x4_f32_autograd", OpNs([&] { return a + b; }), "ns");
}

// One training step of the 784-256-10 MLP of autodiff_bench (batch 64): the same forward with
// torch::nn::functional (weights in PyTorch's [out, in] layout, as torch::nn::Linear keeps them),
// backward(), and p -= grad * lr under NoGradGuard with the grads reset to undefined each step.
// Debian's libtorch multiplies with the reference BLAS (see docs/benchmarks.md), so its matmuls,
// not its autograd, dominate this case.
void MlpStep() {
  namespace F = torch::nn::functional;
  constexpr int64_t kBatch = 64, kIn = 784, kHidden = 256, kClasses = 10;
  constexpr double kLearningRate = 0.01;
  torch::manual_seed(1);
  const torch::Tensor x = torch::randn({kBatch, kIn});
  const torch::Tensor labels = torch::randint(0, kClasses, {kBatch}, torch::kInt64);
  std::vector<torch::Tensor> params = {
      (torch::randn({kHidden, kIn}) * 0.05).requires_grad_(true),
      torch::zeros({kHidden}).requires_grad_(true),
      (torch::randn({kClasses, kHidden}) * 0.05).requires_grad_(true),
      torch::zeros({kClasses}).requires_grad_(true),
  };
  const double seconds = MedianSecondsPerCall([&] {
    const torch::Tensor h = torch::relu(F::linear(x, params[0], params[1]));
    const torch::Tensor logits = F::linear(h, params[2], params[3]);
    torch::Tensor loss = F::cross_entropy(logits, labels);
    loss.backward();
    torch::NoGradGuard no_grad;
    for (torch::Tensor& p : params) {
      p.add_(p.grad(), -kLearningRate);  // torch::optim::SGD's update
      p.mutable_grad() = torch::Tensor();
    }
  });
  Print("libtorch.mlp_step_f32", seconds * 1e6, "us");
}

}  // namespace

int main() {
  // Debian's libtorch 1.13 starts with one intra-op thread; duet and oneDNN use every core, so
  // the large cases compare like with like only when libtorch does too. OMP_NUM_THREADS, when
  // set, still wins.
  if (std::getenv("OMP_NUM_THREADS") == nullptr) {
    at::set_num_threads(static_cast<int>(std::thread::hardware_concurrency()));
  }
  duet_bench::PrintCount("libtorch.threads", torch::get_num_threads(), "threads");
  // How this libtorch build parallelizes (OpenMP or native pool, BLAS), for the record.
  if (std::getenv("DUET_BENCH_VERBOSE") != nullptr) {
    std::fprintf(stderr, "%s", at::get_parallel_info().c_str());
  }
  TinyOps();
  LargeMatmul();
  LargeAdd();
  AutogradAdd();
  MlpStep();
  return 0;
}
