// fit: the updates of a hand-written SGD loop, eager and traced alike; the epoch loss and metrics
// as means over samples (a short last batch weighs less); the options; and its errors.
#include "train/fit.h"

#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

// y = x W + b for x of shape (n, 2), starting from fixed weights.
struct Linear : nn::Module {
  Linear() : nn::Module("linear") {}
  Variable w = add_variable("w", {2, 1}, kFloat32, initializers::constant(0.5));
  Variable b = add_variable("b", {1}, kFloat32, initializers::zeros());
  Tensor operator()(const Tensor& x) { return matmul(x, w) + b; }
};

// Ten samples of y = 3 x0 - 2 x1 + 1, batches of 4, 4 and 2.
std::vector<Tensor> Samples() {
  const Tensor x = reshape(cast(range(0, 20, 1), kFloat32) / 10.f, {10, 2});
  const Tensor y = matmul(x, Tensor({{3.f}, {-2.f}})) + 1.f;
  return {x, y};
}
data::Dataset Batches() { return data::Dataset::from_tensor_slices(Samples()).batch(4); }

Tensor MeanSquaredError(const Tensor& y, const Tensor& y_pred) {
  return reduce_mean(square(y_pred - y));
}

TEST_CASE("fit makes the updates of a hand-written SGD loop, eager and traced") {
  Linear expected;
  optimizers::SGD sgd(0.1);
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (auto& batch : Batches()) {
      GradientTape tape;
      const Tensor loss = MeanSquaredError(batch[1], expected(batch[0]));
      sgd.apply_gradients(tape.gradient(loss, expected.trainable_variables()),
                          expected.trainable_variables());
    }
  }
  for (bool eagerly : {true, false}) {
    INFO("run_eagerly " << eagerly);
    Linear model;
    optimizers::SGD opt(0.1);
    const History h =
        fit(model, MeanSquaredError, opt, Batches(), {.epochs = 3, .run_eagerly = eagerly});
    testing::ExpectTensorNear(model.w, expected.w, 1e-6);
    testing::ExpectTensorNear(model.b, expected.b, 1e-6);
    CHECK(h.epoch == std::vector<int>{0, 1, 2});
    REQUIRE(h.history.at("loss").size() == 3);
    CHECK(h.history.at("loss")[2] < h.history.at("loss")[0]);
    CHECK(opt.iterations().value().item<int64_t>() == 9);
  }
}

TEST_CASE("fit traces a CNN whose last batch is short: gradients of a relaxed trace") {
  // Batches of 4, 4 and 2: the short one retraces with the batch dim unknown, where the conv
  // and pooling gradients must read their input's shape at run time.
  struct Cnn : nn::Module {
    nn::Conv2D conv{this, "conv", 3, 3, {.padding = "same"}};
    nn::DepthwiseConv2D depthwise{this, "depthwise", 3, 1, {.padding = "same"}};
    nn::AvgPool2D pool{this, "pool"};
    nn::Flatten flatten{this};
    nn::Dense head{this, "head", 2};
    Tensor operator()(const Tensor& x) { return head(flatten(pool(depthwise(relu(conv(x)))))); }
  };
  const Tensor images = random_normal({10, 6, 6, 1}, 11);
  const Tensor labels = cast(Tensor({0, 1, 1, 0, 1, 0, 0, 1, 1, 0}), kInt64);
  const auto batches = data::Dataset::from_tensor_slices({images, labels}).batch(4);
  std::vector<std::vector<Tensor>> weights;
  for (bool eagerly : {true, false}) {
    initializers::set_random_seed(5);
    Cnn model;
    optimizers::SGD opt(0.1);
    fit(model, losses::SparseCategoricalCrossentropy{.from_logits = true}, opt, batches,
        {.epochs = 2, .run_eagerly = eagerly});
    weights.emplace_back();
    for (const Variable& v : model.variables()) weights.back().push_back(v.value());
  }
  REQUIRE(weights[0].size() == weights[1].size());
  for (size_t i = 0; i < weights[0].size(); ++i) {
    testing::ExpectTensorNear(weights[1][i], weights[0][i], 1e-5);
  }
}

TEST_CASE("fit's validation loss and metrics are means over samples") {
  // A classifier whose logits are the input: the loss and accuracy of the whole set are known.
  struct Identity : nn::Module {
    Variable scale = add_variable("scale", {}, kFloat32, initializers::constant(1.0));
    Tensor operator()(const Tensor& x, bool /*training*/) { return x * scale; }
  };
  const Tensor logits = random_normal({10, 3}, 7);
  const Tensor labels64 = cast(Tensor({0, 1, 2, 0, 1, 2, 0, 1, 2, 2}), kInt64);
  const auto validation = data::Dataset::from_tensor_slices({logits, labels64}).batch(4);
  const float loss = losses::sparse_categorical_crossentropy(labels64, logits, true).item<float>();
  const auto accuracy = std::make_shared<metrics::SparseCategoricalAccuracy>("accuracy");
  const float expected_accuracy = [&] {
    metrics::SparseCategoricalAccuracy all;
    return all(labels64, logits).item<float>();
  }();
  for (bool eagerly : {true, false}) {
    Identity model;
    optimizers::SGD frozen(0.0);  // no update: validation sees the initial model
    const History h =
        fit(model, losses::SparseCategoricalCrossentropy{.from_logits = true}, frozen, validation,
            {.validation = validation, .metrics = {accuracy}, .run_eagerly = eagerly});
    CHECK(h.history.at("loss")[0] == Approx(loss).epsilon(1e-6));
    CHECK(h.history.at("val_loss")[0] == Approx(loss).epsilon(1e-6));
    CHECK(h.history.at("accuracy")[0] == Approx(expected_accuracy).epsilon(1e-6));
    CHECK(h.history.at("val_accuracy")[0] == Approx(expected_accuracy).epsilon(1e-6));
  }
}

TEST_CASE("fit's steps_per_epoch, validation_steps and initial_epoch") {
  Linear model;
  optimizers::SGD opt(0.01);
  struct Counter : Callback {
    int batches = 0;
    std::vector<int> epochs;
    void on_train_batch_end(int64_t, const Logs&, TrainingState&) override { ++batches; }
    void on_epoch_begin(int epoch, TrainingState&) override { epochs.push_back(epoch); }
  };
  auto counter = std::make_shared<Counter>();
  const History h = fit(model, MeanSquaredError, opt, Batches().repeat(),
                        {.epochs = 4,
                         .initial_epoch = 2,
                         .validation = Batches().repeat(),
                         .callbacks = {counter},
                         .steps_per_epoch = 5,
                         .validation_steps = 2});
  CHECK(counter->batches == 10);
  CHECK(counter->epochs == std::vector<int>{2, 3});
  CHECK(h.epoch == std::vector<int>{2, 3});
  CHECK(h.history.at("val_loss").size() == 2);
}

TEST_CASE("fit rejects elements that are not (x, y) pairs, and empty datasets") {
  Linear model;
  optimizers::SGD opt(0.1);
  const Tensor x = Samples()[0];
  testing::ExpectError(
      [&] { fit(model, MeanSquaredError, opt, data::Dataset::from_tensor_slices({x}).batch(4)); },
      {"fit: element 0 of the training dataset has 1 components", "(x, y) pairs"});
  testing::ExpectError([&] { fit(model, MeanSquaredError, opt, Batches().take(0)); },
                       {"fit: the training dataset has no elements"});
  testing::ExpectError([&] { fit(model, MeanSquaredError, opt, Batches().repeat()); },
                       {"fit: the training dataset is infinite", "steps_per_epoch"});
  testing::ExpectError(
      [&] { fit(model, MeanSquaredError, opt, Batches(), {.validation = Batches().repeat()}); },
      {"fit: the validation dataset is infinite", "validation_steps"});
  // Shape errors come from the op that meets them, eagerly and traced.
  const Tensor wide = zeros({4, 3});
  for (bool eagerly : {true, false}) {
    testing::ExpectError(
        [&] {
          fit(model, MeanSquaredError, opt, data::Dataset::from_tensors({wide, zeros({4, 1})}),
              {.run_eagerly = eagerly});
        },
        {"MatMul", "(4, 3)", "(2, 1)", "fit_test.cc:"});
  }
}

}  // namespace
}  // namespace duet
