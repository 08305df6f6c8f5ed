// AddN: sums of 1 to many tensors in every allowed dtype (values as NumPy's sum of the stacked
// inputs), large tensors, errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/math/math_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceTensor;

TEMPLATE_TEST_CASE("AddN sums same-shape tensors", "", float, double, float16, bfloat16, int32_t,
                   int64_t) {
  const DType dt = DTypeOf<TestType>();
  const Tensor a = SequenceTensor<TestType>({2, 3});
  const Tensor b = SequenceTensor<TestType>({2, 3}, 10);
  const Tensor c = SequenceTensor<TestType>({2, 3}, 20);
  testing::ExpectTensor(add_n({a}), dt, {2, 3}, {0, 1, 2, 3, 4, 5});
  // np.sum([a, b], axis=0), np.sum([a, b, c, a], axis=0)
  testing::ExpectTensor(add_n({a, b}), dt, {2, 3}, {10, 12, 14, 16, 18, 20});
  testing::ExpectTensor(add_n({a, b, c, a}), dt, {2, 3}, {30, 34, 38, 42, 46, 50});
  testing::ExpectTensor(add_n({constant(TestType(1)), constant(TestType(2))}), dt, {}, {3});
  testing::ExpectTensor(add_n({zeros({0, 3}, dt), zeros({0, 3}, dt)}), dt, {0, 3}, {});
}

TEST_CASE("AddN of large tensors matches a chain of adds") {
  // Past the parallel threshold and not a multiple of the block size.
  const Tensor a = SequenceTensor<float>({300001});
  const Tensor b = SequenceTensor<float>({300001}, 7);
  const Tensor c = SequenceTensor<float>({300001}, -5);
  testing::ExpectTensorNear(add_n({a, b, c}), a + b + c, 0);
  const Tensor i = SequenceTensor<int64_t>({70000});
  testing::ExpectTensorNear(add_n({i, i, i, i, i}), i * int64_t{5}, 0);
  // float16 sums in float32 and rounds once: 2048 + 1 + 1 is 2050, where two float16 adds give
  // 2048 (2049 rounds to even).
  const Tensor big = cast(constant(2048.f), kFloat16);
  const Tensor one = cast(constant(1.f), kFloat16);
  testing::ExpectTensor(add_n({big, one, one}), kFloat16, {}, {2050});
}

TEST_CASE("AddN reports shape and dtype mismatches") {
  testing::ExpectError(
      [] {
        add_n({zeros({2, 3}), zeros({3, 2})});
      },
      {"AddN", "inputs[1] has shape (3, 2) but inputs[0] has shape (2, 3)", "add_n_op_test.cc"});
  testing::ExpectError([] { add_n({zeros({2, 3}), zeros({3})}); }, {"AddN", "(3,)", "(2, 3)"});
  testing::ExpectError(
      [] {
        add_n({zeros({2}), zeros({2}, kInt32)});
      },
      {"AddN", "int32", "float32"});
  testing::ExpectError([] { add_n({constant(true)}); }, {"AddN", "bool"});
  testing::ExpectError([] { add_n({}); }, {"AddN", "attr 'N' is 0, must be at least 1"});
}

}  // namespace
}  // namespace duet
