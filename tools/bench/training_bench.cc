// Training steps through the training stack (issue 20), one process, interleaved medians:
//   - mlp_adam_b64: a 784-256-10 relu MLP, batch 64, sparse cross-entropy, Adam. The step written
//     with nn::Dense, losses and optimizers::Adam, eagerly and traced, against the same step
//     written with raw ops (matmul, bias_add, the fused cross-entropy, ResourceApplyAdam) and
//     traced: ratio.layers_to_raw says what the abstractions cost.
//   - cnn_bn_adam_b64: conv(32)-bn-relu, conv(64)-bn-relu, maxpool, dense(10) on 28x28x1, batch
//     64, training mode (batch-norm updates), Adam; eagerly and traced.
//   - lstm128_t50_b32_adam: LSTM(128) over 50 steps of 32 features, batch 32, then dense(10) on
//     the last output, sparse cross-entropy, Adam; eagerly (a C++ loop) and traced (one While and
//     its gradient loop, Note [Recurrent layers]).
// Prints `name<TAB>value<TAB>unit` (us per step). tools/bench/training_bench.py runs this binary
// beside PyTorch (eager, torch.compile) and TensorFlow (tf.function) and prints the ratios.
#include <cstdio>
#include <string>
#include <vector>

#include "duet.h"
#include "tools/bench/bench_util.h"

namespace duet {
namespace {

using duet_bench::DoNotOptimize;
using duet_bench::InterleavedMedianSecondsPerCall;
using duet_bench::Print;

constexpr double kUs = 1e6;

struct Mlp : nn::Module {
  nn::Dense d1{this, "d1", 256, Activation::kRelu}, d2{this, "d2", 10};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

// The raw-ops MLP with its own Adam state: what a user wrote before nn/ and optimizers/.
struct RawMlp {
  std::vector<Variable> vars = {
      Variable(random_normal({784, 256}, 1, kFloat32, 0, 0.05), "w1"), Variable(zeros({256}), "b1"),
      Variable(random_normal({256, 10}, 2, kFloat32, 0, 0.05), "w2"), Variable(zeros({10}), "b2")};
  std::vector<Variable> m, v;
  Variable step{scalar(0, kInt64), "step", false};
  RawMlp() {
    for (const Variable& var : vars) {
      m.emplace_back(zeros(var.shape()), var.name() + "/m", false);
      v.emplace_back(zeros(var.shape()), var.name() + "/v", false);
    }
  }
  Tensor operator()(const Tensor& x, const Tensor& y) {
    GradientTape tape;
    const Tensor h = relu(bias_add(matmul(x, vars[0]), vars[1]));
    const Tensor loss = reduce_mean(
        sparse_softmax_cross_entropy_with_logits(y, bias_add(matmul(h, vars[2]), vars[3])));
    const std::vector<Tensor> grads = tape.gradient(loss, vars);
    const Tensor t = cast(step.value(), kFloat32) + 1.f;
    const Tensor b1 = constant(0.9f), b2 = constant(0.999f);
    const Tensor b1_power = pow(b1, t), b2_power = pow(b2, t);
    for (size_t i = 0; i < vars.size(); ++i) {
      resource_apply_adam(vars[i].handle(), m[i].handle(), v[i].handle(), b1_power, b2_power,
                          constant(1e-3f), b1, b2, constant(1e-7f), grads[i]);
    }
    step.assign_add(scalar(1, kInt64));
    return loss;
  }
};

template <typename Model>
auto LayerStep(Model& model, optimizers::Optimizer& opt) {
  return [&model, &opt](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    const Tensor loss = losses::sparse_categorical_crossentropy(y, model(x, true), true);
    opt.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                        model.trainable_variables());
    return loss;
  };
}

struct MlpModel {
  Mlp mlp;
  Tensor operator()(const Tensor& x, bool) { return mlp(x); }
  std::vector<Variable> trainable_variables() const { return mlp.trainable_variables(); }
};

void MlpCase() {
  const int batch = 64;
  const Tensor x = random_normal({batch, 784}, 3);
  const Tensor y = cast(floor(random_uniform({batch}, 4, kFloat32, 0, 10)), kInt64);
  MlpModel eager_model, traced_model;
  optimizers::Adam eager_opt(1e-3), traced_opt(1e-3);
  auto eager = LayerStep(eager_model, eager_opt);
  auto traced = duet::function(LayerStep(traced_model, traced_opt));
  RawMlp raw_model;
  auto raw = duet::function([&](const Tensor& xs, const Tensor& ys) { return raw_model(xs, ys); });
  const std::vector<double> s = InterleavedMedianSecondsPerCall({
      [&] { DoNotOptimize(eager(x, y)); },
      [&] { DoNotOptimize(traced(x, y)); },
      [&] { DoNotOptimize(raw(x, y)); },
  });
  Print("duet_eager.mlp_adam_b64", s[0] * kUs, "us");
  Print("duet_traced.mlp_adam_b64", s[1] * kUs, "us");
  Print("duet_raw_traced.mlp_adam_b64", s[2] * kUs, "us");
  Print("ratio_layers_to_raw.mlp_adam_b64", s[1] / s[2], "x");
}

struct Cnn : nn::Module {
  nn::Conv2D c1{this, "c1", 32, 3, {.padding = "same"}};
  nn::BatchNorm n1{this, "n1"};
  nn::Conv2D c2{this, "c2", 64, 3, {.padding = "same"}};
  nn::BatchNorm n2{this, "n2"};
  nn::MaxPool2D pool{this, "pool"};
  nn::Flatten flatten{this};
  nn::Dense head{this, "head", 10};
  Tensor operator()(const Tensor& x, bool training) {
    const Tensor h = relu(n1(c1(x), training));
    return head(flatten(pool(relu(n2(c2(h), training)))));
  }
};

// Times a training step of a fresh `Model` eagerly and traced on (x, y).
template <typename Model>
void EagerAndTraced(const std::string& name, const Tensor& x, const Tensor& y) {
  Model eager_model, traced_model;
  optimizers::Adam eager_opt(1e-3), traced_opt(1e-3);
  auto eager = LayerStep(eager_model, eager_opt);
  auto traced = duet::function(LayerStep(traced_model, traced_opt));
  const std::vector<double> s = InterleavedMedianSecondsPerCall({
      [&] { DoNotOptimize(eager(x, y)); },
      [&] { DoNotOptimize(traced(x, y)); },
  });
  Print("duet_eager." + name, s[0] * kUs, "us");
  Print("duet_traced." + name, s[1] * kUs, "us");
}

void CnnCase() {
  const int batch = 64;
  const Tensor x = random_normal({batch, 28, 28, 1}, 5);
  const Tensor y = cast(floor(random_uniform({batch}, 6, kFloat32, 0, 10)), kInt64);
  EagerAndTraced<Cnn>("cnn_bn_adam_b64", x, y);
}

struct Rnn : nn::Module {
  nn::LSTM lstm{this, "lstm", 128};
  nn::Dense head{this, "head", 10};
  Tensor operator()(const Tensor& x, bool) { return head(lstm(x)); }
};

void LstmCase() {
  const int batch = 32;
  const Tensor x = random_normal({batch, 50, 32}, 7);
  const Tensor y = cast(floor(random_uniform({batch}, 8, kFloat32, 0, 10)), kInt64);
  EagerAndTraced<Rnn>("lstm128_t50_b32_adam", x, y);
}

}  // namespace
}  // namespace duet

// `training_bench [substring]`: only the cases whose names contain it (all without one).
int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const auto wanted = [&](const char* name) {
    return std::string(name).find(only) != std::string::npos;
  };
  if (wanted("mlp_adam_b64")) duet::MlpCase();
  if (wanted("cnn_bn_adam_b64")) duet::CnnCase();
  if (wanted("lstm128_t50_b32_adam")) duet::LstmCase();
  return 0;
}
