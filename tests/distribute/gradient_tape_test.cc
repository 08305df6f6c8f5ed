// DistributedGradientTape: two ranks with half the batch each train a model to the same weights
// as one worker with the whole batch (float64: 1e-12), bit-identical on both ranks after every
// step; buckets of any size give the same averages.
#include "distribute/gradient_tape.h"

#include <catch2/catch.hpp>
#include <mutex>
#include <vector>

#include "duet.h"
#include "tests/distribute/ranks.h"

namespace duet::distribute {
namespace {

using testing::OnRanks;

// A two-layer float64 model and the batch rows [first, first + count) of a fixed dataset.
struct Problem {
  Tensor x, y;
  static Problem Rows(int first, int count) {
    std::vector<double> xs, ys;
    for (int i = first; i < first + count; ++i) {
      for (int j = 0; j < 3; ++j) xs.push_back(std::sin(1.3 * i + 0.7 * j));
      ys.push_back(std::cos(0.9 * i));
    }
    return {constant(xs, Shape({count, 3})), constant(ys, Shape({count, 1}))};
  }
};

std::vector<Variable> Weights() {
  return {Variable(constant({{0.1, -0.2}, {0.3, 0.05}, {-0.4, 0.2}}), "w1"),
          Variable(constant({0.01, -0.02}), "b1"), Variable(constant({{0.5}, {-0.3}}), "w2")};
}

Tensor Loss(const std::vector<Variable>& w, const Problem& p) {
  const Tensor h = tanh(matmul(p.x, w[0]) + w[1]);
  return reduce_mean(square(matmul(h, w[2]) - p.y));
}

std::vector<std::vector<double>> Values(const std::vector<Variable>& w) {
  std::vector<std::vector<double>> out;
  for (const Variable& v : w) out.push_back(v.value().to_vector<double>());
  return out;
}

TEST_CASE("Two ranks with half the batch each train as one worker with the whole batch") {
  constexpr int kSteps = 20;
  const std::vector<Variable> ref = Weights();
  const Problem all = Problem::Rows(0, 8);
  for (int step = 0; step < kSteps; ++step) {
    GradientTape tape;
    const std::vector<Tensor> g = tape.gradient(Loss(ref, all), ref);
    for (size_t i = 0; i < ref.size(); ++i) ref[i].assign_sub(g[i] * 0.1);
  }

  for (int64_t bucket_bytes : {kDefaultBucketBytes, int64_t{8}}) {  // one bucket; one per tensor
    INFO("bucket_bytes " << bucket_bytes);
    std::vector<std::vector<std::vector<double>>> per_step(2 * kSteps);
    std::vector<std::vector<std::vector<double>>> final(2);
    std::mutex mu;
    const std::vector<std::string> errors = OnRanks(2, [&](Communicator& comm) {
      const std::vector<Variable> w = Weights();
      const Problem half = Problem::Rows(4 * comm.rank(), 4);
      for (int step = 0; step < kSteps; ++step) {
        DistributedGradientTape tape(comm, /*persistent=*/false, bucket_bytes);
        const std::vector<Tensor> g = tape.gradient(Loss(w, half), w);
        for (size_t i = 0; i < w.size(); ++i) w[i].assign_sub(g[i] * 0.1);
        std::lock_guard<std::mutex> lock(mu);
        per_step[2 * step + comm.rank()] = Values(w);
      }
      std::lock_guard<std::mutex> lock(mu);
      final[comm.rank()] = Values(w);
    });
    for (const std::string& e : errors) CHECK(e.empty());
    for (int step = 0; step < kSteps; ++step) {
      CHECK(per_step[2 * step] == per_step[2 * step + 1]);  // bit-identical replicas
    }
    const std::vector<std::vector<double>> expected = Values(ref);
    for (size_t v = 0; v < expected.size(); ++v) {
      for (size_t k = 0; k < expected[v].size(); ++k) {
        CHECK(final[0][v][k] == Approx(expected[v][k]).margin(1e-12));
      }
    }
  }
}

TEST_CASE("average_gradients keeps undefined gradients and separates dtypes") {
  const std::vector<std::string> errors = OnRanks(2, [](Communicator& comm) {
    const double r = comm.rank();
    const std::vector<Tensor> out = average_gradients(
        comm,
        {constant({r, 1.0}), Tensor(), constant({2.f * static_cast<float>(r)}), constant({r * 4})});
    CHECK(out[0].to_vector<double>() == std::vector<double>{0.5, 1.0});
    CHECK(!out[1].defined());
    CHECK(out[2].to_vector<float>() == std::vector<float>{1.f});
    CHECK(out[3].to_vector<double>() == std::vector<double>{2.0});
  });
  for (const std::string& e : errors) CHECK(e.empty());
}

}  // namespace
}  // namespace duet::distribute
