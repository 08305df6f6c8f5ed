// Logs a small regression's training for TensorBoard (docs/summaries.md):
//   bazel run //examples:tensorboard_logging -- /tmp/logs
//   tensorboard --logdir /tmp/logs
#include <iostream>
#include <string>

#include "duet.h"

using namespace duet;

struct Model : nn::Module {
  nn::Dense d1{this, "d1", 16, Activation::kRelu}, d2{this, "d2", 1};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

int main(int argc, char** argv) {
  const std::string logdir = argc > 1 ? argv[1] : "logs";
  Model model;
  optimizers::Adam opt(0.01);
  const Tensor x = random_normal({256, 4}, /*seed=*/1);
  const Tensor y = reduce_sum(x * x, {1}, /*keep_dims=*/true);  // the target to fit
  model(x);                                                     // builds the layers

  summary::FileWriter w(logdir + "/run1");  // logdir/run1/events.out.tfevents.<time>.<host>
  summary::RecordEvery every(20);           // true at steps 0, 20, 40, ...

  auto train_step = duet::function([&](const Tensor& step) {
    Tensor loss = opt.minimize([&] { return losses::mean_squared_error(y, model(x)); },
                               model.trainable_variables());
    w.scalar("loss", loss, step);  // a host_function node: written on every call
    return loss;
  });

  for (int64_t step = 0; step < 200; ++step) {
    Tensor loss = train_step(constant(step));  // the step as a tensor: no retracing
    if (every(step)) {
      w.histogram("d1/kernel", model.d1.kernel(), step);
      std::cout << "step " << step << "  loss " << loss.item<float>() << "\n";
    }
  }
  // The first layer's kernel as a 4x16 grayscale image (values squashed into [0, 1]).
  w.image("d1/kernel", reshape(sigmoid(model.d1.kernel()), {4, 16, 1}), 200);
  w.text("notes", "2-layer MLP, Adam, learning rate **0.01**", 0);
  w.graph(train_step, constant(int64_t{0}));  // the traced step's graph (Graphs tab)
  w.flush();                                  // the destructor flushes too
  std::cout << "wrote " << w.path() << "\n";
  return 0;
}
