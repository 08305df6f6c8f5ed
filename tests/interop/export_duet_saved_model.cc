// Writes a SavedModel of a small trained CNN for check_duet_saved_model_in_tf.py:
//   DIR/model/        saved_model::save of the probabilities with two signatures:
//                     "serving_default" (a batch of 4) and "single" (a batch of 1), input "x"
//   DIR/x.npy, DIR/probabilities.npy   an input batch and duet's outputs for it
//   DIR/num_variables the number of variables the model has
#include <filesystem>
#include <fstream>
#include <iostream>

#include "duet.h"

namespace duet {
namespace {

struct CNN : nn::Module {
  nn::Conv2D conv{this, "conv", 4, 3, {.padding = "same"}};
  nn::BatchNorm norm{this, "norm"};
  nn::MaxPool2D pool{this, "pool"};
  nn::Flatten flatten{this};
  nn::Dense head{this, "head", 3};
  Tensor operator()(const Tensor& x, bool training = false) {
    return head(flatten(pool(relu(norm(conv(x), training)))));
  }
};

void Save(const Tensor& t, const std::filesystem::path& path) {
  const absl::Status status = WriteNpy(t, path.string());
  if (!status.ok()) throw Error(status);
}

void Export(const std::filesystem::path& dir) {
  CNN model;
  optimizers::Adam opt(0.01);
  const Tensor x = random_normal({4, 8, 8, 1}, 3);
  const Tensor labels = constant<int64_t>({0, 1, 2, 1});
  model(x);
  for (int step = 0; step < 3; ++step) {  // trained: BatchNorm's moving statistics moved
    GradientTape tape;
    const Tensor loss = losses::sparse_categorical_crossentropy(labels, model(x, true), true);
    opt.apply_gradients(tape.gradient(loss, model.trainable_variables()),
                        model.trainable_variables());
  }
  auto probabilities = duet::function([&](const Tensor& images) { return softmax(model(images)); });
  std::filesystem::create_directories(dir);
  // Two traced signatures of one function: two graphs in one SavedModel, sharing the variables.
  const Tensor one = slice(x, {0, 0, 0, 0}, {1, 8, 8, 1});
  saved_model::save((dir / "model").string(), probabilities,
                    {{"serving_default", {x}}, {"single", {one}}});
  Save(x, dir / "x.npy");
  Save(probabilities(x), dir / "probabilities.npy");
  std::ofstream(dir / "num_variables") << model.variables().size() << "\n";
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: export_duet_saved_model DIR\n";
    return 2;
  }
  duet::Export(argv[1]);
  return 0;
}
