// fit(..., {.distribute = &comm}) (Note [Distributed fit] in train/fit.cc) on ranks that are
// threads of this process: two ranks on interleaved shards with half the global batch each train
// as one worker with the whole batch, an uneven last batch included (float64, 1e-12), and end
// with bit-identical replicas from different initial weights; callbacks run on rank 0 only and
// its stop_training stops every rank; ranks whose models differ fail at the start.
#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "duet.h"
#include "tests/distribute/communicator_ranks.h"

namespace duet::distribute {
namespace {

using testing::OnRanks;

// y = tanh(x W1 + b1) W2 in float64, W1 filled with `init` (different on each rank: fit must
// broadcast rank 0's).
struct Mlp : nn::Module {
  explicit Mlp(double init, int64_t hidden = 4)
      : nn::Module("mlp"),
        w1(add_variable("w1", {3, hidden}, kFloat64, initializers::random_normal(init, 0.3, 7))),
        b1(add_variable("b1", {hidden}, kFloat64, initializers::zeros())),
        w2(add_variable("w2", {hidden, 1}, kFloat64, initializers::random_normal(0, 0.3, 8))) {}
  Variable w1, b1, w2;
  Tensor operator()(const Tensor& x) { return matmul(tanh(matmul(x, w1) + b1), w2); }
};

// 37 samples: with global batches of 8 the last has 5, split 3 and 2 between two shards.
data::Dataset Samples() {
  std::vector<double> xs, ys;
  for (int i = 0; i < 37; ++i) {
    for (int j = 0; j < 3; ++j) xs.push_back(std::sin(0.37 * i + 1.1 * j));
    ys.push_back(std::cos(0.23 * i) + 0.1 * i / 37.0);
  }
  return data::Dataset::from_tensor_slices(
      {constant(xs, Shape({37, 3})), constant(ys, Shape({37, 1}))});
}

Tensor MeanSquaredError(const Tensor& y, const Tensor& y_pred) {
  return reduce_mean(square(y_pred - y));
}

std::vector<std::vector<double>> Values(const std::vector<Variable>& variables) {
  std::vector<std::vector<double>> out;
  for (const Variable& v : variables) {
    if (v.dtype() == kFloat64) out.push_back(v.value().to_vector<double>());
  }
  return out;
}

void ExpectNoErrors(const std::vector<std::string>& errors) {
  for (size_t r = 0; r < errors.size(); ++r) {
    INFO("rank " << r);
    CHECK(errors[r].empty());
  }
}

TEST_CASE("Two ranks with half the batch each fit as one worker with the whole batch") {
  constexpr int kEpochs = 3;
  Mlp ref(/*init=*/0.0);
  optimizers::Adam ref_opt(0.05);
  fit(ref, MeanSquaredError, ref_opt, Samples().batch(8), {.epochs = kEpochs});
  for (bool eagerly : {false, true}) {
    INFO("run_eagerly " << eagerly);
    std::vector<std::vector<std::vector<double>>> models(2), slots(2);
    std::vector<int64_t> steps(2);
    std::mutex mu;
    ExpectNoErrors(OnRanks(2, [&](const Communicator& comm) {
      Mlp model(/*init=*/comm.rank() == 0 ? 0.0 : 1.0);
      optimizers::Adam opt(0.05);
      fit(model, MeanSquaredError, opt, Samples().shard(2, comm.rank()).batch(4),
          {.epochs = kEpochs, .run_eagerly = eagerly, .distribute = &comm});
      std::lock_guard<std::mutex> lock(mu);
      models[comm.rank()] = Values(model.variables());
      slots[comm.rank()] = Values(opt.variables());
      steps[comm.rank()] = opt.iterations().value().item<int64_t>();
    }));
    CHECK(models[0] == models[1]);  // bit-identical replicas
    CHECK(slots[0] == slots[1]);
    CHECK(steps == std::vector<int64_t>{15, 15});
    const std::vector<std::vector<double>> want = Values(ref.variables());
    REQUIRE(models[0].size() == want.size());
    for (size_t v = 0; v < want.size(); ++v) {
      for (size_t k = 0; k < want[v].size(); ++k) {
        CHECK(models[0][v][k] == Approx(want[v][k]).margin(1e-12));
      }
    }
  }
}

struct StopAt : Callback {
  explicit StopAt(int64_t step) : stop_step(step) {}
  void on_train_batch_end(int64_t step, const Logs&, TrainingState& state) override {
    ++batches;
    if (step == stop_step) state.stop_training = true;
  }
  int64_t stop_step;
  int batches = 0;
};

TEST_CASE("Callbacks run on rank 0 only, and its stop_training stops every rank") {
  std::vector<int> batches(2);
  std::vector<int64_t> steps(2);
  std::vector<std::vector<int>> epochs(2);
  ExpectNoErrors(OnRanks(2, [&](const Communicator& comm) {
    Mlp model(0.0);
    optimizers::SGD opt(0.1);
    auto stop = std::make_shared<StopAt>(/*step=*/2);
    const History h = fit(model, MeanSquaredError, opt, Samples().shard(2, comm.rank()).batch(4),
                          {.epochs = 4, .callbacks = {stop}, .distribute = &comm});
    batches[comm.rank()] = stop->batches;
    steps[comm.rank()] = opt.iterations().value().item<int64_t>();
    epochs[comm.rank()] = h.epoch;
  }));
  CHECK(batches == std::vector<int>{3, 0});
  CHECK(steps == std::vector<int64_t>{3, 3});
  CHECK(epochs[0] == std::vector<int>{0});
  CHECK(epochs[1] == std::vector<int>{0});
}

TEST_CASE("fit fails at the start on every rank when the ranks' models differ") {
  const std::vector<std::string> errors = OnRanks(2, [&](const Communicator& comm) {
    Mlp model(0.0, /*hidden=*/comm.rank() == 0 ? 4 : 5);
    optimizers::SGD opt(0.1);
    fit(model, MeanSquaredError, opt, Samples().shard(2, comm.rank()).batch(4),
        {.distribute = &comm});
  });
  for (const std::string& e : errors) {
    CHECK_THAT(e, Catch::Contains("the ranks made different variables: variable 0 is") &&
                      Catch::Contains("float64 (3, 4)' on rank 0 but") &&
                      Catch::Contains("float64 (3, 5)' on rank 1"));
  }
}

TEST_CASE("API.md's distributed training lines, in a job of one") {
  distribute::Communicator comm = distribute::init();  // no launcher: a job of one
  CHECK(comm.rank() == 0);
  CHECK(comm.size() == 1);
  comm.barrier();
  Mlp model(0.0);
  distribute::broadcast_variables(model.variables(), /*root=*/0);
  const Tensor x = constant({1.0, 2.0});
  CHECK(distribute::all_reduce(x, distribute::ReduceOp::kMean).to_vector<double>() ==
        std::vector<double>{1.0, 2.0});
  {
    distribute::DistributedGradientTape tape(comm);
    const Tensor loss = reduce_sum(model(constant({{1.0, 2.0, 3.0}})));
    CHECK(tape.gradient(loss, model.trainable_variables()).size() == 3);
  }
  auto shard = Samples().shard(comm.size(), comm.rank()).batch(8);
  optimizers::SGD opt(0.1);
  History h = fit(model, MeanSquaredError, opt, shard, {.epochs = 2, .distribute = &comm});
  CHECK(h.epoch == std::vector<int>{0, 1});
}

}  // namespace
}  // namespace duet::distribute
