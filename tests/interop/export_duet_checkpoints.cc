// Writes checkpoints of duet MLPs trained two Adam steps, for check_duet_checkpoints_in_tf.py:
//   DIR/<case>/ckpt-1   the checkpoint (Checkpoint::save)
//   DIR/<case>/values   "key<TAB>file.npy" for every variable, its value as duet holds it
// Cases: "sequential" (nn::Sequential) and "subclassed" (a module with members d1, d2), the
// counterparts of keras.Sequential and a keras.Model subclass with attributes d1, d2.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "duet.h"
#include "io/checkpoint/object_graph.h"

namespace duet {
namespace {

struct MLP : nn::Module {
  nn::Dense d1{this, "d1", 4, Activation::kRelu}, d2{this, "d2", 2};
  Tensor operator()(const Tensor& x) { return d2(d1(x)); }
};

template <typename Model>
void Export(const std::filesystem::path& dir, Model& model) {
  const Tensor x = constant<float>({0.5f, -1.f, 2.f, 1.5f, 0.f, -0.5f}, {2, 3});
  const Tensor y = constant<int64_t>({1, 0});
  optimizers::Adam opt(0.01);
  model(x);
  for (int step = 0; step < 2; ++step) {
    opt.minimize([&] { return losses::sparse_categorical_crossentropy(y, model(x), true); },
                 model.trainable_variables());
  }
  std::filesystem::create_directories(dir);
  Checkpoint ckpt({{"model", &model}, {"optimizer", &opt}});
  ckpt.save((dir / "ckpt").string());
  std::ofstream manifest(dir / "values");
  int i = 0;
  for (const auto& saved :
       checkpoint_internal::BuildObjectGraph(
           {{"model", &model}, {"optimizer", &opt}, {"save_counter", &ckpt.save_counter()}})
           .variables) {
    const std::string file = "value_" + std::to_string(i++) + ".npy";
    const absl::Status written = WriteNpy(saved.variable.value(), (dir / file).string());
    if (!written.ok()) throw Error(written);
    manifest << saved.key << "\t" << file << "\n";
  }
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: export_duet_checkpoints DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  duet::nn::Sequential sequential({std::make_shared<duet::nn::Dense>(4, duet::Activation::kRelu),
                                   std::make_shared<duet::nn::Dense>(2)});
  duet::Export(dir / "sequential", sequential);
  duet::MLP subclassed;
  duet::Export(dir / "subclassed", subclassed);
  return 0;
}
