// SavedModels in: Keras' model.export of an MLP and a CNN (testdata/keras_saved_models, made by
// make_keras_saved_models.py) load and serve TensorFlow's outputs; duet's own export loads back.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensorNear;

Tensor Npy(const std::string& path) { return ValueOrThrow(ReadNpy(path)); }

void ServesKerasOutputs(const std::string& name) {
  const std::string dir = testing::Testdata("interop", "keras_saved_models/" + name);
  CHECK(saved_model::is_saved_model(dir + "/model"));
  const saved_model::LoadedModel loaded = saved_model::load(dir + "/model");
  CHECK(loaded.signatures() == std::vector<std::string>{"serve", "serving_default"});
  const auto& inputs = loaded.signature_def("serving_default").inputs();
  REQUIRE(inputs.size() == 1);
  const std::string input = inputs.begin()->first;  // Keras names it after the Input layer
  const auto outputs = loaded.call("serving_default", {{input, Npy(dir + "/x.npy")}});
  REQUIRE(outputs.size() == 1);
  ExpectTensorNear(outputs.at("output_0"), Npy(dir + "/y.npy"), 1e-5);
  // The graph holds the variables as variables (restored once), not constants.
  int variables = 0;
  for (const Node* node : loaded.graph().nodes()) variables += node->op().name == "VarHandleOp";
  CHECK(variables > 0);
}

TEST_CASE("Keras' exported MLP serves TensorFlow's outputs") { ServesKerasOutputs("mlp"); }

TEST_CASE("Keras' exported CNN (conv, batch norm, pooling) serves TensorFlow's outputs") {
  ServesKerasOutputs("cnn");
}

TEST_CASE("a SavedModel duet exported loads back and serves the same outputs") {
  nn::Sequential model(
      {std::make_shared<nn::Dense>(5, Activation::kRelu), std::make_shared<nn::Dense>(2)});
  const Tensor x = random_normal({3, 4}, 1);
  auto serve = duet::function([&](const Tensor& images) { return softmax(model(images)); });
  const Tensor expected = serve(x);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/duet_saved_model";
  std::filesystem::remove_all(dir);
  saved_model::save(dir, serve, {{"serving_default", {x}}});
  const saved_model::LoadedModel loaded = saved_model::load(dir);
  ExpectTensorNear(loaded.call("serving_default", {{"x", x}}).at("output_0"), expected, 1e-6);

  CHECK_THROWS_WITH(loaded.call("predict", {{"x", x}}), Catch::Contains("no signature 'predict'") &&
                                                            Catch::Contains("serving_default"));
  CHECK_THROWS_WITH(loaded.call("serving_default", {{"images", x}}),
                    Catch::Contains("no input 'images'") && Catch::Contains("x"));
  CHECK_THROWS_WITH(saved_model::load(dir + "/missing"),
                    Catch::Contains(dir + "/missing/saved_model.pb"));
}

}  // namespace
}  // namespace duet
