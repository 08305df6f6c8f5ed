// nn::Module: path names, the order of variables, trainable and frozen variables, adopted
// children and their names, and the errors of a malformed tree.
#include <catch2/catch.hpp>
#include <type_traits>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;

static_assert(!std::is_copy_constructible_v<nn::Module>);
static_assert(!std::is_move_constructible_v<nn::Module>);

std::vector<std::string> Names(const std::vector<Variable>& vars) {
  std::vector<std::string> names;
  for (const Variable& v : vars) names.push_back(v.name());
  return names;
}

struct Encoder : nn::Module {
  Encoder(nn::Module* parent, std::string name) : nn::Module(parent, std::move(name)) {}
  nn::Dense dense_1{this, "dense_1", 4, Activation::kRelu};
  nn::BatchNorm norm{this, "norm"};
  Tensor operator()(const Tensor& x, bool training) { return norm(dense_1(x), training); }
};

struct Model : nn::Module {
  Encoder encoder{this, "encoder"};
  nn::Dense head{this, "head", 2};
  Tensor operator()(const Tensor& x, bool training = false) { return head(encoder(x, training)); }
};

TEST_CASE("Variables have path names and a fixed order; moving statistics are not trainable") {
  Model model;
  model(ones({3, 5}));
  CHECK(Names(model.variables()) ==
        std::vector<std::string>{"encoder/dense_1/kernel", "encoder/dense_1/bias",
                                 "encoder/norm/gamma", "encoder/norm/beta",
                                 "encoder/norm/moving_mean", "encoder/norm/moving_variance",
                                 "head/kernel", "head/bias"});
  CHECK(Names(model.trainable_variables()) ==
        std::vector<std::string>{"encoder/dense_1/kernel", "encoder/dense_1/bias",
                                 "encoder/norm/gamma", "encoder/norm/beta", "head/kernel",
                                 "head/bias"});
  CHECK(Names(model.non_trainable_variables()) ==
        std::vector<std::string>{"encoder/norm/moving_mean", "encoder/norm/moving_variance"});
  CHECK(model.encoder.dense_1.path() == "encoder/dense_1");
  CHECK(model.children().size() == 2);
  CHECK(model.encoder.own_variables().empty());
}

TEST_CASE("A frozen module's variables are not trainable") {
  Model model;
  model(ones({3, 5}));
  model.encoder.set_trainable(false);
  CHECK(Names(model.trainable_variables()) == std::vector<std::string>{"head/kernel", "head/bias"});
  CHECK(model.non_trainable_variables().size() == 6);
  CHECK(!model.encoder.dense_1.trainable());
  model.encoder.set_trainable(true);
  CHECK(model.trainable_variables().size() == 6);
}

TEST_CASE("A GradientTape over trainable_variables() trains the layers") {
  Model model;
  const Tensor x = ones({3, 5});
  GradientTape tape;
  const Tensor loss = reduce_sum(square(model(x, true)));
  const std::vector<Tensor> grads = tape.gradient(loss, model.trainable_variables());
  REQUIRE(grads.size() == 6);
  for (size_t i = 0; i < grads.size(); ++i) {
    CHECK(grads[i].defined());
    CHECK(grads[i].shape() == model.trainable_variables()[i].shape());
  }
}

TEST_CASE("A malformed tree is a clear error") {
  struct Twins : nn::Module {
    nn::Dense a{this, "same", 1};
    nn::Dense b{this, "same", 1};
  };
  ExpectError([] { Twins twins; }, {"already has a child called 'same'"});
}

// A front end's module: children and variables assigned at run time (python/src/nn.cc).
struct Dynamic : nn::Module {
  using nn::Module::add_module;
  using nn::Module::add_variable;
  using nn::Module::Module;
  using nn::Module::remove;
};

TEST_CASE("Adopted variables keep their names; removed children become roots") {
  auto child = std::make_shared<nn::Dense>(2);
  Variable scale(ones({2}), "scale");
  {
    Dynamic model;
    model.add_variable("s", scale);
    CHECK(model.add_module(child, "head") == "head");
    model.add_module(std::make_shared<nn::Dense>(3));
    (*child)(ones({1, 4}));
    CHECK(Names(model.variables()) ==
          std::vector<std::string>{"scale", "head/kernel", "head/bias"});
    CHECK(model.own_variables()[0].first == "s");
    ExpectError([&] { model.add_variable("s", scale); }, {"already has a variable called 's'"});
    CHECK(child->path() == "head");
    CHECK(model.remove("dense"));
    CHECK(model.children().size() == 1);
    CHECK(!model.remove("missing"));
  }
  // The model is gone; the child a caller still holds is a root again.
  CHECK(child->parent() == nullptr);
  CHECK(child->path() == "head");
  Dynamic other;
  other.add_module(child, "reused");
  CHECK(other.remove("reused"));
  CHECK(child->parent() == nullptr);
}

}  // namespace
}  // namespace duet
