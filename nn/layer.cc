#include "nn/layer.h"

#include "absl/strings/str_cat.h"
#include "core/error.h"
#include "eager/device_scope.h"
#include "graph/graph_context.h"

namespace duet::nn {

const Shape& Layer::built_input_shape() const {
  if (!built_input_)
    throw Error(absl::FailedPreconditionError("layer '" + path() + "' is not built"));
  return *built_input_;
}

void Layer::Fail(const std::string& what, const OpSite& site) const {
  throw Error(absl::InvalidArgumentError(absl::StrCat("layer '", path().empty() ? name() : path(),
                                                      "' ", what, " (at ", site.str(), ")")));
}

void Layer::CheckInput(const Shape& shape, const OpSite& site) const {
  const InputSpec spec = input_spec();
  if (shape.unknown_rank()) Fail("needs an input of known rank", site);
  if (spec.rank && shape.rank() != *spec.rank) {
    Fail(absl::StrCat("expects a rank-", *spec.rank, " input, got shape ", shape.str()), site);
  }
  if (shape.rank() < spec.min_rank) {
    Fail(absl::StrCat("expects an input of rank >= ", spec.min_rank, ", got shape ", shape.str()),
         site);
  }
  if (spec.fixed_last_dim && shape.dim(shape.rank() - 1) < 0) {
    Fail(absl::StrCat("needs a known last dim, got shape ", shape.str()), site);
  }
  if (!built_input_) return;
  const Shape& built = *built_input_;
  const bool same_rank = shape.rank() == built.rank();
  if (!same_rank ||
      (spec.fixed_last_dim && shape.dim(shape.rank() - 1) != built.dim(built.rank() - 1))) {
    Fail(absl::StrCat("was built for inputs of shape ", built.str(), ", got shape ", shape.str()),
         site);
  }
}

Tensor Layer::operator()(const Tensor& x, bool training, OpSite site) {
  CheckAndBuild(x, site);
  NameScope scope(name().empty() ? "layer" : name());
  return call(x, training, site);
}

void Layer::CheckAndBuild(const Tensor& x, const OpSite& site) {
  if (!x.defined()) Fail("was called with an undefined tensor", site);
  CheckInput(x.shape(), site);
  if (!built_input_) {
    std::vector<int64_t> dims(x.shape().dims().begin(), x.shape().dims().end());
    if (!dims.empty()) dims[0] = -1;
    dtype_ = IsFloating(x.dtype()) ? x.dtype() : kFloat32;
    // Variables made on first call live where the layer first runs: the innermost DeviceScope's
    // device, else the input's (a model called on cpu:1 or a GPU keeps its state there).
    DeviceScope on(DeviceScope::Innermost().value_or(x.device()));
    build(Shape(dims));
    built_input_ = Shape(dims);
  }
}

}  // namespace duet::nn
