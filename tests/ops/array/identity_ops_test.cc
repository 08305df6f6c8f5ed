// IdentityN, Snapshot, EnsureShape and PlaceholderWithDefault, eagerly (their graph behaviour:
// tests/graph/eager_graph_test.cc).
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEST_CASE("IdentityN passes tensors of mixed dtypes on as views") {
  const Tensor a = SequenceTensor<float>({2, 3});
  const Tensor b = constant({true, false});
  const std::vector<Tensor> out = identity_n({a, b, constant(7)});
  REQUIRE(out.size() == 3);
  testing::ExpectTensor(out[0], kFloat32, {2, 3}, {0, 1, 2, 3, 4, 5});
  testing::ExpectTensor(out[1], kBool, {2}, {1, 0});
  testing::ExpectTensor(out[2], kInt32, {}, {7});
  CHECK(out[0].raw_data() == a.raw_data());
}

TEMPLATE_TEST_CASE("Snapshot copies into a buffer of its own", "", DUET_ALL_TYPES) {
  const Tensor x = SequenceTensor<TestType>({3, 2});
  const Tensor y = snapshot(x);
  testing::ExpectTensor(y, DTypeOf<TestType>(), {3, 2},
                        SequenceExpected<TestType>({0, 1, 2, 3, 4, 5}));
  CHECK(y.raw_data() != x.raw_data());
  testing::ExpectTensor(snapshot(zeros({0, 4})), kFloat32, {0, 4}, {});
  const Tensor big = SequenceTensor<int64_t>({1 << 18});
  CHECK(snapshot(big).to_vector<int64_t>() == big.to_vector<int64_t>());
}

TEST_CASE("EnsureShape passes a tensor of a compatible shape on") {
  const Tensor x = SequenceTensor<float>({2, 3});
  testing::ExpectTensor(ensure_shape(x, {2, 3}), kFloat32, {2, 3}, {0, 1, 2, 3, 4, 5});
  testing::ExpectTensor(ensure_shape(x, {-1, 3}), kFloat32, {2, 3}, {0, 1, 2, 3, 4, 5});
  testing::ExpectTensor(ensure_shape(x, Shape::UnknownRank()), kFloat32, {2, 3},
                        {0, 1, 2, 3, 4, 5});
  testing::ExpectTensor(ensure_shape(constant(1), Shape{}), kInt32, {}, {1});
}

TEST_CASE("EnsureShape names both shapes when they differ") {
  const Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        ensure_shape(x, {3, 2});
      },
      {"EnsureShape", "the input has shape (2, 3)", "not compatible with the expected shape (3, 2)",
       "identity_ops_test.cc"});
  testing::ExpectError([&] { ensure_shape(x, {2, 3, 1}); }, {"EnsureShape", "(2, 3)", "(2, 3, 1)"});
  testing::ExpectError([&] { ensure_shape(x, {-1, 4}); }, {"EnsureShape", "(None, 4)"});
}

TEST_CASE("PlaceholderWithDefault is its input eagerly") {
  const Tensor x = SequenceTensor<int64_t>({2, 2});
  const Tensor y = placeholder_with_default(x, {-1, 2});
  testing::ExpectTensor(y, kInt64, {2, 2}, {0, 1, 2, 3});
  testing::ExpectTensor(placeholder_with_default(x, Shape::UnknownRank()), kInt64, {2, 2},
                        {0, 1, 2, 3});
  testing::ExpectError([&] { placeholder_with_default(x, {3}); },
                       {"PlaceholderWithDefault", "the default input has shape (2, 2)",
                        "not compatible with shape (3,)", "identity_ops_test.cc"});
}

}  // namespace
}  // namespace duet
