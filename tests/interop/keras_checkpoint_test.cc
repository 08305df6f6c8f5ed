// TensorFlow -> duet: checkpoints tf.train.Checkpoint wrote for Keras 2 (tf_keras) MLPs and their
// Adam optimizers restore into the equivalent duet models by object path, and training resumes
// exactly where Keras left off; a Keras LSTM and Bidirectional GRU restore into nn::LSTM and
// nn::Bidirectional and give Keras' output (testdata/keras_checkpoints, made by
// make_keras_checkpoints.py).
#include <catch2/catch.hpp>
#include <string>

#include "duet.h"
#include "io/checkpoint/object_graph.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::FixtureValues;
using testing::ToDoubles;

struct MLP : nn::Module {
  nn::Dense d1{this, "d1", 4, Activation::kRelu}, d2{this, "d2", 2};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

const Tensor kX = constant<float>({0.5f, -1.f, 2.f, 1.5f, 0.f, -0.5f}, {2, 3});
const Tensor kY = constant<int64_t>({1, 0});

// Every variable the Checkpoint reaches, checked against the fixture line of its key: the keys
// duet writes are the keys Keras wrote.
void CheckAgainst(const std::string& fixture, const checkpoint_internal::Roots& roots,
                  double tolerance) {
  for (const auto& saved : checkpoint_internal::BuildObjectGraph(roots).variables) {
    if (saved.path == "save_counter") continue;
    INFO(saved.key);
    const std::vector<double> expected = FixtureValues(fixture, saved.key);
    const std::vector<double> got = ToDoubles(saved.variable.value());
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).margin(tolerance));
  }
}

template <typename Model>
void RestoreAndResume(const std::string& name, Model& model) {
  const std::string dir = testing::Testdata("interop", "keras_checkpoints/" + name);
  optimizers::Adam opt(0.01);
  Checkpoint ckpt({{"model", &model}, {"optimizer", &opt}});
  const std::string path = latest_checkpoint(dir);
  REQUIRE(path == dir + "/ckpt-1");
  auto status = ckpt.restore(path);
  model(kX);  // builds the layers: their values arrive as they are made
  CHECK(opt.iterations().value().template item<int64_t>() == 2);
  CheckAgainst(dir + "/values.txt", {{"model", &model}}, 0);
  status.assert_existing_objects_matched();

  // Adam's slots arrive when the next step makes them, before it uses them.
  opt.minimize([&] { return losses::sparse_categorical_crossentropy(kY, model(kX), true); },
               model.trainable_variables());
  CheckAgainst(dir + "/after_step.txt", {{"model", &model}, {"optimizer", &opt}}, 1e-6);
  // Keras' learning rate is a variable; duet's is a schedule, so that value stays unused.
  CHECK(status.unused_values() == std::vector<std::string>{"optimizer/_learning_rate"});
  status.expect_partial();
}

TEST_CASE("a Keras Sequential and its Adam restore into nn::Sequential") {
  nn::Sequential model(
      {std::make_shared<nn::Dense>(4, Activation::kRelu), std::make_shared<nn::Dense>(2)});
  RestoreAndResume("sequential", model);
}

TEST_CASE("a subclassed Keras model restores into a module with the same attribute names") {
  MLP model;
  RestoreAndResume("subclassed", model);
}

TEST_CASE("a legacy Keras Adam's slots, listed against their variables, restore") {
  const std::string dir = testing::Testdata("interop", "keras_checkpoints/legacy_adam");
  nn::Sequential model(
      {std::make_shared<nn::Dense>(4, Activation::kRelu), std::make_shared<nn::Dense>(2)});
  optimizers::Adam opt(0.01);
  Checkpoint ckpt({{"model", &model}, {"optimizer", &opt}});
  auto status = ckpt.restore(latest_checkpoint(dir));
  CHECK(opt.iterations().value().item<int64_t>() == 2);  // the legacy "iter"
  model(kX);
  opt.minimize([&] { return losses::sparse_categorical_crossentropy(kY, model(kX), true); },
               model.trainable_variables());
  CheckAgainst(dir + "/after_step.txt", {{"model", &model}}, 1e-6);
  const std::vector<std::pair<std::string, Variable>> slots = {
      {"layer_with_weights-0/kernel", opt.slot(model.layers()[0]->variables()[0], "m")},
      {"layer_with_weights-1/bias", opt.slot(model.layers()[1]->variables()[1], "v")}};
  for (const auto& [owner, slot] : slots) {
    const std::string key = "model/" + owner + "/.OPTIMIZER_SLOT/optimizer/" +
                            slot.name().substr(slot.name().rfind('/') + 1) +
                            "/.ATTRIBUTES/VARIABLE_VALUE";
    INFO(key);
    const std::vector<double> expected = FixtureValues(dir + "/after_step.txt", key);
    const std::vector<double> got = ToDoubles(slot.value());
    REQUIRE(got.size() == expected.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).margin(1e-6));
  }
  // The legacy optimizer's hyper-parameters are variables; duet's are not.
  CHECK(status.unused_values() == std::vector<std::string>{"optimizer/beta_1", "optimizer/beta_2",
                                                           "optimizer/decay",
                                                           "optimizer/learning_rate"});
  status.expect_partial();
}

struct Recurrent : nn::Module {
  nn::LSTM lstm{this, "lstm", 3, {.return_sequences = true}};
  nn::Bidirectional bi{this, "bi", std::make_shared<nn::GRU>(2), nn::MergeMode::kSum};
  Tensor operator()(const Tensor& x) { return bi(lstm(x)); }
};

TEST_CASE("Keras' LSTM and Bidirectional(GRU) restore into nn::LSTM and nn::Bidirectional") {
  const std::string dir = testing::Testdata("interop", "keras_checkpoints/recurrent");
  const std::string outputs = dir + "/output.txt";
  const std::vector<double> input = FixtureValues(outputs, "input");
  const Tensor x = from_vector(std::vector<float>(input.begin(), input.end()), {2, 4, 5});
  Recurrent model;
  Checkpoint ckpt({{"model", &model}});
  auto status = ckpt.restore(latest_checkpoint(dir));
  const Tensor y = model(x);  // builds the layers: their values arrive as they are made
  CheckAgainst(dir + "/values.txt", {{"model", &model}}, 0);
  status.assert_consumed();
  const std::vector<double> expected = FixtureValues(outputs, "output");
  const std::vector<double> got = ToDoubles(y);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).margin(1e-6));
}

}  // namespace
}  // namespace duet
