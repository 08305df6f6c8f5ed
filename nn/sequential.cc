#include "nn/sequential.h"

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

Tensor Sequential::call(const Tensor& x, bool training, OpSite site) {
  Tensor y = x;
  for (const auto& layer : layers_) y = (*layer)(y, training, site);
  return y;
}

}  // namespace duet::nn
