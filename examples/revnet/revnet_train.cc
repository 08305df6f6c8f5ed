// Trains the RevNet of examples/revnet/revnet.h on Fashion-MNIST with momentum SGD (cosine
// decay), by reversible backprop (default) or ordinary backprop (--regular), with the whole step
// (forward pass, gradients, update) traced by duet::function (default) or eagerly (--eager), then
// evaluates on the test split.
//
//   bazel run -c opt //examples/revnet:revnet_train -- [--steps 2000] [--eager] [--regular]
//       [--depth 4] [--channels 32] [--batch 64] [--dtype float32|float64] [--lr 0.05]
//       [--momentum 0.9] [--log_every 100] [--eval 10000]
//
// Prints "step N loss L acc A" every --log_every steps (means over those steps) and ends with
// one parseable line: "summary" then tab-separated key=value pairs (README.md lists the keys).
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "duet.h"
#include "examples/revnet/flags.h"
#include "examples/revnet/revnet.h"

using namespace duet;

namespace {

struct Options {
  int steps, log_every, eval;
  int64_t batch;
  double lr, momentum;
  bool eager, regular;
  DType dtype;
  revnet::Config config;
};

Options ParseOptions(int argc, char** argv) {
  revnet::Flags flags(argc, argv);
  Options o;
  o.steps = flags.Int("steps", 2000);
  o.log_every = flags.Int("log_every", 100);
  o.eval = flags.Int("eval", 10000);
  o.batch = flags.Int("batch", 64);
  o.lr = flags.Double("lr", 0.05);
  o.momentum = flags.Double("momentum", 0.9);
  o.eager = flags.Switch("eager");
  o.regular = flags.Switch("regular");
  o.dtype = ValueOrThrow(ParseDType(flags.String("dtype", "float32")));
  o.config.depth = flags.Int("depth", 4);
  o.config.channels = flags.Int("channels", 32);
  flags.CheckAllRead();
  return o;
}

// uint8 images [n, 28, 28] as [n, 28, 28, 1] in [0, 1].
Tensor Prepare(const Tensor& images, DType dtype) {
  return reshape(cast(images, dtype) * (1.0 / 255), Shape{-1, 28, 28, 1});
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The model, its optimizer and the running metrics of one training run.
class Trainer {
 public:
  explicit Trainer(const Options& o)
      : o_(o), model_(o.config), sgd_(optimizers::CosineDecay(o.lr, o.steps), o.momentum) {}

  // One training step on a uint8 batch: gradients, update, metrics. Returns the loss.
  Tensor Step(const Tensor& images, const Tensor& labels) {
    const Tensor x = Prepare(images, o_.dtype);
    const revnet::StepResult r =
        o_.regular ? model_.regular_gradients(x, labels) : model_.reversible_gradients(x, labels);
    sgd_.apply_gradients(r.grads, model_.trainable_variables());
    loss_.update_state(r.loss);
    accuracy_.update_state(labels, r.logits);
    return r.loss;
  }

  // Prints and resets the running means; returns {loss, accuracy}.
  std::pair<double, double> Log(int step) {
    const double loss = loss_.result().item<float>(), accuracy = accuracy_.result().item<float>();
    std::printf("step %d loss %.6f acc %.4f\n", step, loss, accuracy);
    std::fflush(stdout);
    loss_.reset_state();
    accuracy_.reset_state();
    return {loss, accuracy};
  }

  // Accuracy on the first `n` examples of the test split, in inference mode.
  double Evaluate(const Tensor& images, const Tensor& labels, int64_t n) {
    metrics::SparseCategoricalAccuracy accuracy;
    auto logits = [this](const Tensor& x) { return model_(Prepare(x, o_.dtype)); };
    auto traced = duet::function(logits);
    for (int64_t start = 0; start < n; start += 500) {
      const int64_t size = std::min<int64_t>(500, n - start);
      const Tensor x = slice(images, {start, 0, 0}, {size, 28, 28});
      const Tensor y = slice(labels, {start}, {size});
      accuracy.update_state(y, o_.eager ? logits(x) : traced(x));
    }
    return accuracy.result().item<float>();
  }

 private:
  const Options& o_;
  revnet::RevNet model_;
  optimizers::SGD sgd_;
  metrics::Mean loss_;
  metrics::SparseCategoricalAccuracy accuracy_;
};

int Run(const Options& o) {
  auto [train, test] = data::fashion_mnist();
  const data::Dataset batches =
      data::Dataset::from_tensor_slices(train).shuffle(60000, /*seed=*/1).repeat().batch(o.batch);
  Trainer trainer(o);
  auto step = [&trainer](const Tensor& images, const Tensor& labels) {
    return trainer.Step(images, labels);
  };
  auto traced_step = duet::function(step);
  const char* mode = o.eager ? "eager" : "traced";
  std::printf("revnet: %s, %s backprop, %s, depth %d, channels %lld, batch %lld, %d steps\n", mode,
              o.regular ? "regular" : "reversible", std::string(DTypeName(o.dtype)).c_str(),
              o.config.depth, static_cast<long long>(o.config.channels),
              static_cast<long long>(o.batch), o.steps);

  double first_loss = 0, first_step_s = 0;
  std::pair<double, double> last{0, 0};
  auto start = std::chrono::steady_clock::now();
  auto it = batches.begin();
  for (int i = 0; i < o.steps; ++i, ++it) {
    const Tensor loss = o.eager ? step((*it)[0], (*it)[1]) : traced_step((*it)[0], (*it)[1]);
    if (i == 0) {
      first_loss = cast(loss, kFloat64).item<double>();  // waits for the step: the first one traces
      first_step_s = Seconds(start);
      start = std::chrono::steady_clock::now();
    }
    if ((i + 1) % o.log_every == 0 || i + 1 == o.steps) last = trainer.Log(i);
  }
  const double ms_per_step = o.steps > 1 ? 1e3 * Seconds(start) / (o.steps - 1) : 0;
  const double test_acc = trainer.Evaluate(test[0], test[1], std::min<int64_t>(o.eval, 10000));
  std::printf(
      "summary\tmode=%s\tbackprop=%s\tdtype=%s\tdepth=%d\tchannels=%lld\tbatch=%lld\tsteps=%d\t"
      "first_loss=%.6f\tfinal_loss=%.6f\ttrain_acc=%.4f\ttest_acc=%.4f\ttest_examples=%d\t"
      "first_step_ms=%.1f\tms_per_step=%.2f\ttraces=%d\n",
      mode, o.regular ? "regular" : "reversible", std::string(DTypeName(o.dtype)).c_str(),
      o.config.depth, static_cast<long long>(o.config.channels), static_cast<long long>(o.batch),
      o.steps, first_loss, last.first, last.second, test_acc, std::min(o.eval, 10000),
      1e3 * first_step_s, ms_per_step, o.eager ? 0 : traced_step.trace_count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(ParseOptions(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "revnet_train: %s\n", e.what());
    return 1;
  }
}
