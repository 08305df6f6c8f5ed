// reduce_loss (nn/losses/reduction.h): none, sum and mean over every element.
#include "duet.h"
#include "tests/test_util.h"

namespace duet::testing {
namespace {

using losses::Reduction;

TEST_CASE("reduce_loss returns the per-sample losses, their sum or their mean") {
  const Tensor per_sample = constant({{1.0, 2.0}, {3.0, 6.0}});
  ExpectTensor(losses::reduce_loss(per_sample, Reduction::kNone), kFloat64, {2, 2}, {1, 2, 3, 6});
  ExpectTensor(losses::reduce_loss(per_sample, Reduction::kSum), kFloat64, {}, {12});
  ExpectTensor(losses::reduce_loss(per_sample, Reduction::kMean), kFloat64, {}, {3});
}

TEST_CASE("an empty batch sums to 0 and averages to NaN, as Keras") {
  const Tensor empty = zeros({0}, kFloat32);
  ExpectTensor(losses::reduce_loss(empty, Reduction::kSum), kFloat32, {}, {0});
  ExpectTensor(losses::reduce_loss(empty, Reduction::kMean), kFloat32, {}, {NAN});
}

}  // namespace
}  // namespace duet::testing
