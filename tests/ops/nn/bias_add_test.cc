// BiasAdd through bias_add(): every dtype, rank 2 and 4, and shape errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/nn/nn_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

Tensor Make(const std::vector<double>& values, const Shape& shape, DType dtype) {
  switch (dtype) {
    case kFloat64:
      return from_vector(values, shape);
    case kFloat32:
      return from_vector(std::vector<float>(values.begin(), values.end()), shape);
    case kInt32:
      return from_vector(std::vector<int32_t>(values.begin(), values.end()), shape);
    case kInt64:
      return from_vector(std::vector<int64_t>(values.begin(), values.end()), shape);
    case kFloat16: {
      std::vector<float16> v;
      for (double x : values) v.push_back(float16(static_cast<float>(x)));
      return from_vector(v, shape);
    }
    default: {
      std::vector<bfloat16> v;
      for (double x : values) v.push_back(bfloat16(static_cast<float>(x)));
      return from_vector(v, shape);
    }
  }
}

TEST_CASE("BiasAdd adds the bias along the last dim for every dtype") {
  for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    INFO("dtype " << DTypeName(dt));
    testing::ExpectTensor(
        bias_add(Make({1, 2, 3, 4, 5, 6}, {2, 3}, dt), Make({10, 20, 30}, {3}, dt)), dt, {2, 3},
        {11, 22, 33, 14, 25, 36});
    testing::ExpectTensor(
        bias_add(Make({1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 2, 2}, dt), Make({-1, 1}, {2}, dt)), dt,
        {1, 2, 2, 2}, {0, 3, 2, 5, 4, 7, 6, 9});
  }
}

TEST_CASE("BiasAdd reports mismatched shapes") {
  const Tensor v = Make({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat32);
  testing::ExpectError(
      [&] {
        bias_add(v, Make({1, 2}, {2}, kFloat32));
      },
      {"BiasAdd", "bias has 2 elements but the last dim of value is 3", "(2, 3)", "(2,)",
       "bias_add_test.cc"});
  testing::ExpectError(
      [&] {
        bias_add(v, Make({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat32));
      },
      {"BiasAdd", "bias must be 1-D", "(2, 3)"});
  testing::ExpectError(
      [&] {
        bias_add(Make({1, 2, 3}, {3}, kFloat32), Make({1, 2, 3}, {3}, kFloat32));
      },
      {"BiasAdd", "value must be at least 2-D", "(3,)"});
  testing::ExpectError(
      [&] {
        bias_add(v, Make({1, 2, 3}, {3}, kFloat64));
      },
      {"BiasAdd", "float64", "float32"});
}

}  // namespace
}  // namespace duet
