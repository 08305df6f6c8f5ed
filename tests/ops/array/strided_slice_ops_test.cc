// StridedSlice, StridedSliceGrad and ReverseV2: TensorFlow's values for many mask combinations in
// every dtype, the int64 Index type, large copies, and the errors. The expected values come from
// testdata/gen_strided_slice_expected.py (TensorFlow's kernels, checked against NumPy indexing).
#include <catch2/catch.hpp>

#include "core/constant.h"
#include "ops/array/array_ops.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::SequenceExpected;
using testing::SequenceTensor;

// x = arange(shape) sliced: the output's shape and values, and StridedSliceGrad's output for
// dy = 1, 2, ... of the output's shape.
struct SliceCase {
  const char* python;
  Shape shape;
  std::vector<int64_t> begin, end, strides;
  StridedSliceMasks masks;
  Shape out;
  std::vector<double> values, grad;
};

const std::vector<SliceCase>& SliceCases() {
  static const auto* cases = new std::vector<SliceCase>{
      // clang-format off
    {"x[1:3]", {4}, {1}, {3}, {1}, {0, 0, 0, 0, 0},
     {2}, {1, 2},
     {0, 1, 2, 0}},
    {"x[::2]", {4}, {0}, {0}, {2}, {1, 1, 0, 0, 0},
     {2}, {0, 2},
     {1, 0, 2, 0}},
    {"x[::-1]", {4}, {0}, {0}, {-1}, {1, 1, 0, 0, 0},
     {4}, {3, 2, 1, 0},
     {4, 3, 2, 1}},
    {"x[-1:]", {4}, {-1}, {0}, {1}, {0, 1, 0, 0, 0},
     {1}, {3},
     {0, 0, 0, 1}},
    {"x[-3:-1]", {4}, {-3}, {-1}, {1}, {0, 0, 0, 0, 0},
     {2}, {1, 2},
     {0, 1, 2, 0}},
    {"x[3:0:-1]", {4}, {3}, {0}, {-1}, {0, 0, 0, 0, 0},
     {3}, {3, 2, 1},
     {0, 3, 2, 1}},
    {"x[10:]", {4}, {10}, {0}, {1}, {0, 1, 0, 0, 0},
     {0}, {},
     {0, 0, 0, 0}},
    {"x[-10:2]", {4}, {-10}, {2}, {1}, {0, 0, 0, 0, 0},
     {2}, {0, 1},
     {1, 2, 0, 0}},
    {"x[-10:10:3]", {4}, {-10}, {10}, {3}, {0, 0, 0, 0, 0},
     {2}, {0, 3},
     {1, 0, 0, 2}},
    {"x[5:-10:-2]", {4}, {5}, {-10}, {-2}, {0, 0, 0, 0, 0},
     {2}, {3, 1},
     {0, 2, 0, 1}},
    {"x[:-1:-1]", {4}, {0}, {-1}, {-1}, {1, 0, 0, 0, 0},
     {0}, {},
     {0, 0, 0, 0}},
    {"x[2:1]", {4}, {2}, {1}, {1}, {0, 0, 0, 0, 0},
     {0}, {},
     {0, 0, 0, 0}},
    {"x[2]", {4}, {2}, {3}, {1}, {0, 0, 0, 0, 1},
     {}, {2},
     {0, 0, 1, 0}},
    {"x[-1]", {4}, {-1}, {0}, {1}, {0, 0, 0, 0, 1},
     {}, {3},
     {0, 0, 0, 1}},
    {"x[None, 1:]", {4}, {0, 1}, {0, 0}, {1, 1}, {0, 2, 0, 1, 0},
     {1, 3}, {1, 2, 3},
     {0, 1, 2, 3}},
    {"x[1:3:5]", {4}, {1}, {3}, {5}, {0, 0, 0, 0, 0},
     {1}, {1},
     {0, 1, 0, 0}},
    {"x[1]", {2, 3, 4}, {1}, {2}, {1}, {0, 0, 0, 0, 1},
     {3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
    {"x[:, 1]", {2, 3, 4}, {0, 1}, {0, 2}, {1, 1}, {1, 1, 0, 0, 2},
     {2, 4}, {4, 5, 6, 7, 16, 17, 18, 19},
     {0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0}},
    {"x[..., 1]", {2, 3, 4}, {0, 1}, {0, 2}, {1, 1}, {0, 0, 1, 0, 2},
     {2, 3}, {1, 5, 9, 13, 17, 21},
     {0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0}},
    {"x[..., ::-1]", {2, 3, 4}, {0, 0}, {0, 0}, {1, -1}, {2, 2, 1, 0, 0},
     {2, 3, 4}, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20},
     {4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9, 16, 15, 14, 13, 20, 19, 18, 17, 24, 23, 22, 21}},
    {"x[1, ..., 2]", {2, 3, 4}, {1, 0, 2}, {2, 0, 3}, {1, 1, 1}, {0, 0, 2, 0, 5},
     {3}, {14, 18, 22},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0}},
    {"x[None, ..., None]", {2, 3, 4}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {0, 0, 2, 5, 0},
     {1, 2, 3, 4, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}},
    {"x[:, None, 1:, ::-2]", {2, 3, 4}, {0, 0, 1, 0}, {0, 0, 0, 0}, {1, 1, 1, -2}, {9, 13, 0, 2, 0},
     {2, 1, 2, 2}, {7, 5, 11, 9, 19, 17, 23, 21},
     {0, 0, 0, 0, 0, 2, 0, 1, 0, 4, 0, 3, 0, 0, 0, 0, 0, 6, 0, 5, 0, 8, 0, 7}},
    {"x[..., None]", {2, 3, 4}, {0, 0}, {0, 0}, {1, 1}, {0, 0, 1, 2, 0},
     {2, 3, 4, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}},
    {"x[..., None, 0]", {2, 3, 4}, {0, 0, 0}, {0, 0, 1}, {1, 1, 1}, {0, 0, 1, 2, 4},
     {2, 3, 1}, {0, 4, 8, 12, 16, 20},
     {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0}},
    {"x[-1, -1, -1]", {2, 3, 4}, {-1, -1, -1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0, 0, 7},
     {}, {23},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
    {"x[0:2:1, ::-1, 1:3]", {2, 3, 4}, {0, 0, 1}, {2, 0, 3}, {1, -1, 1}, {2, 2, 0, 0, 0},
     {2, 3, 2}, {9, 10, 5, 6, 1, 2, 21, 22, 17, 18, 13, 14},
     {0, 5, 6, 0, 0, 3, 4, 0, 0, 1, 2, 0, 0, 11, 12, 0, 0, 9, 10, 0, 0, 7, 8, 0}},
    {"x[1:, :2]", {2, 3, 4}, {1, 0}, {0, 2}, {1, 1}, {2, 1, 0, 0, 0},
     {1, 2, 4}, {12, 13, 14, 15, 16, 17, 18, 19},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}},
    {"x[::-1, ::-2, ::3]", {2, 3, 4}, {0, 0, 0}, {0, 0, 0}, {-1, -2, 3}, {7, 7, 0, 0, 0},
     {2, 2, 2}, {20, 23, 12, 15, 8, 11, 0, 3},
     {7, 0, 0, 8, 0, 0, 0, 0, 5, 0, 0, 6, 3, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0, 2}},
    {"x[:, 5:0:-1]", {2, 3, 4}, {0, 5}, {0, 0}, {1, -1}, {1, 1, 0, 0, 0},
     {2, 2, 4}, {8, 9, 10, 11, 4, 5, 6, 7, 20, 21, 22, 23, 16, 17, 18, 19},
     {0, 0, 0, 0, 5, 6, 7, 8, 1, 2, 3, 4, 0, 0, 0, 0, 13, 14, 15, 16, 9, 10, 11, 12}},
    {"x[0, None, ..., 1::2]", {2, 3, 4}, {0, 0, 0, 1}, {1, 0, 0, 0}, {1, 1, 1, 2}, {0, 8, 4, 2, 1},
     {1, 3, 2}, {1, 3, 5, 7, 9, 11},
     {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"x[None, 0, ..., None, ::-1]", {2, 3, 4}, {0, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {1, 1, 1, 1, -1}, {16, 16, 4, 9, 2},
     {1, 3, 1, 4}, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8},
     {4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"x[1:, ..., ::-1, None, 2]", {2, 3, 4}, {1, 0, 0, 0, 2}, {0, 0, 0, 0, 3}, {1, 1, -1, 1, 1}, {4, 5, 2, 8, 16},
     {1, 3, 1}, {22, 18, 14},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0}},
    {"x[..., 1, :, :]", {2, 3, 4}, {0, 1, 0, 0}, {0, 2, 0, 0}, {1, 1, 1, 1}, {12, 12, 1, 0, 2},
     {3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
    {"x[1, 2, 3, ...]", {2, 3, 4}, {1, 2, 3, 0}, {2, 3, 4, 0}, {1, 1, 1, 1}, {0, 0, 8, 0, 7},
     {}, {23},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
    {"x[:, :, :, None]", {2, 3, 4}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {7, 7, 0, 8, 0},
     {2, 3, 4, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}},
    {"x[None]", {}, {0}, {0}, {1}, {0, 0, 0, 1, 0},
     {1}, {0},
     {1}},
    {"x[...]", {}, {0}, {0}, {1}, {0, 0, 1, 0, 0},
     {}, {0},
     {1}},
    {"x[:, 1]", {0, 3}, {0, 1}, {0, 2}, {1, 1}, {1, 1, 0, 0, 2},
     {0}, {},
     {}},
    {"x[::-1, ::-1]", {0, 3}, {0, 0}, {0, 0}, {-1, -1}, {3, 3, 0, 0, 0},
     {0, 3}, {},
     {}},
    {"begin_mask ignores begin 99", {4}, {99}, {3}, {1}, {1, 0, 0, 0, 0},
     {3}, {0, 1, 2},
     {1, 2, 3, 0}},
    {"end_mask ignores end -99 (stride -1)", {4}, {2}, {-99}, {-1}, {0, 1, 0, 0, 0},
     {3}, {2, 1, 0},
     {3, 2, 1, 0}},
    {"new_axis ignores its values", {2, 3}, {7, 1}, {-7, 2}, {5, 1}, {0, 0, 0, 1, 0},
     {1, 1, 3}, {3, 4, 5},
     {0, 0, 0, 1, 2, 3}},
    {"ellipsis ignores its values", {2, 3}, {1, 7}, {2, -7}, {1, 9}, {0, 0, 2, 0, 0},
     {1, 3}, {3, 4, 5},
     {0, 0, 0, 1, 2, 3}},
    {"shrink ignores end and begin_mask", {2, 3}, {1}, {0}, {1}, {1, 0, 0, 0, 1},
     {3}, {3, 4, 5},
     {0, 0, 0, 1, 2, 3}},
    {"shrink with stride 2", {2, 3}, {0, -2}, {0, 0}, {1, 2}, {1, 1, 0, 0, 2},
     {2}, {1, 4},
     {0, 1, 0, 0, 2, 0}},
    {"new_axis wins over shrink", {2, 3}, {0, 1}, {0, 2}, {1, 1}, {0, 0, 0, 1, 1},
     {1, 1, 3}, {3, 4, 5},
     {0, 0, 0, 1, 2, 3}},
    {"no entries: the whole input", {2, 3}, {}, {}, {}, {0, 0, 0, 0, 0},
     {2, 3}, {0, 1, 2, 3, 4, 5},
     {1, 2, 3, 4, 5, 6}},
      // clang-format on
  };
  return *cases;
}

template <typename T>
Tensor Ints(const std::vector<int64_t>& values) {
  return from_vector(std::vector<T>(values.begin(), values.end()));
}

TEMPLATE_TEST_CASE("StridedSlice and StridedSliceGrad match TensorFlow", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  for (const SliceCase& c : SliceCases()) {
    INFO(c.python << " on shape " << c.shape.str());
    const Tensor x = SequenceTensor<TestType>(c.shape);
    testing::ExpectTensor(strided_slice(x, c.begin, c.end, c.strides, c.masks), dt, c.out,
                          SequenceExpected<TestType>(c.values));
    const Tensor dy = SequenceTensor<TestType>(c.out, 1);
    const std::vector<int64_t> shape(c.shape.dims().begin(), c.shape.dims().end());
    testing::ExpectTensor(
        strided_slice_grad(Ints<int32_t>(shape), Ints<int32_t>(c.begin), Ints<int32_t>(c.end),
                           Ints<int32_t>(c.strides), dy, c.masks),
        dt, c.shape, SequenceExpected<TestType>(c.grad));
  }
}

TEST_CASE("StridedSlice and StridedSliceGrad take int64 begin, end and strides") {
  for (const SliceCase& c : SliceCases()) {
    INFO(c.python << " on shape " << c.shape.str());
    const Tensor x = SequenceTensor<float>(c.shape);
    const Tensor b = Ints<int64_t>(c.begin), e = Ints<int64_t>(c.end), s = Ints<int64_t>(c.strides);
    testing::ExpectTensor(strided_slice(x, b, e, s, c.masks), kFloat32, c.out, c.values);
    const std::vector<int64_t> shape(c.shape.dims().begin(), c.shape.dims().end());
    testing::ExpectTensor(
        strided_slice_grad(Ints<int64_t>(shape), b, e, s, SequenceTensor<float>(c.out, 1), c.masks),
        kFloat32, c.shape, c.grad);
  }
}

TEST_CASE("strided_slice takes braced lists, and values that need int64") {
  const Tensor x = SequenceTensor<int32_t>({2, 3, 4});
  // x[1:, ..., ::-1, None, 2], the example in array_ops.h.
  testing::ExpectTensor(strided_slice(x, {1, 0, 0, 0, 2}, {0, 0, 0, 0, 3}, {1, 1, -1, 1, 1},
                                      {.begin_mask = 0b00100,
                                       .end_mask = 0b00101,
                                       .ellipsis_mask = 0b00010,
                                       .new_axis_mask = 0b01000,
                                       .shrink_axis_mask = 0b10000}),
                        kInt32, {1, 3, 1}, {22, 18, 14});
  // x[:, 1:] with an end beyond int32, clamped.
  testing::ExpectTensor(strided_slice(x, {0, 1}, {2, int64_t{1} << 40}, {1, 1}), kInt32, {2, 2, 4},
                        {4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});
}

TEST_CASE("StridedSlice of a large tensor matches index math") {
  const Tensor x = SequenceTensor<float>({700, 600});
  // x[650:10:-3, 5::7]
  const std::vector<float> got =
      strided_slice(x, {650, 5}, {10, 0}, {-3, 7}, {.end_mask = 2}).to_vector<float>();
  const int64_t rows = 214, cols = 85;  // ceil(640 / 3), ceil(595 / 7)
  REQUIRE(static_cast<int64_t>(got.size()) == rows * cols);
  int64_t mismatches = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      mismatches += got[r * cols + c] != (650 - 3 * r) * 600 + 5 + 7 * c;
    }
  }
  CHECK(mismatches == 0);
  // The gradient puts every element back: summing the slice of the gradient of ones gives back
  // the slice's size.
  const Tensor g = strided_slice_grad(constant({700, 600}), constant({650, 5}), constant({10, 0}),
                                      constant({-3, 7}), ones({rows, cols}), {.end_mask = 2});
  const std::vector<float> gv = g.to_vector<float>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < 700 * 600; ++i) {
    const int64_t r = i / 600, c = i % 600;
    const bool taken = r <= 650 && r > 10 && (650 - r) % 3 == 0 && c >= 5 && (c - 5) % 7 == 0;
    wrong += gv[i] != (taken ? 1.f : 0.f);
  }
  CHECK(wrong == 0);
}

TEST_CASE("StridedSlice reports bad specs, naming the op and the values") {
  const Tensor x = zeros({2, 3});
  testing::ExpectError(
      [&] {
        strided_slice(x, {0, 0}, {1, 1}, {1, 0});
      },
      {"StridedSlice", "strides [1, 0] must be non-zero (entry 1)", "input: float32 (2, 3)",
       "strided_slice_ops_test.cc"});
  testing::ExpectError(
      [&] {
        strided_slice(x, {0, 0}, {1}, {1, 1});
      },
      {"StridedSlice", "begin, end and strides must have the same length", "(2,), (1,) and (2,)"});
  testing::ExpectError(
      [&] {
        strided_slice(x, {0, 0, 0}, {1, 1, 1}, {1, 1, 1});
      },
      {"StridedSlice", "entry 2 of the slice spec would index dim 2",
       "shape (2, 3) has only 2 dims"});
  testing::ExpectError(
      [&] { strided_slice(constant(1.f), {0}, {1}, {1}); },
      {"StridedSlice", "entry 0 of the slice spec would index dim 0", "shape () has only 0 dims"});
  testing::ExpectError(
      [&] {
        strided_slice(x, {0, 5}, {1, 6}, {1, 1}, {.shrink_axis_mask = 2});
      },
      {"StridedSlice", "index 5 of entry 1 (shrink_axis_mask) is out of range for dim 1 of size 3",
       "shape (2, 3)"});
  testing::ExpectError([&] { strided_slice(x, {-3}, {0}, {1}, {.shrink_axis_mask = 1}); },
                       {"StridedSlice", "index -3 of entry 0 (shrink_axis_mask) is out of range"});
  testing::ExpectError(
      [&] { strided_slice(x, {1}, {0}, {-1}, {.shrink_axis_mask = 1}); },
      {"StridedSlice",
       "entry 0 takes a single index (shrink_axis_mask) and needs a positive stride",
       "strides [-1]"});
  testing::ExpectError(
      [&] {
        strided_slice(x, {0, 0}, {0, 0}, {1, 1}, {.ellipsis_mask = 3});
      },
      {"StridedSlice", "ellipsis_mask 3 has more than one bit set"});
  testing::ExpectError(
      [&] {
        strided_slice(x, from_vector<int32_t>({0}), from_vector<int64_t>({1}), constant({1}));
      },
      {"StridedSlice", "Index"});
}

TEST_CASE("StridedSliceGrad reports a dy of the wrong shape and a bad shape") {
  testing::ExpectError(
      [&] {
        strided_slice_grad(constant({2, 3}), constant({0}), constant({1}), constant({1}),
                           zeros({2, 3}));
      },
      {"StridedSliceGrad", "dy has shape (2, 3), but the slice of a tensor of shape (2, 3) has ",
       "shape (1, 3)"});
  testing::ExpectError(
      [&] {
        strided_slice_grad(constant({2, -3}), constant({0}), constant({1}), constant({1}),
                           zeros({1, 3}));
      },
      {"StridedSliceGrad", "shape [2, -3] must be non-negative"});
  testing::ExpectError(
      [&] {
        strided_slice_grad(constant({2, 3}), constant({0}), constant({1}), constant({0}),
                           zeros({1, 3}));
      },
      {"StridedSliceGrad", "strides [0] must be non-zero"});
}

// ReverseV2 of x = arange(shape) along `axes`.
struct ReverseCase {
  Shape shape;
  std::vector<int64_t> axes;
  std::vector<double> values;
};

TEMPLATE_TEST_CASE("ReverseV2 matches TensorFlow", "", DUET_ALL_TYPES) {
  const DType dt = DTypeOf<TestType>();
  // clang-format off
  const std::vector<ReverseCase> cases = {
    {{2, 3, 4}, {0}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
    {{2, 3, 4}, {-1}, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20}},
    {{2, 3, 4}, {0, 2}, {15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}},
    {{2, 3, 4}, {}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
    {{2, 3, 4}, {1, -3}, {20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}},
    {{5}, {0}, {4, 3, 2, 1, 0}},
    {{0, 3}, {1}, {}},
    {{}, {}, {0}},
  };
  // clang-format on
  for (const ReverseCase& c : cases) {
    INFO("shape " << c.shape.str() << " axes " << c.axes.size());
    const Tensor x = SequenceTensor<TestType>(c.shape);
    testing::ExpectTensor(reverse(x, c.axes), dt, c.shape, SequenceExpected<TestType>(c.values));
    testing::ExpectTensor(reverse(x, Ints<int64_t>(c.axes)), dt, c.shape,
                          SequenceExpected<TestType>(c.values));
  }
}

TEST_CASE("ReverseV2 of a large tensor, and braced axes") {
  const Tensor x = SequenceTensor<double>({1000, 301});
  const std::vector<double> got = reverse(x, {0, -1}).to_vector<double>();
  int64_t mismatches = 0;
  for (int64_t i = 0; i < 1000 * 301; ++i) mismatches += got[i] != 1000 * 301 - 1 - i;
  CHECK(mismatches == 0);
}

TEST_CASE("ReverseV2 reports bad axes") {
  const Tensor x = zeros({2, 3});
  testing::ExpectError([&] { reverse(x, {2}); },
                       {"ReverseV2", "axis 2 is out of range", "rank 2", "tensor: float32 (2, 3)",
                        "strided_slice_ops_test.cc"});
  testing::ExpectError(
      [&] {
        reverse(x, {1, -1});
      },
      {"ReverseV2", "axis [1, -1] names dim 1 more than once"});
  testing::ExpectError([&] { reverse(x, constant(0)); },
                       {"ReverseV2", "axis must be a 1-D tensor, got shape ()"});
}

}  // namespace
}  // namespace duet
