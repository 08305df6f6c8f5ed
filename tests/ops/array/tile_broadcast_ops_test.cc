// Tile and BroadcastTo: every dtype, 3-D cases, large copies, errors.
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Tile repeats along each dim", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor m = SequenceTensor<TestType>({2, 3});
  // np.tile(m, reps)
  testing::ExpectTensor(tile(m, {2, 1}), dt, {4, 3},
                        SequenceExpected<TestType>({0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  testing::ExpectTensor(tile(m, {1, 2}), dt, {2, 6},
                        SequenceExpected<TestType>({0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  testing::ExpectTensor(
      tile(m, {2, 3}), dt, {4, 9},
      SequenceExpected<TestType>({0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5,
                                  0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5}));
  testing::ExpectTensor(
      tile(SequenceTensor<TestType>({2, 3, 4}), {2, 1, 2}), dt, {4, 3, 8},
      SequenceExpected<TestType>({0,  1,  2,  3,  0,  1,  2,  3,  4,  5,  6,  7,  4,  5,  6,  7,
                                  8,  9,  10, 11, 8,  9,  10, 11, 12, 13, 14, 15, 12, 13, 14, 15,
                                  16, 17, 18, 19, 16, 17, 18, 19, 20, 21, 22, 23, 20, 21, 22, 23,
                                  0,  1,  2,  3,  0,  1,  2,  3,  4,  5,  6,  7,  4,  5,  6,  7,
                                  8,  9,  10, 11, 8,  9,  10, 11, 12, 13, 14, 15, 12, 13, 14, 15,
                                  16, 17, 18, 19, 16, 17, 18, 19, 20, 21, 22, 23, 20, 21, 22, 23}));
  testing::ExpectTensor(tile(m, {0, 2}), dt, {0, 6}, {});
}

TEST_CASE("Tile of a large tensor matches index math") {
  std::vector<float> got = tile(SequenceTensor<float>({300, 7}), {2, 300}).to_vector<float>();
  REQUIRE(got.size() == 600 * 2100);
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 600; ++r) {
    for (int64_t c = 0; c < 2100; ++c) mismatches += got[r * 2100 + c] != (r % 300) * 7 + c % 7;
  }
  CHECK(mismatches == 0);
  testing::ExpectTensor(tile(constant(2.f), {}), kFloat32, {}, {2});
}

TEST_CASE("Tile reports bad multiples") {
  Tensor m = zeros({2, 3});
  testing::ExpectError([&] { tile(m, {2}); },
                       {"Tile", "multiples [2] has 1 entries but the input has shape (2, 3)",
                        "input: float32 (2, 3)", "tile_broadcast_ops_test.cc"});
  testing::ExpectError(
      [&] {
        tile(m, {2, -1});
      },
      {"Tile", "multiples [2, -1] must be non-negative"});
}

TEMPLATE_TEST_CASE("BroadcastTo follows NumPy rules", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  // np.broadcast_to(np.arange(3).reshape(3, 1), (2, 3, 4))
  testing::ExpectTensor(broadcast_to(SequenceTensor<TestType>({3, 1}), {2, 3, 4}), dt, {2, 3, 4},
                        SequenceExpected<TestType>({0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                                    0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}));
  testing::ExpectTensor(broadcast_to(SequenceTensor<TestType>({3}), {2, 3}), dt, {2, 3},
                        SequenceExpected<TestType>({0, 1, 2, 0, 1, 2}));
  testing::ExpectTensor(broadcast_to(SequenceTensor<TestType>({}, 3), {2, 2}), dt, {2, 2},
                        SequenceExpected<TestType>({3, 3, 3, 3}));
  testing::ExpectTensor(broadcast_to(SequenceTensor<TestType>({2, 1}), {2, 0}), dt, {2, 0}, {});
  testing::ExpectTensor(broadcast_to(SequenceTensor<TestType>({1, 2}), shape_of(zeros({2, 2}))), dt,
                        {2, 2}, SequenceExpected<TestType>({0, 1, 0, 1}));
}

TEST_CASE("BroadcastTo of large tensors along rows and columns") {
  std::vector<int32_t> rows =
      broadcast_to(SequenceTensor<int32_t>({1, 1000}), {700, 1000}).to_vector<int32_t>();
  std::vector<int32_t> cols =
      broadcast_to(SequenceTensor<int32_t>({700, 1}), {700, 1000}).to_vector<int32_t>();
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 700; ++r) {
    for (int64_t c = 0; c < 1000; ++c) {
      mismatches += rows[r * 1000 + c] != c;
      mismatches += cols[r * 1000 + c] != r;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("BroadcastTo reports incompatible shapes") {
  testing::ExpectError(
      [] {
        broadcast_to(zeros({3}), {2, 4});
      },
      {"BroadcastTo", "cannot broadcast shape (3,) to (2, 4)"});
  testing::ExpectError(
      [] {
        broadcast_to(zeros({2, 3}), {3});
      },
      {"BroadcastTo", "cannot broadcast shape (2, 3) to (3,)"});
  testing::ExpectError(
      [] {
        broadcast_to(zeros({2}), {2, -1});
      },
      {"BroadcastTo", "shape [2, -1] must be non-negative"});
}

}  // namespace
}  // namespace duet
