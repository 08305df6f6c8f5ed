#include "nn/reshaping.h"

#include "ops/array/array_ops.h"

namespace duet::nn {

Flatten::Flatten(Module* parent, std::string name) : Layer(parent, std::move(name)) {}
Flatten::Flatten() : Flatten(nullptr) {}

Tensor Flatten::call(const Tensor& x, bool, OpSite site) {
  int64_t features = 1;
  for (int i = 1; i < x.rank(); ++i) {
    if (x.shape().dim(i) < 0)
      Fail("needs every dim but the batch known, got " + x.shape().str(), site);
    features *= x.shape().dim(i);
  }
  return reshape(x, Shape{-1, features}, site);
}

Reshape::Reshape(Module* parent, std::string name, std::vector<int64_t> target_shape)
    : Layer(parent, std::move(name)), target_shape_(std::move(target_shape)) {}
Reshape::Reshape(std::vector<int64_t> target_shape)
    : Reshape(nullptr, "reshape", std::move(target_shape)) {}

Tensor Reshape::call(const Tensor& x, bool, OpSite site) {
  // The batch dim is the -1 of the Reshape op, so a -1 in the target is resolved here from the
  // input's other dims, which must then be known (as Keras does).
  int64_t features = 1, known = 1, unknown_at = -1;
  for (int i = 1; i < x.rank(); ++i) features *= x.shape().dim(i) < 0 ? -1 : x.shape().dim(i);
  std::vector<int64_t> dims = {-1};
  for (size_t i = 0; i < target_shape_.size(); ++i) {
    if (target_shape_[i] < 0) unknown_at = static_cast<int64_t>(dims.size());
    if (target_shape_[i] >= 0) known *= target_shape_[i];
    dims.push_back(target_shape_[i]);
  }
  if (unknown_at >= 0) {
    if (features < 0 || known == 0 || features % known != 0) {
      Fail("cannot fill the -1 of its target shape from an input of shape " + x.shape().str(),
           site);
    }
    dims[unknown_at] = features / known;
  }
  return reshape(x, Shape(dims), site);
}

}  // namespace duet::nn
