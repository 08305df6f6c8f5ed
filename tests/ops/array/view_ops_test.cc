// Identity, StopGradient, Reshape, ExpandDims, Squeeze: values, views (no copy), errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Identity and StopGradient return views of their input", "", DUET_ALL_TYPES) {
  Tensor x = SequenceTensor<TestType>({2, 3});
  for (Tensor y : {identity(x), stop_gradient(x)}) {
    CHECK(y.shares_buffer_with(x));
    testing::ExpectTensor(y, DTypeOf<TestType>(), {2, 3},
                          SequenceExpected<TestType>({0, 1, 2, 3, 4, 5}));
  }
}

TEMPLATE_TEST_CASE("Reshape is a view with the -1 inferred", "", DUET_ALL_TYPES) {
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  Tensor y = reshape(x, {4, -1});
  CHECK(y.shares_buffer_with(x));
  std::vector<double> seq(24);
  for (int i = 0; i < 24; ++i) seq[i] = i;
  testing::ExpectTensor(y, DTypeOf<TestType>(), {4, 6}, SequenceExpected<TestType>(seq));
  testing::ExpectTensor(reshape(x, {24}), DTypeOf<TestType>(), {24},
                        SequenceExpected<TestType>(seq));
}

TEST_CASE("Reshape handles scalars, empty tensors and shape tensors") {
  testing::ExpectTensor(reshape(constant(5.f), {1, 1}), kFloat32, {1, 1}, {5});
  testing::ExpectTensor(reshape(constant({7}), Shape{}), kInt32, {}, {7});
  Tensor empty = zeros({0, 3});
  testing::ExpectTensor(reshape(empty, {3, 0}), kFloat32, {3, 0}, {});
  testing::ExpectTensor(reshape(empty, {0}), kFloat32, {0}, {});
  Tensor x = constant({1.0, 2.0, 3.0, 4.0});
  Tensor y = reshape(x, shape_of(zeros({2, 2})));
  testing::ExpectTensor(y, kFloat64, {2, 2}, {1, 2, 3, 4});
  testing::ExpectTensor(reshape(x, from_vector<int64_t>({-1, 1})), kFloat64, {4, 1}, {1, 2, 3, 4});
}

TEST_CASE("Reshape reports bad target shapes") {
  Tensor x = zeros({2, 3});
  testing::ExpectError([&] { reshape(x, {4}); },
                       {"Reshape",
                        "cannot reshape a tensor of shape (2, 3) (6 elements) into "
                        "shape [4] (4 elements)",
                        "tensor: float32 (2, 3)", "view_ops_test.cc"});
  testing::ExpectError(
      [&] {
        reshape(x, {4, -1});
      },
      {"Reshape", "into shape [4, -1]", "6 is not a multiple", "4"});
  testing::ExpectError(
      [&] {
        reshape(x, {-1, -1});
      },
      {"Reshape", "shape [-1, -1] has more than one -1"});
  testing::ExpectError(
      [&] {
        reshape(x, {-2, -3});
      },
      {"Reshape", "shape [-2, -3] has a negative dim"});
  testing::ExpectError(
      [&] {
        reshape(zeros({0}), {0, -1});
      },
      {"Reshape", "into shape [0, -1]", "not a multiple"});
  testing::ExpectError(
      [&] {
        reshape(x, zeros({2, 2}, kInt32));
      },
      {"Reshape", "shape must be a 1-D tensor, got shape (2, 2)"});
  testing::ExpectError([&] { reshape(x, zeros({2}, kFloat32)); }, {"Reshape", "float32", "Tshape"});
  testing::ExpectError(
      [&] {
        reshape(x, {int64_t{1} << 40, int64_t{1} << 40});
      },
      {"Reshape", "too many elements"});
}

TEMPLATE_TEST_CASE("ExpandDims inserts a size-1 dim as a view", "", DUET_ALL_TYPES) {
  Tensor x = SequenceTensor<TestType>({2, 3});
  const auto expected = SequenceExpected<TestType>({0, 1, 2, 3, 4, 5});
  Tensor y0 = expand_dims(x, 0);
  CHECK(y0.shares_buffer_with(x));
  testing::ExpectTensor(y0, DTypeOf<TestType>(), {1, 2, 3}, expected);
  testing::ExpectTensor(expand_dims(x, 1), DTypeOf<TestType>(), {2, 1, 3}, expected);
  testing::ExpectTensor(expand_dims(x, 2), DTypeOf<TestType>(), {2, 3, 1}, expected);
  testing::ExpectTensor(expand_dims(x, -1), DTypeOf<TestType>(), {2, 3, 1}, expected);
  testing::ExpectTensor(expand_dims(x, -3), DTypeOf<TestType>(), {1, 2, 3}, expected);
}

TEST_CASE("ExpandDims works on scalars and reports bad axes") {
  testing::ExpectTensor(expand_dims(constant(3), 0), kInt32, {1}, {3});
  testing::ExpectTensor(expand_dims(constant(3), -1), kInt32, {1}, {3});
  Tensor x = zeros({2, 3});
  testing::ExpectError([&] { expand_dims(x, 3); },
                       {"ExpandDims",
                        "axis 3 is out of range for expand_dims of a tensor of rank 2 "
                        "(allowed [-3, 2])",
                        "input: float32 (2, 3)"});
  testing::ExpectError([&] { expand_dims(x, -4); }, {"ExpandDims", "axis -4 is out of range"});
}

TEMPLATE_TEST_CASE("Squeeze drops size-1 dims as a view", "", DUET_ALL_TYPES) {
  Tensor x = SequenceTensor<TestType>({1, 2, 1, 3});
  const auto expected = SequenceExpected<TestType>({0, 1, 2, 3, 4, 5});
  Tensor all = squeeze(x);
  CHECK(all.shares_buffer_with(x));
  testing::ExpectTensor(all, DTypeOf<TestType>(), {2, 3}, expected);
  testing::ExpectTensor(squeeze(x, {-2}), DTypeOf<TestType>(), {1, 2, 3}, expected);
  testing::ExpectTensor(squeeze(x, {0, 2}), DTypeOf<TestType>(), {2, 3}, expected);
}

TEST_CASE("Squeeze reports axes that are not size 1 or out of range") {
  Tensor x = zeros({1, 2, 1, 3});
  testing::ExpectError([&] { squeeze(x, {1}); },
                       {"Squeeze",
                        "cannot squeeze axis 1 of shape (1, 2, 1, 3): its size is 2, "
                        "not 1"});
  testing::ExpectError([&] { squeeze(x, {4}); },
                       {"Squeeze", "axis 4 is out of range for a tensor of rank 4"});
  testing::ExpectTensor(squeeze(constant(2.f)), kFloat32, {}, {2});
  testing::ExpectTensor(squeeze(zeros({1, 1})), kFloat32, {}, {0});
}

}  // namespace
}  // namespace duet
