// GatherV2: every dtype, both index dtypes, axes, large gathers, bad indices.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Gather picks slices along an axis", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  // np.take(x, [2, 0, 2], axis=1)
  testing::ExpectTensor(
      gather(x, constant({2, 0, 2}), 1), dt, {2, 3, 4},
      SequenceExpected<TestType>({8,  9,  10, 11, 0,  1,  2,  3,  8,  9,  10, 11,
                                  20, 21, 22, 23, 12, 13, 14, 15, 20, 21, 22, 23}));
  // np.take(x, [[3, 0], [1, 1]], axis=-1), int64 indices
  testing::ExpectTensor(
      gather(x, constant<int64_t>({{3, 0}, {1, 1}}), -1), dt, {2, 3, 2, 2},
      SequenceExpected<TestType>(
          {3, 0, 1, 1, 7, 4, 5, 5, 11, 8, 9, 9, 15, 12, 13, 13, 19, 16, 17, 17, 23, 20, 21, 21}));
  // np.take(x, 1, axis=0): a scalar index drops the axis
  testing::ExpectTensor(
      gather(x, constant(1)), dt, {3, 4},
      SequenceExpected<TestType>({12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));
  testing::ExpectTensor(gather(x, from_vector<int32_t>({}), 0), dt, {0, 3, 4}, {});
}

// Issue 37: batch_dims (values from tf.raw_ops.GatherV2 in TensorFlow 2.21).
TEMPLATE_TEST_CASE("Gather with batch_dims gathers each batch row from its own params", "",
                   DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor x = SequenceTensor<TestType>({2, 3, 4});
  testing::ExpectTensor(gather(x, constant({{3, 0}, {1, 1}}), 2, 1), dt, {2, 3, 2},
                        SequenceExpected<TestType>({3, 0, 7, 4, 11, 8, 13, 13, 17, 17, 21, 21}));
  testing::ExpectTensor(gather(x, constant<int64_t>({{{1}, {0}, {3}}, {{2}, {2}, {0}}}), 2, 2), dt,
                        {2, 3, 1}, SequenceExpected<TestType>({1, 4, 11, 14, 18, 20}));
  // batch_dims -1 counts from the indices' rank: 1 here, so axis 1 gathers rows of 4.
  testing::ExpectTensor(
      gather(x, constant({{1, 0}, {2, 2}}), 1, -1), dt, {2, 2, 4},
      SequenceExpected<TestType>({4, 5, 6, 7, 0, 1, 2, 3, 20, 21, 22, 23, 20, 21, 22, 23}));
}

TEST_CASE("Gather with batch_dims reports bad batch dims, naming them") {
  const Tensor x = zeros({2, 3, 4});
  testing::ExpectError(
      [&] {
        gather(x, constant({{1, 0}, {2, 2}}), 0, 1);
      },
      {"GatherV2", "axis 0 must be >= batch_dims 1", "gather_op_test.cc"});
  testing::ExpectError(
      [&] {
        gather(x, constant({{1, 0}, {2, 2}}), 1, 3);
      },
      {"GatherV2", "batch_dims 3 must be in [-2, 2]"});
  testing::ExpectError(
      [&] {
        gather(x, constant({{1, 0}, {2, 2}}), 1, -3);
      },
      {"GatherV2", "batch_dims -3 must be in [-2, 2]"});
  testing::ExpectError(
      [&] {
        gather(x, constant({{1, 0}, {2, 2}, {0, 0}}), 1, 1);
      },
      {"GatherV2", "must have the same first 1 (batch_dims) dims", "2 and 3"});
  testing::ExpectError(
      [&] {
        gather(x, constant({{0}, {5}}), 2, 1);
      },
      {"GatherV2", "indices[1, 0] = 5 is not in [0, 4)"});
}

TEST_CASE("Gather of many rows and of single elements matches index math") {
  Tensor table = SequenceTensor<float>({1000, 300});
  std::vector<int64_t> idx(2000);
  for (int64_t i = 0; i < 2000; ++i) idx[i] = (i * 7919) % 1000;
  std::vector<float> rows = gather(table, from_vector(idx)).to_vector<float>();
  int64_t mismatches = 0;
  for (int64_t i = 0; i < 2000; ++i) {
    for (int64_t c = 0; c < 300; ++c) mismatches += rows[i * 300 + c] != idx[i] * 300 + c;
  }
  CHECK(mismatches == 0);
  Tensor flat = SequenceTensor<int32_t>({100000});
  std::vector<int32_t> picked = gather(flat, from_vector(idx)).to_vector<int32_t>();
  CHECK(std::vector<int64_t>(picked.begin(), picked.end()) == idx);
  // Columns: a gather along the last axis of a wide matrix.
  std::vector<float> cols = gather(table, constant({299, 0}), 1).to_vector<float>();
  CHECK(cols[0] == 299);
  CHECK(cols[1] == 0);
  CHECK(cols[2 * 999 + 1] == 999 * 300);
}

TEST_CASE("Gather reports out-of-range indices and bad axes") {
  Tensor x = zeros({5, 2});
  testing::ExpectError(
      [&] {
        gather(x, constant({0, 7}));
      },
      {"GatherV2", "indices[1] = 7 is not in [0, 5)", "params: float32 (5, 2)",
       "indices: int32 (2,)", "gather_op_test.cc"});
  testing::ExpectError(
      [&] {
        gather(x, constant<int64_t>({{0, 1}, {-1, 2}}));
      },
      {"GatherV2", "indices[1, 0] = -1 is not in [0, 5)"});
  testing::ExpectError([&] { gather(x, constant(2), 1); },
                       {"GatherV2", "indices = 2 is not in [0, 2)"});
  testing::ExpectError([&] { gather(x, constant({0}), 2); },
                       {"GatherV2", "axis 2 is out of range for a tensor of rank 2"});
  testing::ExpectError([&] { gather(constant(1.f), constant({0})); },
                       {"GatherV2", "params must be at least 1-D"});
  testing::ExpectError([&] { gather(x, constant({0.f})); },
                       {"GatherV2", "dtype float32 is not supported", "Tindices"});
}

}  // namespace
}  // namespace duet
