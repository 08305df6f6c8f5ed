#include "optimizers/clipping.h"

#include "absl/strings/str_cat.h"
#include "core/constant.h"
#include "core/error.h"
#include "ops/math/math_ops.h"
#include "ops/math/operators.h"
#include "ops/reduction/reduction_ops.h"

namespace duet::optimizers {

Tensor global_norm(const std::vector<Tensor>& tensors, OpSite site) {
  Tensor sum;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    const Tensor squares = reduce_sum(square(t, site), {}, false, site);
    sum = sum.defined() ? sum + squares : squares;
  }
  if (!sum.defined()) throw Error(absl::InvalidArgumentError("global_norm: no defined tensor"));
  return sqrt(sum, site);
}

std::vector<Tensor> clip_by_global_norm(const std::vector<Tensor>& tensors, double clip_norm,
                                        OpSite site) {
  if (!(clip_norm > 0)) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("clip_by_global_norm: clip_norm must be positive, got ", clip_norm)));
  }
  const Tensor norm = global_norm(tensors, site);
  // Keras' and TensorFlow's form, clip_norm * min(1 / norm, 1 / clip_norm), rounds the same.
  const Tensor scale = clip_norm * minimum(1.0 / norm, scalar(1.0 / clip_norm, norm.dtype()), site);
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) {
    out.push_back(t.defined() ? t * cast(scale, t.dtype(), site) : t);
  }
  return out;
}

}  // namespace duet::optimizers
