// DistributedGradientTape: N ranks (2, 4) with B/N examples each train a model for 50 steps to
// the weights of one worker with the whole batch B (float64: 1e-12, float32: 1e-5), eagerly and
// in a traced step (its all-reduces are CollectiveReduceV2 nodes), bit-identical on every rank
// after every step; buckets of any size give the same averages.
#include "distribute/gradient_tape.h"

#include <catch2/catch.hpp>
#include <functional>
#include <mutex>
#include <vector>

#include "duet.h"
#include "tests/distribute/communicator_ranks.h"

namespace duet::distribute {
namespace {

using testing::OnRanks;

// A two-layer model and the batch rows [first, first + count) of a fixed dataset, in `dtype`.
struct Problem {
  Tensor x, y;
  static Problem Rows(int first, int count, DType dtype) {
    std::vector<double> xs, ys;
    for (int i = first; i < first + count; ++i) {
      for (int j = 0; j < 3; ++j) xs.push_back(std::sin(1.3 * i + 0.7 * j));
      ys.push_back(std::cos(0.9 * i));
    }
    return {cast(constant(xs, Shape({count, 3})), dtype),
            cast(constant(ys, Shape({count, 1})), dtype)};
  }
};

std::vector<Variable> Weights(DType dtype) {
  return {Variable(cast(constant({{0.1, -0.2}, {0.3, 0.05}, {-0.4, 0.2}}), dtype), "w1"),
          Variable(cast(constant({0.01, -0.02}), dtype), "b1"),
          Variable(cast(constant({{0.5}, {-0.3}}), dtype), "w2")};
}

Tensor Loss(const std::vector<Variable>& w, const Tensor& x, const Tensor& y) {
  const Tensor h = tanh(matmul(x, w[0]) + w[1]);
  return reduce_mean(square(matmul(h, w[2]) - y));
}

std::vector<std::vector<double>> Values(const std::vector<Variable>& w) {
  std::vector<std::vector<double>> out;
  for (const Variable& v : w) out.push_back(cast(v.value(), kFloat64).to_vector<double>());
  return out;
}

// One worker with the whole batch of 8, `steps` SGD steps.
std::vector<std::vector<double>> OneWorker(DType dtype, int steps) {
  const std::vector<Variable> w = Weights(dtype);
  const Problem all = Problem::Rows(0, 8, dtype);
  for (int step = 0; step < steps; ++step) {
    GradientTape tape;
    const std::vector<Tensor> g = tape.gradient(Loss(w, all.x, all.y), w);
    for (size_t i = 0; i < w.size(); ++i) w[i].assign_sub(g[i] * 0.1);
  }
  return Values(w);
}

TEST_CASE("N ranks with B/N examples each train as one worker with B, eagerly and traced") {
  constexpr int kSteps = 50;
  for (DType dtype : {kFloat64, kFloat32}) {
    const double tolerance = dtype == kFloat64 ? 1e-12 : 1e-5;
    const std::vector<std::vector<double>> expected = OneWorker(dtype, kSteps);
    for (int ranks : {2, 4}) {
      for (bool traced : {false, true}) {
        for (int64_t bucket_bytes : {kDefaultBucketBytes, int64_t{8}}) {  // one; one per tensor
          INFO(DTypeName(dtype) << ", " << ranks << " ranks, traced " << traced << ", bucket_bytes "
                                << bucket_bytes);
          std::vector<std::vector<std::vector<double>>> per_step(ranks * kSteps);
          std::vector<std::vector<std::vector<double>>> final(ranks);
          std::mutex mu;
          const std::vector<std::string> errors = OnRanks(ranks, [&](const Communicator& comm) {
            const std::vector<Variable> w = Weights(dtype);
            const int rows = 8 / ranks;
            const Problem part = Problem::Rows(rows * comm.rank(), rows, dtype);
            std::function<void(const Tensor&, const Tensor&)> step = [&](const Tensor& x,
                                                                         const Tensor& y) {
              DistributedGradientTape tape(comm, /*persistent=*/false, bucket_bytes);
              const std::vector<Tensor> g = tape.gradient(Loss(w, x, y), w);
              for (size_t i = 0; i < w.size(); ++i) w[i].assign_sub(g[i] * 0.1);
            };
            if (traced) step = duet::function(step);
            for (int s = 0; s < kSteps; ++s) {
              step(part.x, part.y);
              std::lock_guard<std::mutex> lock(mu);
              per_step[ranks * s + comm.rank()] = Values(w);
            }
            std::lock_guard<std::mutex> lock(mu);
            final[comm.rank()] = Values(w);
          });
          for (const std::string& e : errors) CHECK(e.empty());
          for (int s = 0; s < kSteps; ++s) {
            for (int r = 1; r < ranks; ++r) {
              CHECK(per_step[ranks * s] == per_step[ranks * s + r]);  // bit-identical replicas
            }
          }
          for (size_t v = 0; v < expected.size(); ++v) {
            for (size_t k = 0; k < expected[v].size(); ++k) {
              CHECK(final[0][v][k] == Approx(expected[v][k]).margin(tolerance));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("average_gradients keeps undefined gradients and separates dtypes") {
  const std::vector<std::string> errors = OnRanks(2, [](const Communicator& comm) {
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
