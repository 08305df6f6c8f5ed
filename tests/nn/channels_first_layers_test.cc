// Layers over channels-first images (ConvOptions/PoolOptions::data_format): the same numbers as
// the channels-last layers with the same weights.
#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectTensorNear;

TEST_CASE("nn::Conv2D and MaxPool2D with channels-first data_format match channels-last") {
  nn::Conv2D last(4, 3, {.padding = "same", .use_bias = true});
  nn::Conv2D first(4, 3, {.padding = "same", .data_format = DataFormat::kChannelsFirst});
  nn::MaxPool2D pool_first(2, {.data_format = DataFormat::kChannelsFirst});
  const Tensor x = random_normal({2, 5, 6, 3}, 12);
  const Tensor x_first = transpose(x, {0, 3, 1, 2});
  const Tensor y_last = last(x);
  first(x_first);
  first.kernel().assign(last.kernel().value());
  first.bias().assign(random_normal({4}, 13));
  last.bias().assign(first.bias().value());
  ExpectTensorNear(first(x_first), transpose(last(x), {0, 3, 1, 2}), 1e-5);
  const Tensor pooled = pool_first(first(x_first));
  CHECK(pooled.shape() == Shape{2, 4, 2, 3});
  ExpectTensorNear(pooled, transpose(max_pool(last(x), {2}, {2}, "VALID"), {0, 3, 1, 2}), 1e-5);
  (void)y_last;
}

}  // namespace
}  // namespace duet
