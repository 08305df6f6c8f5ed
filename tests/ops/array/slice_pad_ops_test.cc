// Slice, Pad, PadV2, MirrorPad and MirrorPadGrad: every dtype, 3-D cases, large copies, errors.
// The PadV2 and mirror values are TensorFlow's (testdata/gen_pad_expected.py).
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

TEMPLATE_TEST_CASE("Slice cuts out a block", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = SequenceTensor<TestType>({2, 3, 4});
  // x[1:2, 0:3, 1:3]
  testing::ExpectTensor(slice(x, {1, 0, 1}, {1, 3, 2}), dt, {1, 3, 2},
                        SequenceExpected<TestType>({13, 14, 17, 18, 21, 22}));
  // x[:, 1:, 2:]
  testing::ExpectTensor(slice(x, {0, 1, 2}, {-1, -1, -1}), dt, {2, 2, 2},
                        SequenceExpected<TestType>({6, 7, 10, 11, 18, 19, 22, 23}));
  // x[:, 2:3, :]
  testing::ExpectTensor(slice(x, {0, 2, 0}, {2, 1, 4}), dt, {2, 1, 4},
                        SequenceExpected<TestType>({8, 9, 10, 11, 20, 21, 22, 23}));
  testing::ExpectTensor(slice(x, {2, 0, 0}, {0, -1, -1}), dt, {0, 3, 4}, {});
}

TEST_CASE("Slice of a large tensor matches index math") {
  Tensor x = SequenceTensor<float>({700, 600});
  std::vector<float> got = slice(x, {10, 20}, {600, 500}).to_vector<float>();
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 600; ++r) {
    for (int64_t c = 0; c < 500; ++c) mismatches += got[r * 500 + c] != (r + 10) * 600 + c + 20;
  }
  CHECK(mismatches == 0);
  testing::ExpectTensor(slice(constant(3.f), {}, {}), kFloat32, {}, {3});
}

TEST_CASE("Slice reports out-of-bounds blocks") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        slice(x, {1, 0}, {3, -1});
      },
      {"Slice",
       "begin [1, 0] and size [3, -1] are out of bounds for shape (2, 3) "
       "at dimension 0",
       "input: float32 (2, 3)", "slice_pad_ops_test.cc"});
  testing::ExpectError(
      [&] {
        slice(x, {0, 4}, {1, -1});
      },
      {"Slice", "out of bounds for shape (2, 3) at dimension 1"});
  testing::ExpectError(
      [&] {
        slice(x, {-1, 0}, {1, 1});
      },
      {"Slice", "begin [-1, 0] and size [1, 1] are out of bounds"});
  testing::ExpectError([&] { slice(x, {0, 0}, {1, -2}); }, {"Slice", "out of bounds"});
  testing::ExpectError(
      [&] {
        slice(x, {0}, {1, 1});
      },
      {"Slice",
       "begin [0] and size [1, 1] must both have one entry per dim of "
       "shape (2, 3)"});
}

TEMPLATE_TEST_CASE("Pad surrounds with zeros", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor m = SequenceTensor<TestType>({2, 3}, 1);
  // np.pad(m, ((1, 0), (0, 2)))
  testing::ExpectTensor(pad(m, {{1, 0}, {0, 2}}), dt, {3, 5},
                        SequenceExpected<TestType>({0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0}));
  Tensor x = SequenceTensor<TestType>({2, 3, 4}, 1);
  // np.pad(x, ((0, 1), (1, 1), (0, 0)))
  testing::ExpectTensor(
      pad(x, {{0, 1}, {1, 1}, {0, 0}}), dt, {3, 5, 4},
      SequenceExpected<TestType>({0,  0,  0,  0,  1,  2,  3, 4, 5, 6,  7,  8,  9,  10, 11,
                                  12, 0,  0,  0,  0,  0,  0, 0, 0, 13, 14, 15, 16, 17, 18,
                                  19, 20, 21, 22, 23, 24, 0, 0, 0, 0,  0,  0,  0,  0,  0,
                                  0,  0,  0,  0,  0,  0,  0, 0, 0, 0,  0,  0,  0,  0,  0}));
  testing::ExpectTensor(pad(m, from_vector<int64_t>({0, 0, 2, 0}, {2, 2})), dt, {2, 5},
                        SequenceExpected<TestType>({0, 0, 1, 2, 3, 0, 0, 4, 5, 6}));
  testing::ExpectTensor(pad(SequenceTensor<TestType>({0, 2}), {{1, 0}, {0, 0}}), dt, {1, 2},
                        {0, 0});
}

TEST_CASE("Pad of a large tensor keeps the interior") {
  Tensor x = SequenceTensor<double>({400, 300});
  std::vector<double> got = pad(x, {{2, 3}, {1, 0}}).to_vector<double>();
  REQUIRE(got.size() == 405 * 301);
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 405; ++r) {
    for (int64_t c = 0; c < 301; ++c) {
      const bool inside = r >= 2 && r < 402 && c >= 1;
      mismatches += got[r * 301 + c] != (inside ? (r - 2) * 300 + (c - 1) : 0);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Pad reports bad paddings") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        pad(x, {{1, 1}});
      },
      {"Pad",
       "paddings must have shape (2, 2) for an input of shape (2, 3), got "
       "(1, 2)"});
  testing::ExpectError(
      [&] {
        pad(x, {{1, -1}, {0, 0}});
      },
      {"Pad", "paddings [1, -1, 0, 0] must be non-negative"});
}

TEMPLATE_TEST_CASE("PadV2 surrounds with a constant", "", float, double, float16, bfloat16) {
  const DType dt = DTypeOf<TestType>();
  Tensor m = SequenceTensor<TestType>({2, 3}, 1);
  // tf.pad(m, [[1, 1], [2, 2]], constant_values=-1.5)
  testing::ExpectTensor(
      pad(m, {{1, 1}, {2, 2}}, -1.5), dt, {4, 7},
      {-1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, 1,    2,    3,    -1.5, -1.5,
       -1.5, -1.5, 4,    5,    6,    -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5});
  // The constant may be a tensor, and paddings int64.
  testing::ExpectTensor(
      pad(SequenceTensor<TestType>({0, 2}), from_vector<int64_t>({1, 0, 0, 1}, {2, 2}),
          testing::MakeTensor(dt, {}, {4})),
      dt, {1, 3}, {4, 4, 4});
}

TEMPLATE_TEST_CASE("PadV2 pads integers and bools", "", int32_t, int64_t, bool) {
  const DType dt = DTypeOf<TestType>();
  Tensor x = testing::MakeTensor(dt, {2, 3, 4}, std::vector<double>(24, 1));
  const double c = std::is_same_v<TestType, bool> ? 0 : 7;
  std::vector<double> expected;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      for (int64_t k = 0; k < 8; ++k) {
        const bool inside = i >= 1 && j < 3 && k >= 3 && k < 7;
        expected.push_back(inside ? 1 : c);
      }
    }
  }
  testing::ExpectTensor(pad(x, {{1, 0}, {0, 2}, {3, 1}}, testing::MakeTensor(dt, {}, {c})), dt,
                        {3, 5, 8}, expected);
}

TEST_CASE("PadV2 reports a non-scalar constant and bad paddings") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        pad(x, {{1, 1}, {0, 0}}, zeros({2}));
      },
      {"PadV2", "constant_values must be a scalar, got shape (2,)", "constant_values: float32 (2,)",
       "slice_pad_ops_test.cc"});
  testing::ExpectError(
      [&] {
        pad(x, {{1, -1}, {0, 0}}, 1.f);
      },
      {"PadV2", "paddings [1, -1, 0, 0] must be non-negative"});
}

// Values small enough to be exact in every numeric dtype.
#define DUET_MIRROR_TYPES float, double, float16, bfloat16, int32_t, int64_t

TEMPLATE_TEST_CASE("MirrorPad reflects and repeats the edges", "", DUET_MIRROR_TYPES) {
  const DType dt = DTypeOf<TestType>();
  Tensor m = SequenceTensor<TestType>({2, 3}, 1);
  // tf.pad(m, [[1, 1], [2, 2]], mode=...)
  testing::ExpectTensor(
      mirror_pad(m, {{1, 1}, {2, 2}}, "REFLECT"), dt, {4, 7},
      {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
  testing::ExpectTensor(
      mirror_pad(m, {{1, 1}, {2, 2}}, "SYMMETRIC"), dt, {4, 7},
      {2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5});
  Tensor x = SequenceTensor<TestType>({2, 3, 4}, 1);
  // tf.pad(x, [[1, 0], [0, 2], [3, 1]], mode="REFLECT")
  testing::ExpectTensor(
      mirror_pad(x, {{1, 0}, {0, 2}, {3, 1}}, "REFLECT"), dt, {3, 5, 8},
      {16, 15, 14, 13, 14, 15, 16, 15, 20, 19, 18, 17, 18, 19, 20, 19, 24, 23, 22, 21,
       22, 23, 24, 23, 20, 19, 18, 17, 18, 19, 20, 19, 16, 15, 14, 13, 14, 15, 16, 15,
       4,  3,  2,  1,  2,  3,  4,  3,  8,  7,  6,  5,  6,  7,  8,  7,  12, 11, 10, 9,
       10, 11, 12, 11, 8,  7,  6,  5,  6,  7,  8,  7,  4,  3,  2,  1,  2,  3,  4,  3,
       16, 15, 14, 13, 14, 15, 16, 15, 20, 19, 18, 17, 18, 19, 20, 19, 24, 23, 22, 21,
       22, 23, 24, 23, 20, 19, 18, 17, 18, 19, 20, 19, 16, 15, 14, 13, 14, 15, 16, 15});
  testing::ExpectTensor(
      mirror_pad(x, {{1, 0}, {0, 2}, {3, 1}}, "SYMMETRIC"), dt, {3, 5, 8},
      {3,  2,  1,  1,  2,  3,  4,  4,  7,  6,  5,  5,  6,  7,  8,  8,  11, 10, 9,  9,
       10, 11, 12, 12, 11, 10, 9,  9,  10, 11, 12, 12, 7,  6,  5,  5,  6,  7,  8,  8,
       3,  2,  1,  1,  2,  3,  4,  4,  7,  6,  5,  5,  6,  7,  8,  8,  11, 10, 9,  9,
       10, 11, 12, 12, 11, 10, 9,  9,  10, 11, 12, 12, 7,  6,  5,  5,  6,  7,  8,  8,
       15, 14, 13, 13, 14, 15, 16, 16, 19, 18, 17, 17, 18, 19, 20, 20, 23, 22, 21, 21,
       22, 23, 24, 24, 23, 22, 21, 21, 22, 23, 24, 24, 19, 18, 17, 17, 18, 19, 20, 20});
  // No padding, a scalar, and an empty tensor.
  testing::ExpectTensor(mirror_pad(m, {{0, 0}, {0, 0}}, "REFLECT"), dt, {2, 3}, {1, 2, 3, 4, 5, 6});
  testing::ExpectTensor(mirror_pad(testing::MakeTensor(dt, {}, {3}),
                                   std::vector<std::pair<int64_t, int64_t>>{}, "SYMMETRIC"),
                        dt, {}, {3});
  testing::ExpectTensor(mirror_pad(SequenceTensor<TestType>({0, 2}), {{0, 0}, {1, 1}}, "SYMMETRIC"),
                        dt, {0, 4}, {});
}

TEST_CASE("MirrorPad moves bools") {
  Tensor b = from_vector<bool>({true, false, false}, {3});
  testing::ExpectTensor(mirror_pad(b, {{2, 1}}, "REFLECT"), kBool, {6}, {0, 0, 1, 0, 0, 0});
}

TEST_CASE("MirrorPad of a large tensor matches index math") {
  Tensor x = SequenceTensor<float>({300, 200});
  std::vector<float> got = mirror_pad(x, {{5, 7}, {199, 3}}, "REFLECT").to_vector<float>();
  REQUIRE(got.size() == 312 * 402);
  auto reflect = [](int64_t o, int64_t before, int64_t n) {
    int64_t i = o - before;
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
    return i;
  };
  int64_t mismatches = 0;
  for (int64_t r = 0; r < 312; ++r) {
    for (int64_t c = 0; c < 402; ++c) {
      mismatches += got[r * 402 + c] != reflect(r, 5, 300) * 200 + reflect(c, 199, 200);
    }
  }
  CHECK(mismatches == 0);
}

TEMPLATE_TEST_CASE("MirrorPadGrad adds the padding back", "", DUET_MIRROR_TYPES) {
  const DType dt = DTypeOf<TestType>();
  const Tensor p2 = from_vector<int32_t>({1, 1, 2, 2}, {2, 2});
  // tf.raw_ops.MirrorPadGrad(input=1..28 as (4, 7), paddings=p2, mode=...)
  testing::ExpectTensor(mirror_pad_grad(SequenceTensor<TestType>({4, 7}, 1), p2, "REFLECT"), dt,
                        {2, 3}, {76, 108, 68, 48, 66, 40});
  testing::ExpectTensor(mirror_pad_grad(SequenceTensor<TestType>({4, 7}, 1), p2, "SYMMETRIC"), dt,
                        {2, 3}, {24, 45, 36, 80, 129, 92});
  const Tensor p3 = from_vector<int64_t>({1, 0, 0, 2, 3, 1}, {3, 2});
  testing::ExpectTensor(mirror_pad_grad(SequenceTensor<TestType>({3, 5, 8}, 1), p3, "REFLECT"), dt,
                        {2, 3, 4}, {120, 240, 368, 240, 120, 240, 368, 240, 60,  120, 184, 120,
                                    240, 480, 736, 480, 240, 480, 736, 480, 120, 240, 368, 240});
  testing::ExpectTensor(mirror_pad_grad(SequenceTensor<TestType>({3, 5, 8}, 1), p3, "SYMMETRIC"),
                        dt, {2, 3, 4},
                        {94,  94,  94,  110, 348, 348, 348, 380, 348, 348, 348, 380,
                         167, 167, 167, 175, 414, 414, 414, 430, 414, 414, 414, 430});
}

TEST_CASE("MirrorPad and MirrorPadGrad report paddings past TensorFlow's limits") {
  Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        mirror_pad(x, {{0, 0}, {3, 0}}, "REFLECT");
      },
      {"MirrorPad",
       "paddings [0, 0, 3, 0] are too large at dimension 1 for mode REFLECT: each side may add at "
       "most 2 (the dim minus one) elements to dim 3 of shape (2, 3)",
       "input: float32 (2, 3)", "slice_pad_ops_test.cc"});
  testing::ExpectError(
      [&] {
        mirror_pad(x, {{0, 3}, {0, 0}}, "SYMMETRIC");
      },
      {"MirrorPad",
       "too large at dimension 0 for mode SYMMETRIC: each side may add at most 2 (the dim)"});
  CHECK(mirror_pad(x, {{2, 2}, {3, 3}}, "SYMMETRIC").shape() == Shape({6, 9}));
  testing::ExpectError(
      [&] {
        mirror_pad(x, {{1, 1}}, "REFLECT");
      },
      {"MirrorPad", "paddings must have shape (2, 2)"});
  testing::ExpectError([&] { mirror_pad(x, {{0, 0}, {0, 0}}, "EDGE"); }, {"MirrorPad", "EDGE"});
  const Tensor p = from_vector<int32_t>({0, 0, 2, 2}, {2, 2});
  testing::ExpectError(
      [&] {
        mirror_pad_grad(zeros({2, 3}), p, "REFLECT");
      },
      {"MirrorPadGrad",
       "paddings [0, 0, 2, 2] remove more than dimension 1 of shape (2, 3) holds"});
  testing::ExpectError(
      [&] {
        mirror_pad_grad(zeros({2, 5}), p, "REFLECT");
      },
      {"MirrorPadGrad", "too large at dimension 1 for mode REFLECT", "shape (2, 1)"});
}

}  // namespace
}  // namespace duet
