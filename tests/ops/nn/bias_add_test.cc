// BiasAdd through bias_add(): every dtype, rank 2 and 4, and shape errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::MakeTensor;

TEST_CASE("BiasAdd adds the bias along the last dim for every dtype") {
  for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(
        bias_add(MakeTensor(dt, {2, 3}, {1, 2, 3, 4, 5, 6}), MakeTensor(dt, {3}, {10, 20, 30})), dt,
        {2, 3}, {11, 22, 33, 14, 25, 36});
    testing::ExpectTensor(bias_add(MakeTensor(dt, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
                                   MakeTensor(dt, {2}, {-1, 1})),
                          dt, {1, 2, 2, 2}, {0, 3, 2, 5, 4, 7, 6, 9});
  }
}

TEST_CASE("BiasAdd reports mismatched shapes") {
  const Tensor v = MakeTensor(kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  testing::ExpectError(
      [&] {
        bias_add(v, MakeTensor(kFloat32, {2}, {1, 2}));
      },
      {"BiasAdd", "bias has 2 elements but the last dim of value is 3", "(2, 3)", "(2,)",
       "bias_add_test.cc"});
  testing::ExpectError(
      [&] {
        bias_add(v, MakeTensor(kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6}));
      },
      {"BiasAdd", "bias must be 1-D", "(2, 3)"});
  testing::ExpectError(
      [&] {
        bias_add(MakeTensor(kFloat32, {3}, {1, 2, 3}), MakeTensor(kFloat32, {3}, {1, 2, 3}));
      },
      {"BiasAdd", "value must be at least 2-D", "(3,)"});
  testing::ExpectError(
      [&] {
        bias_add(v, MakeTensor(kFloat64, {3}, {1, 2, 3}));
      },
      {"BiasAdd", "float64", "float32"});
}

}  // namespace
}  // namespace duet
