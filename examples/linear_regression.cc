// The eager guide's first program: learn W and B of y = W x + B from noisy samples of
// y = 3x + 2, with a GradientTape and plain SGD. It trains eagerly (every op runs at once, so a
// loss can be printed or a tensor inspected anywhere in the loop), then trains a fresh model with
// the same step traced by duet::function, and checks that both reach the same W and B.
//
//   bazel run //examples:linear_regression [-- STEPS]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "duet.h"

using namespace duet;

namespace {

constexpr int64_t kSamples = 1000;

// y = W x + B, starting far from the answer as in the guide (W = 5, B = 10).
class Linear : public nn::Module {
 public:
  Linear() : nn::Module("linear") {}
  Tensor operator()(const Tensor& x) const { return w_ * x + b_; }
  float w() const { return w_.value().item<float>(); }
  float b() const { return b_.value().item<float>(); }

 private:
  Variable w_ = add_variable("W", {}, kFloat32, initializers::constant(5.0));
  Variable b_ = add_variable("B", {}, kFloat32, initializers::constant(10.0));
};

Tensor Loss(Linear& model, const Tensor& x, const Tensor& y) {
  return reduce_mean(square(model(x) - y));
}

// One SGD step: the loss under a tape, its gradients, the update. Returns the loss.
Tensor TrainStep(Linear& model, optimizers::SGD& sgd, const Tensor& x, const Tensor& y) {
  GradientTape tape;
  const Tensor loss = Loss(model, x, y);
  sgd.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                      model.trainable_variables());
  return loss;
}

// Trains for `steps`, printing the loss every 10 steps; `step` is called as TrainStep is.
template <typename Step>
void Train(const char* mode, Linear& model, int steps, Step&& step) {
  std::printf("%s:\n", mode);
  for (int i = 0; i < steps; ++i) {
    const Tensor loss = step();
    if (i % 10 == 0 || i == steps - 1) {
      std::printf("  step %3d  loss %.5f  W %.4f  B %.4f\n", i, loss.item<float>(), model.w(),
                  model.b());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 300;
  // The data: y = 3x + 2 plus Gaussian noise, fixed seeds so that every run prints the same.
  const Tensor x = random_normal({kSamples}, /*seed=*/1);
  const Tensor y = x * 3.f + 2.f + random_normal({kSamples}, /*seed=*/2);

  Linear eager_model;
  optimizers::SGD eager_sgd(0.01);
  std::printf("initial loss %.5f\n", Loss(eager_model, x, y).item<float>());
  Train("eager", eager_model, steps, [&] { return TrainStep(eager_model, eager_sgd, x, y); });

  // The same loop with the step traced once into a graph and then run as one plan per call.
  Linear traced_model;
  optimizers::SGD traced_sgd(0.01);
  auto traced_step = duet::function([&](const Tensor& xs, const Tensor& ys) {
    return TrainStep(traced_model, traced_sgd, xs, ys);
  });
  Train("traced", traced_model, steps, [&] { return traced_step(x, y); });

  const float dw = std::abs(eager_model.w() - traced_model.w());
  const float db = std::abs(eager_model.b() - traced_model.b());
  std::printf("learned W %.4f (true 3), B %.4f (true 2); eager and traced differ by %.2g, %.2g\n",
              traced_model.w(), traced_model.b(), dw, db);
  // Summation order may differ between the eager kernels and the optimized graph's.
  if (dw > 1e-4f || db > 1e-4f) {
    std::fprintf(stderr, "error: eager and traced training disagree\n");
    return 1;
  }
  return 0;
}
