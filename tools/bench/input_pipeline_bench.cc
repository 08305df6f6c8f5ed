// Does the input pipeline hide behind compute? (docs/benchmarks.md, "Input pipelines")
//
// One epoch of Fashion-MNIST training (a 784-256-10 MLP, batch 64, Adam, a traced step) fed
//   - from batches prepared in memory beforehand (the floor: no input work at all),
//   - from a data::Dataset doing the work per epoch: uint8 -> float, normalize, shuffle 60000,
//     batch 64, with prefetch(2) and, for contrast, without,
//   - and the pipeline alone, iterated with no training step;
// all of it with the step's kernels on every core, then on one core (the other left to the
// prefetch thread).
// Prints `name<TAB>value<TAB>unit` (ms per epoch, interleaved medians) and the ratios to the
// floor; the target is pipeline_with_prefetch / in_memory <= 1.05. Falls back to random images
// of the same shape when Debian's dataset-fashion-mnist is missing (it says so).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::InterleavedMedianSecondsPerCall;
using duet_bench::Print;

constexpr int kBatch = 64;

struct Mlp : nn::Module {
  nn::Dense d1{this, "d1", 256, Activation::kRelu}, d2{this, "d2", 10};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

std::vector<Tensor> TrainingSplit() {
  if (std::filesystem::exists(std::string(data::kFashionMnistDir) +
                              "/train-images-idx3-ubyte.gz")) {
    return data::fashion_mnist().train;
  }
  std::fprintf(stderr, "dataset-fashion-mnist not installed: random images instead\n");
  Tensor images = cast(floor(random_uniform({60000, 28, 28}, 1, kFloat32, 0, 256)), kUInt8);
  Tensor labels = cast(floor(random_uniform({60000}, 2, kFloat32, 0, 10)), kInt64);
  return {images, labels};
}

// The per-batch input work: bytes to floats in [0, 1], flattened for the MLP.
std::vector<Tensor> Normalize(const Tensor& images, const Tensor& labels) {
  return {reshape(cast(images, kFloat32) / 255.f, {-1, 784}), labels};
}

data::Dataset Pipeline(const std::vector<Tensor>& train, bool prefetch) {
  data::Dataset ds = data::Dataset::from_tensor_slices(train)
                         .shuffle(60000, /*seed=*/1)
                         .batch(kBatch)
                         .map(Normalize);
  return prefetch ? ds.prefetch(2) : ds;
}

}  // namespace
}  // namespace duet

int main() {
  using namespace duet;
  const std::vector<Tensor> train = TrainingSplit();
  // The floor: every batch normalized and in memory before timing starts.
  std::vector<std::vector<Tensor>> batches;
  for (std::vector<Tensor>& batch : Pipeline(train, false)) batches.push_back(batch);

  Mlp model;
  optimizers::Adam opt(1e-3);
  auto step = duet::function([&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    const Tensor loss = losses::sparse_categorical_crossentropy(y, model(x), true);
    opt.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                        model.trainable_variables());
    return loss;
  });
  auto run_epoch = [&](auto&& source) {
    Tensor loss;
    for (auto& batch : source) loss = step(batch[0], batch[1]);
    duet_bench::DoNotOptimize(loss.item<float>());
  };
  const data::Dataset prefetched = Pipeline(train, true), plain = Pipeline(train, false);
  duet_bench::TimingOptions options = duet_bench::OptionsFromEnv();
  options.repetitions = std::min(options.repetitions, 5);
  options.min_repetition_seconds = 0;  // one epoch per repetition
  auto drain_epoch = [&] {             // the pipeline's own cost: its batches and no step
    for (auto& batch : plain) duet_bench::DoNotOptimize(batch);
  };
  // The step on every core, then on one: with a core left idle the prefetch thread has somewhere
  // to run (Note [Pipeline threads] in core/thread_pool.h).
  const int cores = ThreadPool::Intra().max_threads();
  for (const int threads : {cores, 1}) {
    ThreadPool::Intra().set_num_threads(threads);
    const std::string prefix = threads == 1 ? "step_on_1_thread." : "";
    const std::vector<double> s = InterleavedMedianSecondsPerCall(
        {[&] { run_epoch(batches); }, [&] { run_epoch(prefetched); }, [&] { run_epoch(plain); },
         drain_epoch},
        options);
    Print(prefix + "epoch.in_memory", s[0] * 1e3, "ms");
    Print(prefix + "epoch.pipeline_prefetch", s[1] * 1e3, "ms");
    Print(prefix + "epoch.pipeline_no_prefetch", s[2] * 1e3, "ms");
    Print(prefix + "epoch.pipeline_alone", s[3] * 1e3, "ms");
    Print(prefix + "ratio.prefetch_to_in_memory", s[1] / s[0], "x");
    Print(prefix + "ratio.no_prefetch_to_in_memory", s[2] / s[0], "x");
  }
  ThreadPool::Intra().set_num_threads(cores);
  return 0;
}
