// data::Dataset throughput on a Fashion-MNIST-shaped pipeline: synthetic uint8 images
// (60000, 28, 28) and int64 labels, pixels to float and normalised, shuffle 60000, batch 64,
// prefetch 2; elements per second over one epoch, the median over DUET_BENCH_REPS (5) epochs after
// one warm-up epoch. tools/bench/data_bench.py runs the same pipelines in tf.data and prints the
// ratios.
//
//   per_element: map(normalise) on every image, then shuffle, batch, prefetch (the usual tf.data
//                idiom); _serial runs map in the iterating thread, _parallel on 2 workers
//   batched:     shuffle, batch, then map(normalise) on each batch of 64, prefetch
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace {

using duet::Tensor;
using duet::data::Dataset;

constexpr int64_t kImages = 60000;

std::vector<Tensor> SyntheticFashionMnist() {
  std::mt19937 random(1);
  Tensor images = Tensor::Empty(duet::kUInt8, {kImages, 28, 28});  // as Fashion-MNIST's
  uint8_t* pixels = images.mutable_data<uint8_t>();
  for (int64_t i = 0; i < images.num_elements(); ++i) pixels[i] = static_cast<uint8_t>(random());
  Tensor labels = Tensor::Empty(duet::kInt64, {kImages});
  int64_t* l = labels.mutable_data<int64_t>();
  for (int64_t i = 0; i < kImages; ++i) l[i] = random() % 10;
  return {images, labels};
}

std::tuple<Tensor, Tensor> Normalise(Tensor image, Tensor label) {
  return {duet::cast(image, duet::kFloat32) / 255.0f, label};
}

Dataset PerElement(const std::vector<Tensor>& data, int workers) {
  return Dataset::from_tensor_slices(data)
      .map(Normalise, workers)
      .shuffle(kImages, 1)
      .batch(64)
      .prefetch(2);
}

Dataset Batched(const std::vector<Tensor>& data) {
  return Dataset::from_tensor_slices(data).shuffle(kImages, 1).batch(64).map(Normalise).prefetch(2);
}

// Elements per second of one epoch, median over the repetitions.
double ElementsPerSecond(const Dataset& ds) {
  const int reps =
      std::max(1, std::getenv("DUET_BENCH_REPS") ? std::atoi(std::getenv("DUET_BENCH_REPS")) : 5);
  auto epoch = [&ds] {
    int64_t n = 0;
    const auto start = std::chrono::steady_clock::now();
    for (auto& batch : ds) {
      n += batch[0].shape().dim(0);
      duet_bench::DoNotOptimize(batch);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (n != kImages) std::abort();
    return n / seconds;
  };
  epoch();  // warm-up
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) rates.push_back(epoch());
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

int main() {
  const std::vector<Tensor> data = SyntheticFashionMnist();
  duet_bench::Print("data_per_element_serial", ElementsPerSecond(PerElement(data, 0)),
                    "elements/s");
  duet_bench::Print("data_per_element_parallel", ElementsPerSecond(PerElement(data, 2)),
                    "elements/s");
  duet_bench::Print("data_batched", ElementsPerSecond(Batched(data)), "elements/s");
  return 0;
}
