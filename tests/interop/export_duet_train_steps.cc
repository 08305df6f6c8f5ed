// Writes traced training steps for TensorFlow to run (tf_train_step_test.sh): for each optimizer,
// NAME.pb (the step's optimized GraphDef, variables as VarHandleOps and the updates as
// TensorFlow's fused ResourceApply* ops), NAME_x.npy and NAME_y.npy (the batch), NAME_loss.npy
// (duet's loss), and NAME.vars: one line per variable, "shared_name<TAB>before.npy<TAB>after.npy"
// with its values before and after duet ran the step once.
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

#include "absl/strings/str_replace.h"
#include "duet.h"

namespace duet {
namespace {

// BatchNorm first: a layer before it would get gradients that are mathematically zero (its bias)
// or small differences of large terms, whose float noise Adam and RMSProp magnify into updates
// that differ between any two implementations.
struct Model : nn::Module {
  nn::BatchNorm norm{this, "norm"};
  nn::Dense hidden{this, "hidden", 8, Activation::kRelu};
  nn::Dense out{this, "out", 3};
  Tensor operator()(const Tensor& x, bool training) { return out(hidden(norm(x, training))); }
};

void Save(const Tensor& t, const std::string& path) {
  if (!WriteNpy(t, path).ok()) throw Error(absl::UnavailableError("cannot write " + path));
}

void ExportStep(const std::string& dir, const std::string& name,
                std::unique_ptr<optimizers::Optimizer> opt) {
  Model model;
  auto step = duet::function([&](const Tensor& x, const Tensor& y) {
    GradientTape tape;
    const Tensor loss = losses::sparse_categorical_crossentropy(y, model(x, true), true);
    opt->apply_gradients(tape.gradient(loss, model.trainable_variables()),
                         model.trainable_variables());
    return loss;
  });
  const Tensor x = random_normal({5, 6}, 1), y = constant({0, 2, 1, 1, 0});
  // Tracing makes the variables and slots; the values before the step are their initial ones.
  const tensorflow::GraphDef graph_def = step.graph_def(x, y);
  std::vector<Variable> vars = model.variables();
  for (const Variable& v : opt->variables()) vars.push_back(v);
  std::vector<Tensor> before;
  for (const Variable& v : vars) before.push_back(v.value());
  const Tensor loss = step(x, y);
  std::ofstream(dir + "/" + name + ".pb", std::ios::binary) << graph_def.SerializeAsString();
  Save(x, dir + "/" + name + "_x.npy");
  Save(y, dir + "/" + name + "_y.npy");
  Save(loss, dir + "/" + name + "_loss.npy");
  std::ofstream manifest(dir + "/" + name + ".vars");
  for (size_t i = 0; i < vars.size(); ++i) {
    const std::string file = name + "_" + absl::StrReplaceAll(vars[i].name(), {{"/", "__"}});
    Save(before[i], dir + "/" + file + "_before.npy");
    Save(vars[i].value(), dir + "/" + file + "_after.npy");
    manifest << vars[i].name() << "\t" << file << "_before.npy\t" << file << "_after.npy\n";
  }
}

}  // namespace
}  // namespace duet

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: export_duet_train_steps OUTPUT_DIR\n";
    return 2;
  }
  using namespace duet::optimizers;  // NOLINT(google-build-using-namespace)
  const std::string dir = argv[1];
  try {
    duet::ExportStep(dir, "sgd", std::make_unique<SGD>(0.1));
    duet::ExportStep(dir, "sgd_nesterov", std::make_unique<SGD>(0.1, 0.9, true));
    duet::ExportStep(dir, "adam", std::make_unique<Adam>(0.01));
    duet::ExportStep(dir, "adam_amsgrad",
                     std::make_unique<Adam>(0.01, AdamOptions{.amsgrad = true}));
    duet::ExportStep(dir, "adamw", std::make_unique<AdamW>(0.01, 0.1));
    duet::ExportStep(dir, "rmsprop",
                     std::make_unique<RMSProp>(0.01, RMSPropOptions{.momentum = 0.5}));
    duet::ExportStep(dir, "rmsprop_centered",
                     std::make_unique<RMSProp>(0.01, RMSPropOptions{.centered = true}));
    duet::ExportStep(dir, "adagrad", std::make_unique<Adagrad>(0.1));
  } catch (const duet::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
