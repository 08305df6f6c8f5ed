// nn::Layer: a module that maps a tensor to a tensor, builds its variables on its first call from
// the input's shape, and takes a `training` flag (Dropout and BatchNorm behave differently).
#pragma once

#include <optional>
#include <string>

#include "core/shape.h"
#include "core/tensor.h"
#include "nn/module.h"
#include "ops/op_site.h"

namespace duet::nn {

// What a layer accepts, checked on every call (Keras' InputSpec): an exact or minimum rank, and
// whether the last dim (features, channels) must stay what the layer was built for.
struct InputSpec {
  std::optional<int> rank;
  int min_rank = 0;
  bool fixed_last_dim = false;
};

// Note [Layers build on first call]: the first call records the input's shape (batch dim
// unknown) and runs build(), which makes the variables from it; later calls must fit that shape
// (InputSpec), else an Error names the layer's path, the shape it was built for, the shape it
// got and the caller's line. Nodes a layer adds to a graph are named under its name
// ("d1/MatMul"). Variables are made eagerly even when the first call is inside a traced function
// or a GraphScope (nn/module.h), so a traced first call works.
class Layer : public Module {
 public:
  using Module::Module;

  Tensor operator()(const Tensor& x, bool training = false, OpSite site = {});

  bool built() const { return built_input_.has_value(); }
  // The input shape the layer was built for, with an unknown (-1) batch dim.
  const Shape& built_input_shape() const;
  // The dtype of its variables: the first input's, when a float type, else float32.
  DType dtype() const { return dtype_; }

 protected:
  virtual InputSpec input_spec() const { return {}; }
  // Makes the variables for inputs of `input_shape` (batch dim unknown). Called once.
  virtual void build(const Shape& input_shape) {}
  virtual Tensor call(const Tensor& x, bool training, OpSite site) = 0;

  // What operator() does before call(): checks x against input_spec() and the built shape, and
  // builds the layer on its first input. For layers with further entry points (nn::LSTM's
  // call_with_state), which then open their NameScope and compute.
  void CheckAndBuild(const Tensor& x, const OpSite& site);

  // An InvalidArgument Error about this layer: "layer 'model/conv2' <what> (at file.cc:12)".
  [[noreturn]] void Fail(const std::string& what, const OpSite& site) const;

 private:
  void CheckInput(const Shape& shape, const OpSite& site) const;

  std::optional<Shape> built_input_;
  DType dtype_ = kFloat32;
};

}  // namespace duet::nn
