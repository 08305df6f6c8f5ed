// The training parts of the API contract (../shared/API.md, "Models, optimizers, ...") and the
// program of docs/training.md, compiled and run as written there.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

struct MLP : nn::Module {
  nn::Dense d1{this, "d1", 256, Activation::kRelu}, d2{this, "d2", 10};
  Tensor operator()(const Tensor& x, bool training = false) { return d2(d1(x)); }
};

TEST_CASE("API.md: models, losses, optimizers and metrics") {
  MLP model;
  const Tensor x = random_normal({8, 784}, 1);
  const Tensor labels = constant<int64_t>({0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor logits = model(x);
  CHECK(model.variables().size() == 4);
  CHECK(model.trainable_variables()[0].name() == "d1/kernel");
  nn::Sequential seq(
      {std::make_shared<nn::Dense>(64, Activation::kRelu), std::make_shared<nn::Dense>(10)});
  CHECK(seq(x).shape() == Shape{8, 10});

  Tensor loss = losses::sparse_categorical_crossentropy(labels, logits, /*from_logits=*/true);
  CHECK(loss.shape() == Shape{});

  optimizers::Adam opt(/*learning_rate=*/1e-3);
  GradientTape tape;
  loss = losses::sparse_categorical_crossentropy(labels, model(x), true);
  const std::vector<Tensor> grads = tape.gradient(loss, model.trainable_variables());
  opt.apply_gradients(grads, model.trainable_variables());
  opt.minimize([&] { return losses::sparse_categorical_crossentropy(labels, model(x), true); },
               model.trainable_variables());
  Variable& step = opt.iterations();
  CHECK(step.value().item<int64_t>() == 2);
  CHECK(model.d1.kernel().shape() == Shape{784, 256});

  metrics::Mean m;
  m(0.f);
  m(5.f);
  CHECK(m.result().item<float>() == 2.5f);
  metrics::SparseCategoricalAccuracy acc;
  acc.update_state(labels, logits);
  const float accuracy = acc.result().item<float>();
  CHECK((accuracy >= 0.f && accuracy <= 1.f));
}

struct Classifier : nn::Module {
  nn::Conv2D conv{this, "conv", 32, 3, {.padding = "same"}};
  nn::BatchNorm norm{this, "norm"};
  nn::MaxPool2D pool{this, "pool"};
  nn::Flatten flatten{this};
  nn::Dropout dropout{this, "dropout", 0.25, /*seed=*/1};
  nn::Dense head{this, "head", 10};
  Tensor operator()(const Tensor& x, bool training = false) {
    const Tensor h = pool(relu(norm(conv(x), training)));
    return head(dropout(flatten(h), training));
  }
};

TEST_CASE("docs/training.md: the complete program trains, traced once") {
  Classifier model;
  optimizers::Adam opt(optimizers::CosineDecay(1e-3, /*decay_steps=*/1000));
  metrics::Mean mean_loss;
  metrics::SparseCategoricalAccuracy accuracy;

  auto train_step = duet::function([&](const Tensor& images, const Tensor& labels) {
    GradientTape tape;
    const Tensor logits = model(images, /*training=*/true);
    const Tensor loss =
        losses::sparse_categorical_crossentropy(labels, logits, /*from_logits=*/true);
    opt.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                        model.trainable_variables());
    mean_loss.update_state(loss);
    accuracy.update_state(labels, logits);
    return loss;
  });

  const Tensor images = random_normal({16, 28, 28, 1}, 1);
  const Tensor labels = cast(floor(random_uniform({16}, 2, kFloat32, 0, 10)), kInt64);
  const float first = train_step(images, labels).item<float>();
  float last = first;
  for (int step = 0; step < 5; ++step) last = train_step(images, labels).item<float>();
  CHECK(train_step.trace_count() == 1);
  CHECK(last < first);
  CHECK(opt.iterations().value().item<int64_t>() == 6);
  CHECK(mean_loss.result().item<float>() > 0);
  CHECK(model.variables().front().name() == "conv/kernel");
}

}  // namespace
}  // namespace duet
