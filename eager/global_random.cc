#include "eager/global_random.h"

#include <random>
#include <vector>

#include "core/constant.h"
#include "eager/variable.h"
#include "ops/math/math_ops.h"
#include "ops/random/random_ops.h"

namespace duet {
namespace {

Tensor PhiloxState(int64_t key) { return from_vector(std::vector<int64_t>{0, 0, key}); }

// The generator state of Note [Global random state], made on first use (eagerly, even while
// tracing: variables are always made eagerly) and never freed.
const Variable& GlobalState() {
  static const Variable* state = [] {
    std::random_device device;
    const int64_t key = static_cast<int64_t>((uint64_t{device()} << 32) | device());
    return new Variable(PhiloxState(key), "global_random_state", /*trainable=*/false);
  }();
  return *state;
}

}  // namespace

void set_random_seed(int64_t seed) { GlobalState().assign(PhiloxState(seed)); }

Tensor random_normal(Shape shape, DType dtype, double mean, double stddev, OpSite site) {
  Tensor x = stateful_standard_normal(GlobalState().handle(), shape, dtype, site);
  if (stddev != 1) x = multiply(x, stddev, site);
  if (mean != 0) x = add(x, mean, site);
  return x;
}

Tensor random_uniform(Shape shape, DType dtype, double minval, double maxval, OpSite site) {
  Tensor x = stateful_uniform(GlobalState().handle(), shape, dtype, site);
  if (maxval - minval != 1) x = multiply(x, maxval - minval, site);
  if (minval != 0) x = add(x, minval, site);
  return x;
}

}  // namespace duet
