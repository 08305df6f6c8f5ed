#include "nn/sequential.h"

#include "absl/strings/str_cat.h"

namespace duet::nn {

Sequential::Sequential(std::vector<std::shared_ptr<Layer>> layers, std::string name)
    : Sequential(nullptr, std::move(name), std::move(layers)) {}

Sequential::Sequential(Module* parent, std::string name, std::vector<std::shared_ptr<Layer>> layers)
    : Layer(parent, std::move(name)) {
  for (auto& layer : layers) add(std::move(layer));
}

Sequential& Sequential::add(std::shared_ptr<Layer> layer) {
  add_module(layer);
  layers_.push_back(std::move(layer));
  return *this;
}

std::vector<std::pair<std::string, Module*>> Sequential::checkpoint_children() const {
  std::vector<std::pair<std::string, Module*>> out;
  int with_weights = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (!layers_[i]->variables().empty()) {
      out.emplace_back(absl::StrCat("layer_with_weights-", with_weights++), layers_[i].get());
    }
    out.emplace_back(absl::StrCat("layer-", i), layers_[i].get());
  }
  return out;
}

Tensor Sequential::call(const Tensor& x, bool training, OpSite site) {
  Tensor y = x;
  for (const auto& layer : layers_) y = (*layer)(y, training, site);
  return y;
}

}  // namespace duet::nn
