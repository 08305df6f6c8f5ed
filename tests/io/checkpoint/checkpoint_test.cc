// Object-based checkpoints: what Checkpoint writes (keys, object graph), restore by object path,
// deferred restoration, the directory's "checkpoint" file, CheckpointManager, and the errors.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "duet.h"
#include "io/checkpoint/tensor_bundle.h"
#include "proto/trackable_object_graph.pb.h"
#include "tests/test_util.h"

namespace duet {
namespace {

namespace fs = std::filesystem;
using testing::ToDoubles;

struct MLP : nn::Module {
  nn::Dense d1{this, "d1", 4, Activation::kRelu}, d2{this, "d2", 2};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

// The same model with its members declared the other way round: variables are made in another
// order, but their paths are the same.
struct ReversedMLP : nn::Module {
  nn::Dense d2{this, "d2", 2}, d1{this, "d1", 4, Activation::kRelu};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

std::string TempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(root != nullptr ? root : "/tmp") / "checkpoint_test" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

const Tensor kX = constant<float>({0.5f, -1.f, 2.f, 1.5f, 0.f, -0.5f}, {2, 3});
const Tensor kY = constant<int64_t>({1, 0});

template <typename Model>
void TrainStep(Model& model, optimizers::Optimizer& opt) {
  model(kX);  // built, so that trainable_variables() lists the variables
  opt.minimize([&] { return losses::sparse_categorical_crossentropy(kY, model(kX), true); },
               model.trainable_variables());
}

void CheckSameValues(const std::vector<Variable>& a, const std::vector<Variable>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].name() << " vs " << b[i].name());
    CHECK(ToDoubles(a[i].value()) == ToDoubles(b[i].value()));
  }
}

TEST_CASE("Checkpoint writes TensorFlow's keys and object graph") {
  MLP model;
  optimizers::Adam opt(0.01);
  TrainStep(model, opt);
  Checkpoint ckpt({{"model", &model}, {"optimizer", &opt}});
  const std::string dir = TempDir("keys");
  CHECK(ckpt.save(dir + "/ckpt") == dir + "/ckpt-1");
  CHECK(ckpt.save(dir + "/ckpt") == dir + "/ckpt-2");
  CHECK(latest_checkpoint(dir) == dir + "/ckpt-2");

  io::BundleReader reader(dir + "/ckpt-2");
  const std::vector<std::string> expected = {
      "_CHECKPOINTABLE_OBJECT_GRAPH",
      "model/d1/bias/.ATTRIBUTES/VARIABLE_VALUE",
      "model/d1/kernel/.ATTRIBUTES/VARIABLE_VALUE",
      "model/d2/bias/.ATTRIBUTES/VARIABLE_VALUE",
      "model/d2/kernel/.ATTRIBUTES/VARIABLE_VALUE",
      "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE",
  };
  std::vector<std::string> keys = reader.keys();
  for (const std::string& key : expected) {
    INFO(key);
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  }
  // Adam's m and v of 4 variables, as "_variables/1" ... "_variables/8" (0 is the step).
  for (int i = 1; i <= 8; ++i) {
    CHECK(reader.contains("optimizer/_variables/" + std::to_string(i) +
                          "/.ATTRIBUTES/VARIABLE_VALUE"));
  }
  CHECK_FALSE(reader.contains("optimizer/_variables/9/.ATTRIBUTES/VARIABLE_VALUE"));
  CHECK(reader.read("save_counter/.ATTRIBUTES/VARIABLE_VALUE").item<int64_t>() == 2);
  CHECK(reader.read("model/d1/kernel/.ATTRIBUTES/VARIABLE_VALUE").to_vector<float>() ==
        model.d1.kernel().value().to_vector<float>());

  tensorflow::TrackableObjectGraph graph;
  REQUIRE(graph.ParseFromString(reader.read("_CHECKPOINTABLE_OBJECT_GRAPH").item<std::string>()));
  const auto& root = graph.nodes(0);
  REQUIRE(root.children_size() == 3);
  CHECK(root.children(0).local_name() == "model");
  CHECK(root.children(1).local_name() == "optimizer");
  CHECK(root.children(2).local_name() == "save_counter");
  // Slots are listed by position, as Keras lists them, named after their variable.
  const auto& optimizer = graph.nodes(root.children(1).node_id());
  CHECK(optimizer.slot_variables_size() == 0);  // Keras 2.11+ refuses those
  int list = -1;
  for (const auto& child : optimizer.children()) {
    if (child.local_name() == "_variables") list = child.node_id();
  }
  REQUIRE(list >= 0);
  const auto& first_slot = graph.nodes(graph.nodes(list).children(1).node_id());
  CHECK(first_slot.attributes(0).full_name() == "d1/kernel/m");
  CHECK(first_slot.attributes(0).checkpoint_key() ==
        "optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE");
}

TEST_CASE("Sequential's layers are 'layer-<i>' and 'layer_with_weights-<j>', as in Keras") {
  nn::Sequential model({std::make_shared<nn::Dense>(4, Activation::kRelu),
                        std::make_shared<nn::Flatten>(), std::make_shared<nn::Dense>(2)});
  model(kX);
  Checkpoint ckpt({{"model", &model}});
  const std::string path = ckpt.write(TempDir("sequential") + "/ckpt");
  io::BundleReader reader(path);
  CHECK(reader.contains("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"));
  CHECK(reader.contains("model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE"));

  nn::Sequential restored({std::make_shared<nn::Dense>(4, Activation::kRelu),
                           std::make_shared<nn::Flatten>(), std::make_shared<nn::Dense>(2)});
  Checkpoint ckpt2({{"model", &restored}});
  auto status = ckpt2.restore(path);
  restored(kX);  // builds the layers, which take their values as they are made
  status.assert_consumed();
  CheckSameValues(model.variables(), restored.variables());
}

TEST_CASE("restore matches by object path and resumes training exactly") {
  MLP model;
  optimizers::Adam opt(0.01);
  TrainStep(model, opt);
  TrainStep(model, opt);
  Checkpoint ckpt({{"model", &model}, {"optimizer", &opt}});
  const std::string path = ckpt.save(TempDir("resume") + "/ckpt");

  SECTION("into built objects") {
    ReversedMLP other;
    optimizers::Adam other_opt(0.01);
    other(kX);
    Checkpoint restore({{"optimizer", &other_opt}, {"model", &other}});  // roots in another order
    auto status = restore.restore(path);
    CHECK(other_opt.iterations().value().item<int64_t>() == 2);
    CHECK(other.d1.kernel().value().to_vector<float>() ==
          model.d1.kernel().value().to_vector<float>());
    // The slots are made on the first update and take their values then.
    TrainStep(other, other_opt);
    TrainStep(model, opt);
    status.assert_consumed();
    CHECK(other.d1.kernel().value().to_vector<float>() ==
          model.d1.kernel().value().to_vector<float>());
    CHECK(other_opt.slot(other.d2.bias(), "v").value().to_vector<float>() ==
          opt.slot(model.d2.bias(), "v").value().to_vector<float>());
  }
  SECTION("deferred: into a model not built yet, inside a traced step") {
    MLP fresh;
    optimizers::Adam fresh_opt(0.01);
    Checkpoint restore({{"model", &fresh}, {"optimizer", &fresh_opt}});
    auto status = restore.restore(path);
    CHECK_THROWS_WITH(status.assert_consumed(), Catch::Contains("model/d1/kernel"));
    status.assert_existing_objects_matched();  // the step counter: the only variable so far
    auto step = duet::function([&](const Tensor& x) {
      GradientTape tape;
      const Tensor loss = losses::sparse_categorical_crossentropy(kY, fresh(x), true);
      return fresh_opt.apply_gradients(tape.gradient(loss, fresh.trainable_variables()),
                                       fresh.trainable_variables());
    });
    step(kX);
    TrainStep(model, opt);
    status.assert_consumed();
    CheckSameValues(fresh.variables(), model.variables());
    CheckSameValues(fresh_opt.variables(), opt.variables());
  }
}

// A module whose variable is made on demand by an initializer that counts its runs.
struct Lazy : nn::Module {
  int initializer_runs = 0;
  Variable w;
  void build() {
    w = add_variable("w", {2, 3}, kFloat32, [this](const Shape& shape, DType dtype) {
      ++initializer_runs;
      return zeros(shape, dtype);
    });
  }
};

TEST_CASE("a variable made after restore starts from the checkpoint, its initializer not run") {
  Lazy saved;
  saved.build();
  saved.w.assign(constant<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  Checkpoint ckpt({{"m", &saved}});
  const std::string path = ckpt.write(TempDir("initial_value") + "/ckpt");

  Lazy lazy;
  Checkpoint restore({{"m", &lazy}});
  auto status = restore.restore(path);
  lazy.build();
  CHECK(lazy.initializer_runs == 0);
  CHECK(lazy.w.value().to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  status.assert_consumed();

  struct Other : nn::Module {
    Variable w;
    void build() { w = add_variable("w", {3, 2}, kFloat32, initializers::zeros()); }
  } other;
  Checkpoint mismatched({{"m", &other}});
  auto partial = mismatched.restore(path);
  CHECK_THROWS_WITH(other.build(), Catch::Contains("'m/w' holds float32 (2, 3)") &&
                                       Catch::Contains("is float32 (3, 2)"));
  partial.expect_partial();
}

TEST_CASE("restore reports what did not match, by path") {
  MLP model;
  optimizers::SGD opt(0.1);
  TrainStep(model, opt);
  Checkpoint ckpt({{"model", &model}, {"optimizer", &opt}});
  const std::string path = ckpt.write(TempDir("partial") + "/ckpt");

  struct Half : nn::Module {
    nn::Dense d1{this, "d1", 4, Activation::kRelu};
    nn::Dense extra{this, "extra", 3};
  } half;
  half.d1(kX);
  half.extra(kX);
  Checkpoint partial({{"model", &half}});
  auto status = partial.restore(path);
  CHECK(ToDoubles(half.d1.kernel()) == ToDoubles(model.d1.kernel()));
  CHECK_THROWS_WITH(status.assert_consumed(), Catch::Contains("model/d2/kernel"));
  CHECK_THROWS_WITH(status.assert_existing_objects_matched(),
                    Catch::Contains("model/extra/kernel"));
  status.expect_partial();
}

TEST_CASE("a restore's status works after its Checkpoint is gone") {
  MLP model;
  model(kX);
  const std::string path = Checkpoint({{"model", &model}}).write(TempDir("status") + "/ckpt");
  MLP other;
  other(kX);
  auto status = Checkpoint({{"model", &other}}).restore(path);  // the Checkpoint is destroyed
  status.assert_consumed();  // reads the roots, the save_counter included
  CheckSameValues(other.variables(), model.variables());
}

TEST_CASE("restore errors name the checkpoint, the path and both shapes") {
  MLP model;
  model(kX);
  Checkpoint ckpt({{"model", &model}});
  const std::string dir = TempDir("errors");
  const std::string path = ckpt.write(dir + "/ckpt");

  struct Wider : nn::Module {
    nn::Dense d1{this, "d1", 5, Activation::kRelu}, d2{this, "d2", 2};
  } wider;
  wider.d1(kX);
  Checkpoint wrong({{"model", &wider}});
  CHECK_THROWS_WITH(wrong.restore(path), Catch::Contains("model/d1/kernel") &&
                                             Catch::Contains("(3, 4)") &&
                                             Catch::Contains("(3, 5)") && Catch::Contains(path));
  CHECK_THROWS_WITH(ckpt.restore(dir + "/missing"), Catch::Contains(dir + "/missing"));
  CHECK(latest_checkpoint(dir + "/empty") == "");
  auto nothing = ckpt.restore(latest_checkpoint(dir + "/empty"));
  CHECK_THROWS_WITH(nothing.assert_consumed(), Catch::Contains("no checkpoint was restored"));
}

TEST_CASE("CheckpointManager keeps the newest max_to_keep and picks up its directory") {
  Variable step(scalar(0, kInt64), "step", false);
  Checkpoint ckpt({{"step", &step}});
  const std::string dir = TempDir("manager");
  {
    CheckpointManager manager(ckpt, dir, /*max_to_keep=*/2);
    CHECK(manager.latest_checkpoint() == "");
    for (int i = 1; i <= 4; ++i) {
      step.assign(scalar(10 * i, kInt64));
      CHECK(manager.save() == dir + "/ckpt-" + std::to_string(i));
    }
    CHECK(manager.checkpoints() == std::vector<std::string>{dir + "/ckpt-3", dir + "/ckpt-4"});
    CHECK_FALSE(fs::exists(dir + "/ckpt-2.index"));
    CHECK_FALSE(fs::exists(dir + "/ckpt-2.data-00000-of-00001"));
    CHECK(fs::exists(dir + "/ckpt-3.index"));
  }
  CHECK(latest_checkpoint(dir) == dir + "/ckpt-4");

  Variable step2(scalar(0, kInt64), "step", false);
  Checkpoint ckpt2({{"step", &step2}});
  CheckpointManager again(ckpt2, dir, 2);
  CHECK(again.checkpoints().size() == 2);
  ckpt2.restore(again.latest_checkpoint()).assert_consumed();
  CHECK(step2.value().item<int64_t>() == 40);
  CHECK(ckpt2.save_counter().value().item<int64_t>() == 4);  // restored: numbering goes on
  CHECK(again.save() == dir + "/ckpt-5");
}

TEST_CASE("a CheckpointManager whose counter starts again overwrites, never deletes, the latest") {
  const std::string dir = TempDir("manager_restart");
  Variable step(scalar(1, kInt64), "step", false);
  {
    Checkpoint ckpt({{"step", &step}});
    CheckpointManager manager(ckpt, dir, 2);
    manager.save();
    manager.save();
  }
  Checkpoint fresh({{"step", &step}});  // not restored: its save_counter is 0 again
  CheckpointManager manager(fresh, dir, 2);
  CHECK(manager.save() == dir + "/ckpt-1");
  CHECK(manager.checkpoints() == std::vector<std::string>{dir + "/ckpt-2", dir + "/ckpt-1"});
  CHECK(latest_checkpoint(dir) == dir + "/ckpt-1");
  CHECK(fs::exists(dir + "/ckpt-1.index"));
}

}  // namespace
}  // namespace duet
