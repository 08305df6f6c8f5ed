#include "train/fit.h"

#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "distribute/gradient_tape.h"
#include "distribute/variables.h"
#include "eager/gradient_tape.h"
#include "graph/traced_function.h"
#include "nn/metrics/mean.h"
#include "ops/array/array_ops.h"
#include "ops/math/math_ops.h"

namespace duet {
namespace {

// One step on a batch: returns the pass's running loss and metrics, loss first.
using StepFn = std::function<std::vector<Tensor>(const Tensor& x, const Tensor& y)>;

// The running loss and metrics of a pass over a dataset. The loss is a Mean weighted by the batch
// size, as Keras weights it, so that a short last batch counts for its samples only.
class RunningMetrics {
 public:
  explicit RunningMetrics(const std::vector<FitMetric>& metrics) : metrics_(metrics) {}

  // Adds a batch and returns the results so far: ops, so a traced step computes them too.
  std::vector<Tensor> update(const Tensor& loss, const Tensor& y_true, const Tensor& y_pred) {
    const Tensor batch_size = gather(cast(shape_of(y_pred), kFloat32), Tensor(0));
    loss_.update_state(loss, batch_size);
    for (const FitMetric& m : metrics_) m.update_state(y_true, y_pred);
    std::vector<Tensor> results = {loss_.result()};
    for (const FitMetric& m : metrics_) results.push_back(m.metric().result());
    return results;
  }

  void reset() {
    loss_.reset_state();
    for (const FitMetric& m : metrics_) m.metric().reset_state();
  }

  // Sets "<prefix>loss" and "<prefix><metric name>" in `logs` from update's results.
  void report(const std::vector<Tensor>& results, const std::string& prefix, Logs& logs) const {
    logs.set(prefix + "loss", results.at(0).item<float>());
    for (size_t i = 0; i < metrics_.size(); ++i) {
      logs.set(prefix + metrics_[i].metric().name(), results.at(i + 1).item<float>());
    }
  }

 private:
  metrics::Mean loss_{"loss"};
  const std::vector<FitMetric>& metrics_;
};

// Runs `step` on each (x, y) element of `dataset`, at most `max_steps` of them (-1: all), and
// calls after_step(step index, results). Before each step, go_on(whether this rank has a batch)
// says whether the pass goes on (Note [Distributed fit]). Returns the last results (empty for
// no element).
std::vector<Tensor> RunPass(
    const data::Dataset& dataset, int64_t max_steps, const StepFn& step, const char* pass,
    absl::FunctionRef<bool(bool)> go_on,
    absl::FunctionRef<void(int64_t, const std::vector<Tensor>&)> after_step) {
  std::vector<Tensor> results;
  int64_t index = 0;
  for (auto it = dataset.begin(); index != max_steps && go_on(it != dataset.end()); ++it, ++index) {
    const data::Element& element = *it;
    if (element.size() != 2) {
      throw Error(absl::InvalidArgumentError(absl::StrCat("fit: element ", index, " of the ", pass,
                                                          " dataset has ", element.size(),
                                                          " components; fit needs (x, y) pairs")));
    }
    results = step(element[0], element[1]);
    after_step(index, results);
  }
  return results;
}

// Note [Distributed fit]: with FitOptions::distribute, every rank runs fit on its shard.
//  - Before the first step the model is built (called once on the first batch, not training, if
//    it has no variables yet), the ranks check they made the same variables, and rank 0's values
//    go to every rank. After the first step (which makes the optimizer's slots) rank 0's model
//    and optimizer go to every rank once more: a run resumed from a checkpoint that only rank 0
//    restored (slots included, Note [Deferred restoration]) goes on from rank 0's state.
//  - Each step averages the gradients over the ranks (DistributedGradientTape's buckets) weighted
//    by the ranks' batch sizes, w_r = n_r * size / sum(n): the global mean over every rank's
//    samples for a loss that is a mean over its batch, also when the last batches are uneven
//    (with equal batches w_r is exactly 1).
//  - The ranks agree before each step (one small all-reduce) whether all have a batch and none
//    was told to stop: a pass ends for all when one rank's shard runs out (the others' extra
//    batches, at most a few, are skipped), and a callback's stop_training stops every rank.
//  - Callbacks (progress bar, TensorBoard, ModelCheckpoint, EarlyStopping) run on rank 0 only,
//    so logs and History are rank 0's (its shard's loss and metrics), and only rank 0 writes.
//  - Validation runs on each rank's own validation data, with no collectives.
std::vector<Tensor> AverageOverRanks(const distribute::Communicator& comm,
                                     std::vector<Tensor> grads, const Tensor& y_pred) {
  const Tensor n = gather(cast(shape_of(y_pred), kFloat64), Tensor(0));
  const Tensor weight =
      n * static_cast<double>(comm.size()) / comm.all_reduce(n, distribute::ReduceOp::kSum);
  for (Tensor& g : grads) {
    if (g.defined()) g = g * cast(weight, g.dtype());
  }
  return distribute::average_gradients(comm, grads);
}

// Whether every rank has a batch and none was told to stop; sets stop_training on every rank
// when one was.
bool RanksGoOn(const distribute::Communicator& comm, bool has_batch, TrainingState& state) {
  const std::vector<int32_t> flags =
      comm.all_reduce(from_vector(std::vector<int32_t>{has_batch ? 0 : 1, state.stop_training}),
                      distribute::ReduceOp::kMax)
          .to_vector<int32_t>();
  if (flags[1] != 0) state.stop_training = true;
  return flags[0] == 0 && flags[1] == 0;
}

// The batches an epoch of `dataset` runs: at most `requested` (-1: no limit), at most its
// cardinality; -1 when unknown. An infinite dataset needs a limit.
int64_t StepsPerPass(const data::Dataset& dataset, int64_t requested, const char* pass,
                     const char* option) {
  const int64_t n = dataset.cardinality();
  if (n == data::kInfiniteCardinality && requested < 0) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "fit: the ", pass, " dataset is infinite (repeat()): set FitOptions::", option)));
  }
  if (n < 0) return requested;
  return requested < 0 ? n : std::min(n, requested);
}

}  // namespace

History fit(nn::Module& model, ForwardFn forward, LossFn loss, optimizers::Optimizer& optimizer,
            const data::Dataset& train, FitOptions options) {
  const distribute::Communicator* comm = options.distribute;
  RunningMetrics running(options.metrics);
  StepFn train_step = [&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    const Tensor y_pred = forward(x, /*training=*/true);
    const Tensor batch_loss = loss(y, y_pred);
    const std::vector<Variable> variables = model.trainable_variables();  // built by now
    std::vector<Tensor> grads = tape.gradient(batch_loss, variables);
    if (comm != nullptr) grads = AverageOverRanks(*comm, std::move(grads), y_pred);
    optimizer.apply_gradients(grads, variables);
    return running.update(batch_loss, y, y_pred);
  };
  StepFn test_step = [&](const Tensor& x, const Tensor& y) {
    const Tensor y_pred = forward(x, /*training=*/false);
    return running.update(loss(y, y_pred), y, y_pred);
  };
  if (!options.run_eagerly) {
    train_step = duet::function(std::move(train_step), {.name = "train_step"});
    test_step = duet::function(std::move(test_step), {.name = "test_step"});
  }

  const int64_t steps_per_epoch =
      StepsPerPass(train, options.steps_per_epoch, "training", "steps_per_epoch");
  const int64_t validation_steps = options.validation
                                       ? StepsPerPass(*options.validation, options.validation_steps,
                                                      "validation", "validation_steps")
                                       : 0;
  TrainingState state{.model = &model,
                      .initial_epoch = options.initial_epoch,
                      .epochs = options.epochs,
                      .steps_per_epoch = steps_per_epoch};
  // Note [Distributed fit]: callbacks on rank 0 only; the model the same on every rank.
  const std::vector<CallbackRef> callbacks =
      comm != nullptr && comm->rank() != 0 ? std::vector<CallbackRef>{} : options.callbacks;
  bool first_step = comm != nullptr;
  if (comm != nullptr) {
    if (model.variables().empty()) {
      for (const data::Element& element : train) {
        if (!element.empty()) forward(element[0], /*training=*/false);
        break;
      }
    }
    distribute::check_same_variables(*comm, model.variables());
    distribute::broadcast_variables(*comm, model.variables());
  }
  auto go_on = [&](bool has_batch) {
    return comm != nullptr ? RanksGoOn(*comm, has_batch, state) : has_batch;
  };
  for (const CallbackRef& c : callbacks) c->on_train_begin(state);
  History history;
  Logs logs;
  for (int epoch = options.initial_epoch; epoch < options.epochs && !state.stop_training; ++epoch) {
    for (const CallbackRef& c : callbacks) c->on_epoch_begin(epoch, state);
    running.reset();
    logs = Logs();
    int64_t steps = 0;
    const std::vector<Tensor> trained =
        RunPass(train, steps_per_epoch, train_step, "training", go_on,
                [&](int64_t step, const std::vector<Tensor>& results) {
                  steps = step + 1;
                  if (first_step) {
                    first_step = false;
                    distribute::broadcast_variables(*comm, model.variables());
                    distribute::broadcast_variables(*comm, optimizer.variables());
                  }
                  running.report(results, "", logs);
                  for (const CallbackRef& c : callbacks) c->on_train_batch_end(step, logs, state);
                });
    if (trained.empty() && !state.stop_training) {
      throw Error(absl::InvalidArgumentError("fit: the training dataset has no elements"));
    }
    state.steps_per_epoch = steps;
    if (options.validation) {
      running.reset();
      const std::vector<Tensor> validated = RunPass(
          *options.validation, validation_steps, test_step, "validation",
          [](bool has_batch) { return has_batch; }, [](int64_t, const std::vector<Tensor>&) {});
      if (!validated.empty()) running.report(validated, "val_", logs);
    }
    history.epoch.push_back(epoch);
    for (const auto& [name, value] : logs.items()) history.history[name].push_back(value);
    for (const CallbackRef& c : callbacks) c->on_epoch_end(epoch, logs, state);
    if (comm != nullptr) RanksGoOn(*comm, /*has_batch=*/true, state);  // a stop made at epoch end
  }
  for (const CallbackRef& c : callbacks) c->on_train_end(logs, state);
  return history;
}

}  // namespace duet
