// Data-parallel scaling of the Fashion-MNIST CNN (the one of examples/fashion_mnist.cc): traced
// training steps (Adam) of one worker with the global batch of 64 against two workers with 32
// each, every worker on one thread, plus what the communication costs a step.
//
//   OMP_THREAD_LIMIT=1 duet launch --nproc 2 -- bazel-bin/tools/bench/distributed_training_bench
//
// Rank 0 first times the one-worker steps alone (batch 64, and 32 for the compute of a
// two-worker step), the other ranks waiting; then every rank times the distributed step
// (DistributedGradientTape: one bucketed all-reduce of the 0.8 MB of gradients) and the
// all-reduce of those gradients alone. Rank 0 prints `name<TAB>value<TAB>unit` lines: medians
// over 15 steps after 3 of warm-up.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "duet.h"
#include "examples/fashion_mnist_models.h"

namespace {

using namespace duet;
using Clock = std::chrono::steady_clock;
using fashion_mnist::Cnn;  // the example's CNN

constexpr int kWarmup = 3, kSteps = 15;

// The median seconds of `step` over kSteps calls after kWarmup.
double MedianStepSeconds(const std::function<void()>& step) {
  for (int i = 0; i < kWarmup; ++i) step();
  std::vector<double> times;
  for (int i = 0; i < kSteps; ++i) {
    const auto start = Clock::now();
    step();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// A traced training step of a fresh CNN on a batch of `batch` random images; with `comm`, the
// gradients averaged over its ranks. Returns its median time.
double StepSeconds(int64_t batch, const distribute::Communicator* comm) {
  Cnn model;
  optimizers::Adam opt(1e-3);
  losses::SparseCategoricalCrossentropy loss{.from_logits = true};
  const Tensor x = random_uniform({batch, 28, 28, 1}, /*seed=*/3);
  const Tensor y = cast(random_uniform({batch}, /*seed=*/4) * 10.f, kInt32);
  model(x);  // builds the variables
  auto step = duet::function([&](const Tensor& images, const Tensor& labels) {
    GradientTape tape;
    const Tensor value = loss(labels, model(images, /*training=*/true));
    std::vector<Tensor> grads = tape.gradient(value, model.trainable_variables());
    if (comm != nullptr) grads = distribute::average_gradients(*comm, grads);
    opt.apply_gradients(grads, model.trainable_variables());
    return value;
  });
  return MedianStepSeconds([&] { step(x, y).item<float>(); });
}

// The traced bucketed all-reduce of the CNN's gradients alone.
double AllReduceSeconds(const distribute::Communicator& comm, int64_t* bytes) {
  Cnn model;
  model(zeros({1, 28, 28, 1}));
  std::vector<Tensor> grads;
  *bytes = 0;
  for (const Variable& v : model.trainable_variables()) {
    grads.push_back(zeros_like(v.value()));
    *bytes += static_cast<int64_t>(grads.back().nbytes());
  }
  auto reduce = duet::function(
      [&](const std::vector<Tensor>& g) { return distribute::average_gradients(comm, g); });
  return MedianStepSeconds([&] { reduce(grads)[0].to_vector<float>(); });
}

}  // namespace

int main() {
  const distribute::Communicator comm = distribute::init();
  const int workers = comm.size();
  const int64_t global_batch = 64, local_batch = global_batch / workers;
  double one_global = 0, one_local = 0;
  if (comm.rank() == 0) {
    one_global = StepSeconds(global_batch, nullptr);
    one_local = StepSeconds(local_batch, nullptr);
  }
  comm.barrier();
  const double distributed = StepSeconds(local_batch, &comm);
  int64_t bytes = 0;
  const double all_reduce = AllReduceSeconds(comm, &bytes);
  if (comm.rank() != 0) return 0;
  const std::string p = "cnn_" + comm.backend() + "_" + std::to_string(workers) + "w_";
  std::printf("%sstep_1_worker_batch_%lld\t%.2f\tms\n", p.c_str(),
              static_cast<long long>(global_batch), one_global * 1e3);
  std::printf("%sstep_1_worker_batch_%lld\t%.2f\tms\n", p.c_str(),
              static_cast<long long>(local_batch), one_local * 1e3);
  std::printf("%sstep_%d_workers_batch_%lld_each\t%.2f\tms\n", p.c_str(), workers,
              static_cast<long long>(local_batch), distributed * 1e3);
  std::printf("%sspeedup\t%.3f\tx\n", p.c_str(), one_global / distributed);
  std::printf("%sscaling_efficiency\t%.3f\tratio\n", p.c_str(), one_global / distributed / workers);
  std::printf("%sexposed_communication\t%.2f\tms\n", p.c_str(), (distributed - one_local) * 1e3);
  std::printf("%sgradient_allreduce_%.2fMB\t%.2f\tms\n", p.c_str(), bytes / 1048576.0,
              all_reduce * 1e3);
  return 0;
}
