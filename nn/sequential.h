// nn::Sequential: layers applied one after another; it holds them and names them by their
// default names made unique ("dense", "dense_1", ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nn/layer.h"

namespace duet::nn {

class Sequential : public Layer {
 public:
  explicit Sequential(std::vector<std::shared_ptr<Layer>> layers = {},
                      std::string name = "sequential");
  Sequential(Module* parent, std::string name, std::vector<std::shared_ptr<Layer>> layers = {});

  // Appends a layer; returns *this.
  Sequential& add(std::shared_ptr<Layer> layer);
  const std::vector<std::shared_ptr<Layer>>& layers() const { return layers_; }
  // Keras' names: "layer-<i>" for every layer and "layer_with_weights-<j>" for those with
  // variables, so a checkpoint of a keras.Sequential restores into the same layers.
  std::vector<std::pair<std::string, Module*>> checkpoint_children() const override;

 protected:
  Tensor call(const Tensor& x, bool training, OpSite site) override;

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

}  // namespace duet::nn
